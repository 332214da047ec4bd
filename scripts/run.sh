#!/bin/sh
# run.sh BUILD -- what `make run` starts.
#
# Design note: `make run` must start the server on the bundled map.  Until
# the parts exist it starts what exists and says plainly what is missing:
# it never pretends.  The pieces and the issues that bring them:
#   qwd (the network server, src/server/main.c)   issue 3
#   maps/small.bsp (compiled by tools/qwmap)      issue 6
set -u
build=$1
map=maps/small.bsp
if [ -x "$build/qwd" ]; then
	if [ -f "$map" ]; then
		exec "$build/qwd" +map small
	fi
	exec "$build/qwd"
fi
echo "make run: the qwd network server is not written yet (issue 3); the bundled"
echo "make run: map maps/small.bsp comes with the map compiler (issue 6)."
echo "make run: what exists is the world model.  Checking maps with it:"
if [ -f "$map" ]; then
	exec "$build/bspinfo" "$map"
fi
real=${QWD_REALMAPS:-../shared/realmaps}
if [ -f "$real/lqdm1.bsp" ]; then
	echo "make run: (no bundled map yet; using $real/lqdm1.bsp)"
	exec "$build/bspinfo" "$real/lqdm1.bsp"
fi
echo "make run: no map to load: give one with  $build/bspinfo FILE.bsp"
exit 1
