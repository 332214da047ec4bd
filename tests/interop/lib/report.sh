# tests/interop/lib/report.sh -- the tally an interop script prints.
#
# Design note: sourced (". tests/interop/lib/report.sh") by scripts that
# make several checks, after setting `suite` to their name.  Each check
# prints one line "SUITE: WHAT: ok" or "... FAILED"; finish prints the
# totals line scripts/suite.py adds up, "SUITE: N passed, M failed"
# and its argument (", K skipped (why)"), and exits 1 if anything failed.
# It lives in lib/ so that the suite's tests/interop/*.sh does not run it.

passed=0
failed=0

# qwd -seed for scripts whose checks depend on where players spawn (the
# captures' thresholds were set on those spawns): the game's own constant,
# which every qwd played from before it took a random seed by default
game_seed=0x9E3779B97F4A7C15

finish() {
	echo "$suite: $passed passed, $failed failed${1:-}"
	[ "$failed" -eq 0 ] && exit 0
	exit 1
}

check() { # check WHAT COMMAND...: the command's status decides
	what=$1
	shift
	if "$@"; then
		passed=$((passed + 1))
		echo "$suite: $what: ok"
	else
		failed=$((failed + 1))
		echo "$suite: $what: FAILED"
	fi
}

need() { # need FILE...: each is there, else "SUITE: no FILE (make)", failed
	for _f in "$@"; do
		if [ ! -e "$_f" ]; then
			echo "$suite: no $_f (make)"
			failed=1
			finish
		fi
	done
}
