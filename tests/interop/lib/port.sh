# tests/interop/lib/port.sh -- a port for a server an interop script starts.
#
# Design note: sourced by the scripts that start servers.  make test runs
# the scripts at the same time (scripts/suite.py), and other people's
# servers and tests may share the machine, so a port is never fixed nor
# derived from the pid into a range another script also uses: free_port
# asks the kernel for one (bind to port 0, the same way the C fixtures
# do in tests/server/srvfix.c), checks that the number is free for TCP
# as well (QTV listens on the game port's number), and gives it back.
# The kernel picks at random over its ephemeral range, so two scripts
# asking at the same moment get different numbers, and a server just
# stopped does not get its port again.  Prints the port; fails (status
# 1, nothing printed) when none was found.

free_port() {
	python3 - <<'EOF'
import socket, sys
for _ in range(64):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        u.bind(("0.0.0.0", 0))
        port = u.getsockname()[1]
        t.bind(("0.0.0.0", port))
    except OSError:
        continue
    finally:
        u.close()
        t.close()
    print(port)
    sys.exit(0)
sys.exit(1)
EOF
}
