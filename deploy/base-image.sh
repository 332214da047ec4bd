#!/bin/sh
# deploy/base-image.sh [ENGINE] -- make the `debian:12` base image that
# deploy/Containerfile starts from, where no image registry can be
# reached but Debian's archive can.
#
# Design note: `FROM debian:12` is pulled from a registry on an ordinary
# machine.  Where none is reachable (CI sandboxes, air-gapped build hosts
# with a Debian mirror), debootstrap makes the same minimal Debian 12
# (variant minbase) from the archive the machine's apt already uses, and
# the engine imports it under that name.  Nothing is done when the image
# is there already.  ENGINE is podman (default) or docker; MIRROR in the
# environment overrides the archive.
set -eu
engine=${1:-podman}
mirror=${MIRROR:-}
if [ -z "$mirror" ]; then
	# the first archive apt is configured with (deb822 or one-line form)
	mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p; s/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) .*/\2/p' \
		/etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | grep -v security | head -n 1)
	mirror=${mirror:-http://deb.debian.org/debian}
fi
if $engine image inspect debian:12 >/dev/null 2>&1; then
	exit 0	# quietly: deps.sh asks at every run of the suite
fi
command -v debootstrap >/dev/null || { echo "base-image: needs debootstrap (Debian package)" >&2; exit 1; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
echo "base-image: debootstrap bookworm (minbase) from $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 || {
	tail -n 5 "$root.log" >&2; rm -f "$root.log"; exit 1; }
rm -f "$root.log"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
tar -C "$root" -c . | $engine import - debian:12 >/dev/null
echo "base-image: imported debian:12 into $engine"
