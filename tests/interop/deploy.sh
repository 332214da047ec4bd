#!/bin/sh
# tests/interop/deploy.sh BUILD -- what an operator installs: make install,
# the systemd template unit, the container file.
#
# Design note: the deployment files (deploy/) are only as good as the
# last time something checked them, so each is checked here where the
# tool exists, and skipped with the reason where it does not:
#   install    `make install` into a temporary DESTDIR under another
#              PREFIX; the installed qwd, moved away from the build tree,
#              finds its bundled maps (../share/qwd/maps) and serves small
#              (it answers a connectionless status)
#   systemd    deploy/qwd@.service, pointed at the installed binary and a
#              test environment file, passes `systemd-analyze verify` with
#              no warning at all (verify exits 0 on unknown keys: any
#              output is a failure here)
#   agones     deploy/agones/ (GameServer, Fleet, FleetAutoscaler): read
#              and checked against Agones' fields and qwd's options, and
#              qwd run with the manifests' args (lib/agones_check.py)
#   container  deploy/Containerfile builds, the image runs with the UDP
#              port published, qwd in it answers a status, and a stop
#              ends it cleanly; skipped, saying which, where no engine
#              runs a container or Debian 12's base image is missing
#              (deploy/base-image.sh makes it from Debian's archive)
# Prints "deploy: N passed, M failed, K skipped (why)" as its last line.
set -u

build=${1:-build}
passed=0; failed=0; skipped=0; why=""
work=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT

check() {	# check NAME STATUS
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1)); echo "deploy: ok: $1"
	else
		failed=$((failed + 1)); echo "deploy: FAILED: $1"
	fi
}
skip() {	# skip REASON
	skipped=$((skipped + 1)); why="${why:+$why; }$1"; echo "deploy: skipped: $1"
}

# --- make install, relocated ------------------------------------------------
make --no-print-directory -s install BUILD="$build" DESTDIR="$work/dest" PREFIX=/opt/q \
	>"$work/install.log" 2>&1
check "make install exits 0" $?
for f in bin/qwd bin/qwbots bin/qwmap share/qwd/maps/small.bsp share/doc/qwd/README.md; do
	[ -f "$work/dest/opt/q/$f" ] || { echo "missing $f"; false; }
	check "installed $f" $?
done
mv "$work/dest/opt/q" "$work/moved"
. "$(dirname "$0")/lib/port.sh"
port=$(free_port)
(cd "$work" && exec "$work/moved/bin/qwd" -noconsole -ip 127.0.0.1 -port $port) \
	>"$work/qwd.log" 2>&1 &
pid=$!
i=0
while [ $i -lt 50 ] && ! grep -q "map small loaded" "$work/qwd.log"; do sleep 0.1; i=$((i + 1)); done
grep -q "map small loaded from $work/moved/bin/../share/qwd/maps/small.bsp" "$work/qwd.log"
check "the installed qwd, moved, serves its own bundled map" $?
python3 - "$port" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
s.sendto(b"\xff\xff\xff\xffstatus\n", ("127.0.0.1", int(sys.argv[1])))
data = s.recv(4096)
sys.exit(0 if b"\\map\\small" in data else 1)
PY
check "it answers status with map small" $?
kill $pid; wait $pid 2>/dev/null; pid=""

# --- systemd ------------------------------------------------------------------
if command -v systemd-analyze >/dev/null 2>&1; then
	sed -e "s|/usr/local/bin/qwd|$work/moved/bin/qwd|" \
		-e "s|EnvironmentFile=/etc/qwd/%i.env|EnvironmentFile=$work/%i.env|" \
		deploy/qwd@.service >"$work/qwd@.service"
	cp deploy/qwd.env "$work/test.env"
	systemd-analyze verify "$work/qwd@test.service" >"$work/verify.log" 2>&1
	rc=$?
	cat "$work/verify.log"
	[ $rc -eq 0 ] && [ ! -s "$work/verify.log" ]
	check "systemd-analyze verify qwd@.service: no error, no warning" $?
	grep -q '^ExecStart=.*-noconsole -basedir /srv/qwd/%i \$QWD_ARGS$' deploy/qwd@.service
	check "the unit runs qwd without a console, in the instance's base directory" $?
else
	skip "no systemd-analyze (Debian package systemd)"
fi

# --- Agones -------------------------------------------------------------------
# deploy/agones/: the manifests' fields and values against Agones' CRDs
# and qwd's own options, qwd started with their args (lib/agones_check.py)
python3 "$(dirname "$0")/lib/agones_check.py" "$build/qwd" deploy/agones >"$work/agones.log" 2>&1
rc=$?
cat "$work/agones.log"
if [ $rc -eq 2 ]; then
	skip "no PyYAML (Debian package python3-yaml) to read deploy/agones/"
