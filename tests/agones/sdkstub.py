#!/usr/bin/env python3
"""sdkstub.py -- a stand-in for the Agones SDK server's REST side, owned by
qwd's tests.

Design note: the real sidecar is not packaged, so the tests play against
this one, which holds qwd to the documented contract rather than to what
qwd happens to send: the paths and methods of sdk.proto's and alpha.proto's
HTTP bindings; JSON bodies with the proto's field names (an unknown field is
a 400, as the gateway's strict decoding of a message would make it); 64-bit
integers as strings (reserve's "seconds", capacity's "count"); a health
ping with an empty body is a 400; the watch answers with the GameServer at
once and then one {"result": GameServer} line per change, chunked, held
open.  The GameServer moves Scheduled -> Ready -> Allocated -> Reserved ->
Shutdown as the sidecar's does; nothing but a read after Shutdown.  Every
call is recorded under the SDK server's test-mode name, with its status.

Test-only paths (never called by qwd):
  GET  /__calls                 one "name status" line per call
  POST /__allocate {"labels": {...}, "annotations": {...}}
                                the allocator's move: Allocated, with the
                                allocation's metadata (one watch line)
Options: --port N (0: any; the port is printed on stdout's first line),
--delay S (bind only after S seconds: the sidecar starting late).
"""
import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Condition()
CALLS = []
STATE = {
    "version": 0,
    "gs": None,
    "connected": [],
}


def new_gs():
    return {
        "object_meta": {
            "name": "qwd-stub",
            "namespace": "default",
            "uid": "0b1d3c2a-7a1e-4c5e-9f00-5eed5eed5eed",
            "resource_version": "1",
            "generation": "1",
            "creation_timestamp": "1700000000",
            "annotations": {},
            "labels": {},
        },
        "spec": {"health": {"period_seconds": 5, "failure_threshold": 3,
                            "initial_delay_seconds": 5}},
        "status": {
            "state": "Scheduled",
            "address": "127.0.0.1",
            "ports": [{"name": "default", "port": 27500}],
            "players": {"count": "0", "capacity": "0", "ids": []},
        },
    }


def changed():
    """the GameServer changed: the watchers write a line"""
    STATE["version"] += 1
    LOCK.notify_all()


class Bad(Exception):
    pass


def int64(body, field):
    v = body.get(field)
    if not isinstance(v, str):
        raise Bad("%s must be an int64 as a JSON string, got %r" % (field, v))
    try:
        return int(v, 10)
    except ValueError:
        raise Bad("%s is not an integer: %r" % (field, v))


def fields(body, allowed, required=()):
    for k in body:
        if k not in allowed:
            raise Bad("unknown field %r (the proto's names: %s)"
                      % (k, ", ".join(allowed) or "none"))
    for k in required:
        if k not in body:
            raise Bad("missing field %r" % k)


def state_of():
    return STATE["gs"]["status"]["state"]


def set_state(s):
    STATE["gs"]["status"]["state"] = s
    changed()


