#!/bin/sh
# run.sh BUILD [ARGS] -- what `make run` starts: qwd on the bundled map.
#
# Design note: `make run` builds everything (the server, the tools and the
# project's maps, compiled from maps/*.map into build/maps/) and starts
# BUILD/qwd in the foreground with its console on this terminal.  With no
# arguments qwd serves the bundled map "small" on port 27500; extra
# arguments pass through, e.g.  make run ARGS="+map large +maxclients 64".
# Type "help" at the console for commands, "quit" (or Ctrl-C) to stop.
set -u
build=${1:-build}
shift
if [ ! -f build/maps/small.bsp ]; then
	echo "make run: build/maps/small.bsp is missing (maps/small.map not compiled?)" >&2
	exit 1
fi
echo "make run: starting $build/qwd $* (console: type help; quit or Ctrl-C stops)"
exec "$build/qwd" "$@"
