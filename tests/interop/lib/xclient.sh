# tests/interop/lib/xclient.sh -- what the scripts that run ezQuake under
# Xvfb share: which of its Debian packages are missing, and waiting for a
# line in a log, a process gone, ezQuake quit or killed.
#
# Design note: sourced by ezquake.sh, ezquake-pause.sh, ezquake-duel.sh
# and spectator.sh (after report.sh).  xclient_missing prints the missing
# packages' names, each after a blank, for the script's skip line;
# ezquake.sh installs them (scripts/deps.sh interop does for make test).
# The waits poll once a second and are bounded by their caller's count.
# ezQuake ignores SIGTERM (and spins if its display goes away), so it is
# stopped by its quit key, else with SIGKILL, each session's pid kept in
# a file.  It lives in lib/ so that the suite does not run it as a test.

# xclient_missing EZQUAKE: the packages an ezQuake session needs that are
# not there
xclient_missing() {
	_m=""
	[ -x "$1" ] || _m="$_m ezquake"
	command -v Xvfb >/dev/null || _m="$_m xvfb"
	command -v xauth >/dev/null || _m="$_m xauth"
	{ command -v import >/dev/null && command -v compare >/dev/null; } || _m="$_m imagemagick"
	command -v xdotool >/dev/null || _m="$_m xdotool"
	ls /usr/lib/*/dri/swrast_dri.so >/dev/null 2>&1 || _m="$_m libgl1-mesa-dri"
	printf '%s' "$_m"
}

# wait_for FILE PATTERN SECONDS: until PATTERN is in FILE
wait_for() {
	_i=0
	while [ $_i -lt "$3" ] && ! grep -qs "$2" "$1"; do
		sleep 1
		_i=$((_i + 1))
	done
	grep -qs "$2" "$1"
}

# wait_count FILE PATTERN N SECONDS: until PATTERN is on N lines of FILE
wait_count() {
	_i=0
	while [ $_i -lt "$4" ] && [ "$(grep -cs "$2" "$1")" -lt "$3" ]; do
		sleep 1
		_i=$((_i + 1))
	done
	[ "$(grep -cs "$2" "$1")" -ge "$3" ]
}

# wait_gone PIDFILE SECONDS: until the process PIDFILE names has exited
wait_gone() {
	_i=0
	while [ $_i -lt "$2" ] && kill -0 "$(cat "$1")" 2>/dev/null; do
		sleep 1
		_i=$((_i + 1))
	done
}

# ez_kill PIDFILE...: SIGKILL to each process a PIDFILE there names (a
# script's cleanup, or a session's ezQuake still running)
ez_kill() {
	for _p in "$@"; do
		[ -f "$_p" ] && kill -9 "$(cat "$_p")" 2>/dev/null
	done
	return 0
}

# ez_quit PIDFILE: press F10 (bound to "quit" on ezQuake's command line),
# give it 10 s, then SIGKILL
ez_quit() {
	xdotool key F10
	wait_gone "$1" 10
	ez_kill "$1"
}
