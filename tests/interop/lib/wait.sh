# tests/interop/lib/wait.sh -- wait_until, the interop scripts' bounded wait.
#
# Design note: sourced by scripts that wait on a condition a command tests
# (a page served, a peer's answer, a process gone) rather than on a log
# line (xclient.sh's wait_for).  The condition is polled four times a
# second up to the deadline, so a check never depends on how fast the
# machine is, only on the bound.
#
# wait_until SECONDS COMMAND...: 0 once the command succeeds, 1 at the
# deadline.
wait_until() {
	_n=$(($1 * 4))
	shift
	while [ $_n -gt 0 ]; do
		"$@" && return 0
		sleep 0.25
		_n=$((_n - 1))
	done
	return 1
}
