#!/bin/sh
# deps.sh -- make sure the build dependencies are installed.
#
# Design note: the Makefile calls this when pkg-config cannot find one of
# the libraries qwd builds against.  On Debian (root, apt available) it
# installs the missing packages and says which; elsewhere it names them and
# fails, so a newcomer is never left with a cryptic compiler error.
# Optional groups (for the interoperability tests) are asked for by name:
#   deps.sh            build dependencies (libbsd, libmd, cmocka, libpcap, nettle,
#                      libmicrohttpd, libcurl, jansson, liburing, pkg-config)
#   deps.sh fuzz       clang with libFuzzer
#   deps.sh interop    the real peers the interoperability tests run:
#                      qstat, ezQuake under Xvfb with Mesa, ImageMagick,
#                      xdotool, MVDSV with KTX, tshark (dissects captures),
#                      PyYAML (reads deploy/agones/), Prometheus and
#                      promtool (scrape the metrics page), podman
#                      with runc and debootstrap (build and run
#                      deploy/Containerfile; then the debian:12 base
#                      image is made from Debian's archive when it is
#                      missing: deploy/base-image.sh)
set -eu

want=""
after=""
# after the interop packages: the container tests' base image (not fatal:
# deploy.sh skips, saying why, when it is still missing)
base_image() {
	sh "$(dirname "$0")/../deploy/base-image.sh" podman ||
		echo "deps.sh: no debian:12 image for podman (deploy/base-image.sh failed)"
}
need() { # need PACKAGE TEST-COMMAND...
	pkg=$1; shift
	if ! "$@" >/dev/null 2>&1; then want="$want $pkg"; fi
}

case "${1:-build}" in
build)
	need pkg-config command -v pkg-config
	need libbsd-dev pkg-config --exists libbsd
	need libmd-dev pkg-config --exists libmd
	need libcmocka-dev pkg-config --exists cmocka
	need libpcap-dev pkg-config --exists libpcap
	need nettle-dev pkg-config --exists nettle
	need libmicrohttpd-dev pkg-config --exists libmicrohttpd
	need libcurl4-openssl-dev pkg-config --exists libcurl
	need libjansson-dev pkg-config --exists jansson
	need liburing-dev pkg-config --exists liburing
	;;
fuzz)
	need clang command -v clang
	need libclang-rt-dev sh -c 'ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a'
	;;
interop)
	need qstat command -v quakestat
	need ezquake test -x /usr/lib/games/ezquake/ezquake
	need xvfb command -v Xvfb
	need xauth command -v xauth
	need imagemagick command -v import
	need xdotool command -v xdotool
	need libgl1-mesa-dri sh -c 'ls /usr/lib/*/dri/swrast_dri.so'
	need mvdsv sh -c 'dpkg -s mvdsv'
	need ktx sh -c 'dpkg -s ktx'
	need tshark command -v tshark
	need python3-yaml python3 -c 'import yaml'
	need prometheus command -v prometheus
	need podman command -v podman
	need runc command -v runc
	need debootstrap command -v debootstrap
	after=base_image
	;;
*)
	echo "deps.sh: unknown group '$1' (build, fuzz, interop)" >&2
	exit 2
	;;
esac

if [ -z "$want" ]; then
	[ -z "$after" ] || $after
	exit 0
fi

echo "deps.sh: missing:$want"
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "deps.sh: install these packages (Debian names) and run make again" >&2
	exit 1
fi
echo "deps.sh: installing:$want (apt-get)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $want
echo "deps.sh: installed:$want"
[ -z "$after" ] || $after