def not_after_shutdown():
    if state_of() == "Shutdown":
        raise Bad("the GameServer is shut down")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send_json(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        if self.headers.get("Transfer-Encoding"):
            raise Bad("chunked request bodies are not expected")
        return self.rfile.read(n) if n else b""

    def record(self, name, code):
        CALLS.append([name, code])

    def json_body(self, raw, empty_ok=False):
        if not raw:
            if empty_ok:
                return {}
            raise Bad("empty body (a JSON object is required)")
        try:
            body = json.loads(raw)
        except ValueError as e:
            raise Bad("body is not JSON: %s" % e)
        if not isinstance(body, dict):
            raise Bad("body is not a JSON object")
        return body

    def only_int64(self, raw, field):
        """a body {field: "N"}, N >= 0"""
        body = self.json_body(raw)
        fields(body, (field,), (field,))
        n = int64(body, field)
        if n < 0:
            raise Bad("%s is negative" % field)
        return n

    def handle_call(self, method):
        path = self.path
        name = "?"
        try:
            raw = self.read_body() if method != "GET" else b""
            with LOCK:
                name, answer = self.dispatch(method, path, raw)
                self.record(name, 200)
            if answer is not None:
                self.send_json(200, answer)
        except Bad as e:
            with LOCK:
                self.record(name, 400)
            self.send_json(400, {"code": 3, "message": str(e)})
        except KeyError:
            with LOCK:
                self.record("%s %s" % (method, path), 404)
            self.send_json(404, {"code": 5, "message": "Not Found"})

    def do_GET(self):
        if self.path == "/watch/gameserver":
            return self.watch()
        if self.path == "/__calls":
            with LOCK:
                text = "".join("%s %d\n" % (n.replace(" ", "_"), c)
                               for n, c in CALLS).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)
            return
        self.handle_call("GET")

    def do_POST(self):
        self.handle_call("POST")

    def do_PUT(self):
        self.handle_call("PUT")

    def dispatch(self, method, path, raw):
        gs = STATE["gs"]
        players = gs["status"]["players"]
        key = (method, path)
        if key == ("POST", "/__allocate"):
            body = self.json_body(raw)
            meta = gs["object_meta"]
            meta["labels"].update(body.get("labels", {}))
            meta["annotations"].update(body.get("annotations", {}))
            set_state("Allocated")
            return "__allocate", {}
        if key in (("POST", "/ready"), ("POST", "/allocate"),
                   ("POST", "/shutdown")):
            name = path[1:]
            body = self.json_body(raw)
            fields(body, ())
            if name != "shutdown":
                not_after_shutdown()
            set_state({"ready": "Ready", "allocate": "Allocated",
                       "shutdown": "Shutdown"}[name])
            return name, {}
        if key == ("POST", "/health"):
            if not raw:
                raise Bad("health: empty body")
            self.json_body(raw)
            return "health", {}
        if key == ("POST", "/reserve"):
            self.only_int64(raw, "seconds")
            not_after_shutdown()
            set_state("Reserved")
            return "reserve", {}
        if key in (("PUT", "/metadata/label"),
                   ("PUT", "/metadata/annotation")):
            body = self.json_body(raw)
            fields(body, ("key", "value"), ("key", "value"))
            if not isinstance(body["key"], str) or \
               not isinstance(body["value"], str) or not body["key"]:
                raise Bad("key and value must be strings, key not empty")
            which = "labels" if path.endswith("label") else "annotations"
            gs["object_meta"][which]["agones.dev/sdk-" + body["key"]] = \
                body["value"]
            changed()
            return ("setlabel" if which == "labels" else "setannotation"), {}
        if key == ("GET", "/gameserver"):
            return "gameserver", gs
        if key in (("POST", "/alpha/player/connect"),
                   ("POST", "/alpha/player/disconnect")):
            body = self.json_body(raw)
            fields(body, ("playerID",), ("playerID",))
            pid = body["playerID"]
            if not isinstance(pid, str) or not pid:
                raise Bad("playerID must be a non-empty string")
            ids = players["ids"]
            if path.endswith("/connect"):
                if pid in ids:
                    return "playerconnect", {"bool": False}
                if len(ids) >= int(players["capacity"]):
                    raise Bad("players are at capacity")
                ids.append(pid)
                name = "playerconnect"
            else:
                if pid not in ids:
                    return "playerdisconnect", {"bool": False}
                ids.remove(pid)
                name = "playerdisconnect"
            players["count"] = str(len(ids))
            changed()
            return name, {"bool": True}
        if key == ("PUT", "/alpha/player/capacity"):
            n = self.only_int64(raw, "count")
            players["capacity"] = str(n)
            changed()
            return "setplayercapacity", {}
        if key == ("GET", "/alpha/player/capacity"):
            return "getplayercapacity", {"count": players["capacity"]}
        if key == ("GET", "/alpha/player/count"):
            return "getplayercount", {"count": players["count"]}
        if key == ("GET", "/alpha/player/connected"):
            return "getconnectedplayers", {"list": list(players["ids"])}
        if method == "GET" and path.startswith("/alpha/player/connected/"):
            pid = path[len("/alpha/player/connected/"):]
            return "isplayerconnected", {"bool": pid in players["ids"]}
        raise KeyError(path)

    def watch(self):
        with LOCK:
            self.record("watch", 200)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        seen = -1
        try:
            while True:
                with LOCK:
                    while STATE["version"] == seen:
                        LOCK.wait()
                    seen = STATE["version"]
                    line = json.dumps({"result": STATE["gs"]}) + "\n"
                data = line.encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
        except OSError:
            pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--delay", type=float, default=0.0)
    args = ap.parse_args()
    STATE["gs"] = new_gs()
    if args.delay > 0:
        time.sleep(args.delay)
    ThreadingHTTPServer.daemon_threads = True
    srv = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    # one write of the whole line; the reader may go at once
    try:
        os.write(1, b"%d\n" % srv.server_address[1])
    except OSError:
        pass
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
