#!/bin/sh
# tsan.sh BUILD -- the worker threads under ThreadSanitizer (make tsan).
#
# Design note: BUILD holds programs built with -fsanitize=thread (make
# tsan builds build/tsan).  Two runs: the pool's unit tests (every item
# once, many rounds, pinned, the active workers) and framebench with
# --threads 2 and 3, and --threads auto with its pool growing, on a
# crowd large enough that the rate chokes replies and the workers' rings
# and batches fill (the parallel REPLY phase, docs/parallel.md); and the
# moves on the workers (the parallel EXECUTE: every segment scheduled,
# walkers and fighters on the large map, 2 and 3 threads; and the
# speculative moves, sv_threads_execute 3, on the large and small maps,
# and pipelined, sv_threads_execute 4: the steps ahead on a snapshot
# while the coordinator commits, 2 and 3 threads).
# A data
# race, a lock misuse or a thread leak is a report, and any report fails
# the run: halt_on_error stops the program at the first one and exitcode
# makes its status 66, which no clean run returns.  Prints one line per
# run and "tsan: N passed, M failed" (make test adds it up).
set -u
build=${1:-build/tsan}
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 report_signal_unsafe=0 second_deadlock_stack=1"
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run() { # run NAME COMMAND...: passes when the command exits 0
	name=$1
	shift
	if "$@" >"$log" 2>&1; then
		echo "tsan: $name: ok"
		passed=$((passed + 1))
	else
		rc=$?
		cat "$log"
		echo "tsan: $name: FAILED (exit $rc$( [ $rc -eq 66 ] && echo ', a ThreadSanitizer report'))"
		failed=$((failed + 1))
	fi
}

run "pool unit tests" "$build/tests/test_pool"
run "framebench 300 players, 2 threads" \
	"$build/framebench" --players 300 --frames 150 --warmup 5 --threads 2
run "framebench 64 players, 3 threads" \
	"$build/framebench" --players 64 --frames 150 --warmup 5 --threads 3
run "framebench 256 walkers and fighters on large, moves and replies on 2 threads" \
	"$build/framebench" --players 256 --fighters 64 --map large --frames 300 \
	--warmup 5 --threads 2 --set "sv_threads_execute 2"
run "framebench 256 walkers and fighters on large, moves and replies on 3 threads" \
	"$build/framebench" --players 256 --fighters 64 --map large --frames 200 \
	--warmup 5 --threads 3 --set "sv_threads_execute 2"
run "framebench 256 walkers and fighters on large, speculative moves on 2 threads" \
	"$build/framebench" --players 256 --fighters 64 --map large --frames 300 \
	--warmup 5 --threads 2 --set "sv_threads_execute 3"
run "framebench 256 walkers and fighters on small, speculative moves on 3 threads" \
	"$build/framebench" --players 256 --fighters 64 --map small --frames 200 \
	--warmup 5 --threads 3 --set "sv_threads_execute 3"
run "framebench 256 walkers and fighters on large, pipelined speculative moves on 2 threads" \
	"$build/framebench" --players 256 --fighters 64 --map large --frames 300 \
	--warmup 5 --threads 2 --set "sv_threads_execute 4"
run "framebench 256 walkers and fighters on small, pipelined speculative moves on 3 threads" \
	"$build/framebench" --players 256 --fighters 64 --map small --frames 200 \
	--warmup 5 --threads 3 --set "sv_threads_execute 4"
run "framebench 300 players, -threads auto growing to 3" \
	"$build/framebench" --players 300 --frames 150 --warmup 5 --threads auto \
	--threads-max 3 --set "sv_threads_period 0.05" --set "sv_threads_high 0"
echo "tsan: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