else
	check "deploy/agones/: $(grep -c ': ok:' "$work/agones.log") checks of the GameServer, Fleet and FleetAutoscaler" $rc
fi

# --- container ------------------------------------------------------------------
# status PORT: qwd answers a connectionless status with map small
status_small() {
	python3 - "$1" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1)
for _ in range(10):
    s.sendto(b"\xff\xff\xff\xffstatus\n", ("127.0.0.1", int(sys.argv[1])))
    try:
        data = s.recv(4096)
    except OSError:
        time.sleep(0.5)
        continue
    sys.exit(0 if b"\\map\\small" in data else 1)
sys.exit(1)
PY
}
engine=""
for e in podman docker; do
	command -v $e >/dev/null 2>&1 && timeout 10 $e info >/dev/null 2>&1 && { engine=$e; break; }
done
# how containers run here: the engine's defaults, else (podman) runc with
# the limits this process has (a sandbox without CAP_SYS_RESOURCE refuses
# the engine's raised defaults; crun refuses hybrid cgroups)
runopts=""
if [ -n "$engine" ] && timeout 20 $engine image inspect debian:12 >/dev/null 2>&1; then
	lim="--ulimit nofile=4096:4096 --ulimit nproc=4096:4096"
	for o in "" "$lim" "--runtime runc $lim"; do
		if [ "$engine" = docker ] && [ -n "$o" ] && [ "${o#--runtime}" != "$o" ]; then continue; fi
		# shellcheck disable=SC2086
		if timeout 60 $engine ${o%%--ulimit*} run --rm ${o#--runtime runc } debian:12 true \
			>"$work/probe.log" 2>&1; then
			runopts="ok:$o"; break
		fi
	done
fi
if [ -z "$engine" ]; then
	skip "no container engine running (docker or podman info fails)"
elif ! timeout 20 $engine image inspect debian:12 >/dev/null 2>&1; then
	skip "no debian:12 base image for $engine (deploy/base-image.sh makes one from Debian's archive)"
elif [ -z "$runopts" ]; then
	skip "$engine cannot run a container here: $(tail -n 1 "$work/probe.log")"
else
	o=${runopts#ok:}
	global=${o%%--ulimit*}	# "--runtime runc " or empty: an engine option
	limits=${o#--runtime runc }	# the --ulimit options, or empty
	echo "deploy: containers run with '$engine ${o:-(defaults)}'"
	tag=qwd-deploy-test
	# the build stage's dependencies tagged, so pruning the dangling layers
	# of earlier runs below keeps them cached
	# shellcheck disable=SC2086
	timeout 900 $engine $global build $limits -q --target build-deps -t $tag-build-deps \
		-f deploy/Containerfile . >"$work/build.log" 2>&1 &&
	timeout 900 $engine $global build $limits -q -f deploy/Containerfile -t $tag . \
		>>"$work/build.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] || tail -n 20 "$work/build.log"
	check "deploy/Containerfile builds ($engine)" $rc
	if [ $rc -eq 0 ]; then
		cport=$(free_port)
		name=qwd-deploy-test-$$
		# shellcheck disable=SC2086
		timeout 60 $engine $global run -d --name $name $limits \
			-p 127.0.0.1:$cport:27500/udp $tag +map small >"$work/run.log" 2>&1
		check "the image runs (-p 127.0.0.1:$cport:27500/udp)" $?
		i=0
		while [ $i -lt 100 ] && ! $engine logs $name 2>&1 | grep -q "map small loaded"; do
			sleep 0.1; i=$((i + 1))
		done
		status_small $cport
		check "qwd in the container answers status with map small" $?
		timeout 30 $engine stop -t 10 $name >/dev/null 2>&1
		$engine logs $name >"$work/container.log" 2>&1
		code=$($engine inspect -f '{{.State.ExitCode}}' $name 2>/dev/null)
		grep -q "SIGTERM received" "$work/container.log" && grep -q "qwd stopped" "$work/container.log" &&
			[ "$code" = 0 ]
		rc=$?
		[ $rc -eq 0 ] || { tail -n 5 "$work/container.log"; echo "exit code '$code'"; }
		check "'$engine stop' ends it cleanly (SIGTERM, exit 0)" $rc
		# the network path is chosen at start and said in one line; the
		# engine's seccomp profile refuses io_uring where it has one, so
		# this is where the select fallback runs for real
		netline=$(grep -m 1 "network path:" "$work/container.log")
		echo "deploy: in the container: ${netline#*INFO }"
		[ -n "$netline" ]
		check "qwd in the container says which network path it took" $?
		$engine rm -f $name >/dev/null 2>&1
	fi
	# the layers of earlier builds this run's tags no longer hold
	$engine image prune -f >/dev/null 2>&1
fi

if [ "$skipped" -gt 0 ]; then
	echo "deploy: $passed passed, $failed failed, $skipped skipped ($why)"
else
	echo "deploy: $passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
