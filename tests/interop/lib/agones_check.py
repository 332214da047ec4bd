#!/usr/bin/env python3
"""agones_check.py QWD DIR -- deploy/agones/'s manifests, checked.

Design note: no Kubernetes here, so the manifests are checked for what
would make them fail on a cluster or against qwd, from facts of Agones'
CRDs (the fields, their values) and of qwd itself:
  - each file parses (PyYAML) as the kind it should be, apiVersion
    agones.dev/v1 (GameServer, Fleet) or autoscaling.agones.dev/v1
    (FleetAutoscaler), with only the GameServer spec fields the CRD
    knows;
  - the GameServer spec (alone, and as the Fleet's template): `container`
    names one of the pod's containers; a UDP port, portPolicy Dynamic
    (or Static with a hostPort), whose containerPort is the `-port` the
    container's args give qwd; the health check's periodSeconds is at
    least twice qwd's 2 s ping and failureThreshold at least 1;
    players.initialCapacity equals the args' maxclients;
  - the FleetAutoscaler names the Fleet, a Buffer policy within its
    bounds (minReplicas <= bufferSize room, maxReplicas >= minReplicas);
  - the container's args are ones qwd takes: qwd is started with them
    (the port swapped for a free one, the base directory a temporary
    one, as the image's entrypoint gives -noconsole -basedir) and must
    answer a connectionless status naming the map the args ask for.
Prints "agones: ok: WHAT" or "agones: FAILED: WHAT" per check and exits
1 when any failed; 2 when PyYAML is missing (the caller skips).
"""
import os
import socket
import subprocess
import sys
import tempfile
import time

try:
    import yaml
except ImportError:
    sys.exit(2)

GS_FIELDS = {"container", "ports", "health", "scheduling", "sdkServer",
             "template", "players", "counters", "lists", "eviction"}
QWD_HEALTH_PING = 2.0   # seconds between qwd's Health calls (docs/fleet.md)
failed = 0


def check(what, ok):
    global failed
    print("agones: %s: %s" % ("ok" if ok else "FAILED", what))
    if not ok:
        failed += 1


def load(d, name):
    with open(os.path.join(d, name)) as f:
        docs = [x for x in yaml.safe_load_all(f) if x]
    check("%s holds one document" % name, len(docs) == 1)
    return docs[0] if docs else {}


def arg_after(args, flag):
    for i, a in enumerate(args[:-1]):
        if a == flag:
            return args[i + 1]
    return None


def gs_spec(where, spec):
    """The checks of a GameServer spec; its container's args."""
    check("%s: only the fields of Agones' GameServer spec" % where,
          set(spec) <= GS_FIELDS)
    containers = spec.get("template", {}).get("spec", {}).get("containers", [])
    names = [c.get("name") for c in containers]
    check("%s: `container` names a container of the pod" % where,
          spec.get("container") in names)
    c = next((c for c in containers if c.get("name") == spec.get("container")), {})
    args = [str(a) for a in c.get("args", [])]
    port = arg_after(args, "-port")
    udp = [p for p in spec.get("ports", []) if p.get("protocol", "UDP") == "UDP"]
    check("%s: a UDP port on qwd's -port (%s)" % (where, port),
          any(str(p.get("containerPort")) == port for p in udp))
    check("%s: the ports' policies are Agones' (Dynamic, Static with a hostPort, Passthrough, None)" % where,
          all(p.get("portPolicy", "Dynamic") in ("Dynamic", "Passthrough", "None") or
              (p.get("portPolicy") == "Static" and "hostPort" in p)
              for p in spec.get("ports", [])))
    h = spec.get("health", {})
    check("%s: the health check waits at least two of qwd's pings per period" % where,
          not h.get("disabled") and h.get("periodSeconds", 5) >= 2 * QWD_HEALTH_PING
          and h.get("failureThreshold", 3) >= 1)
    cap = spec.get("players", {}).get("initialCapacity")
    check("%s: players.initialCapacity is the args' maxclients" % where,
          cap is not None and str(cap) == arg_after(args, "+maxclients"))
    return args


def run_qwd(qwd, args):
    """qwd with the manifest's args (a free port, a temporary base
    directory): the map it says in a status answer, or None."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    a = list(args)
    a[a.index("-port") + 1] = str(port)
    with tempfile.TemporaryDirectory() as base:
        p = subprocess.Popen([qwd, "-noconsole", "-basedir", base, "-ip", "127.0.0.1"] + a,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        try:
            q = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            q.settimeout(0.25)
            end = time.monotonic() + 10
            while time.monotonic() < end and p.poll() is None:
                q.sendto(b"\xff\xff\xff\xffstatus\n", ("127.0.0.1", port))
                try:
                    data = q.recv(4096)
                except socket.timeout:
                    continue
                for part in [data.split(b"\\")]:
                    for i, k in enumerate(part[:-1]):
                        if k == b"map":
                            return part[i + 1].split(b"\n")[0].decode()
                return ""
            return None
        finally:
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()


def main():
    qwd, d = sys.argv[1], sys.argv[2]
    gs = load(d, "gameserver.yaml")
    check("gameserver.yaml is an agones.dev/v1 GameServer",
          gs.get("apiVersion") == "agones.dev/v1" and gs.get("kind") == "GameServer")
    args = gs_spec("gameserver.yaml", gs.get("spec", {}))
    fl = load(d, "fleet.yaml")
    check("fleet.yaml is an agones.dev/v1 Fleet",
          fl.get("apiVersion") == "agones.dev/v1" and fl.get("kind") == "Fleet")
    fspec = fl.get("spec", {})
    check("fleet.yaml: scheduling Packed or Distributed",
          fspec.get("scheduling", "Packed") in ("Packed", "Distributed"))
    fargs = gs_spec("fleet.yaml", fspec.get("template", {}).get("spec", {}))
    check("fleet.yaml runs qwd as gameserver.yaml does", fargs == args)
    fa = load(d, "fleetautoscaler.yaml")
    check("fleetautoscaler.yaml is an autoscaling.agones.dev/v1 FleetAutoscaler",
          fa.get("apiVersion") == "autoscaling.agones.dev/v1" and
          fa.get("kind") == "FleetAutoscaler")
    fas = fa.get("spec", {})
    check("fleetautoscaler.yaml scales fleet.yaml's Fleet",
          fas.get("fleetName") == fl.get("metadata", {}).get("name"))
    pol = fas.get("policy", {})
    b = pol.get("buffer", {})
    check("fleetautoscaler.yaml: a Buffer policy within its bounds",
          pol.get("type") == "Buffer" and int(b.get("bufferSize", 0)) >= 1 and
          int(b.get("maxReplicas", 0)) >= int(b.get("minReplicas", 0)) >=
          0 and int(b.get("maxReplicas", 0)) >= int(b.get("bufferSize", 0)))
    want = arg_after(args, "+map")
    got = run_qwd(qwd, args)
    check("qwd takes the manifests' args and serves %s (status said %r)" % (want, got),
          got is not None and got == want)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
