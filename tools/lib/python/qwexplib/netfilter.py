"""netfilter.py -- exempting the study's loopback datagrams from
connection tracking, for the length of a run (qwexp --notrack).

Design note: on a host where netfilter's connection tracking is loaded
(any NAT or stateful rule: Docker's, podman's), every datagram on
loopback, each way, is looked up in the tracking table and passes the
NAT hooks: on this project's machine at 2048 players that is about 6%
of the server's CPU (docs/results/2026-11-29-notrack).  A real
server behind such a host pays it too, unless its port is exempted
(docs/operators.md); a study that means to measure the server, not the
host's firewall, may exempt its traffic.  This adds one nftables table
of its own, which exempts UDP on loopback (the server, the bots, MVDSV,
the echo: every process of a run talks over 127.0.0.1), and deletes it
when the run ends (its end, Ctrl-C, SIGTERM; a runner killed outright
leaves it to the next --notrack run, which deletes it first, or to
`nft delete table ip qwexp_notrack`).  Nothing else of the host's rules
is read or touched.  Root and nft are needed; without them the run
stops before it starts, saying why."""

import atexit
import shutil
import subprocess

TABLE = "qwexp_notrack"

RULES = """table ip %s {
	chain pre {
		type filter hook prerouting priority raw; policy accept;
		iif "lo" meta l4proto udp notrack
	}
	chain out {
		type filter hook output priority raw; policy accept;
		oif "lo" meta l4proto udp notrack
	}
}
""" % TABLE


class NetfilterError(Exception):
    pass


def _nft(args, text=None):
    try:
        return subprocess.run(["nft"] + args, input=text, capture_output=True,
                              text=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as e:
        raise NetfilterError("nft: %s" % e)


def remove():
    """Delete the table if it is there (quietly otherwise)."""
    if shutil.which("nft"):
        try:
            _nft(["delete", "table", "ip", TABLE])
        except NetfilterError:
            pass


def exempt_loopback_udp():
    """Add the table; it is deleted at exit.  Returns what env.txt says."""
    if not shutil.which("nft"):
        raise NetfilterError("--notrack needs nft (Debian: apt-get install nftables)")
    remove()
    r = _nft(["-f", "-"], RULES)
    if r.returncode != 0:
        raise NetfilterError("--notrack: nft refused the table (%s); it needs root"
                             % (r.stderr.strip() or "exit %d" % r.returncode))
    atexit.register(remove)
    return "loopback UDP exempted for the run (nft table %s)" % TABLE
