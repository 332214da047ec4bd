/*
 * test_procstat.c -- the tools' /proc sampler (tools/lib/procstat.c).
 *
 * Design note: "key: value" files are written here, so the reader is
 * checked on known text (a key that is a prefix of another, blanks
 * around the value, a missing key and file).  The CPU readers are checked
 * on this process: a pid that cannot exist reads as unknown (-1), and the
 * time read by each of the three readers grows while this process spins
 * (the loop stops as soon as all three did, with a bound far above the
 * clock tick, so the test asserts growth, never a duration).
 */
#include "../harness.h"

#include "qwtools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_proc_value(void **state)
{
	char path[] = "/tmp/qwd-procstat-XXXXXX", out[64];
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("model name long\t: not this one\nmodel name\t:   AMD EPYC 7B13\n"
	      "MemTotal:       24684096 kB\nflags\t\t: fpu vme\n", f);
	fclose(f);
	/* the first line whose start is the key: "model name long" is one */
	qwt_proc_value(path, "model name\t", out, sizeof(out));
	assert_string_equal(out, "AMD EPYC 7B13");
	qwt_proc_value(path, "MemTotal", out, sizeof(out));
	assert_string_equal(out, "24684096 kB");
	qwt_proc_value(path, "cache size", out, sizeof(out));
	assert_string_equal(out, "unknown");
	/* a value cut to the room there is, terminated */
	qwt_proc_value(path, "MemTotal", out, 5);
	assert_string_equal(out, "2468");
	unlink(path);
	qwt_proc_value(path, "MemTotal", out, sizeof(out));
	assert_string_equal(out, "unknown");
}

static void test_cpu_of_this_process(void **state)
{
	long self = (long)getpid();
	double t0 = qwt_proc_cpu_s(self), k0 = qwt_proc_cpu_ticks_s(self);
	double user = 0, sys = 0, user0, sys0, t = t0, k = k0;
	volatile uint64_t x = 1;

	(void)state;
	assert_true(t0 >= 0);
	assert_true(k0 >= 0);
	assert_true(qwt_proc_cpu_s(0) < 0);
	assert_true(qwt_proc_cpu_ticks_s(-5) < 0);
	assert_true(qwt_proc_cpu_s(99999999) < 0);	/* above any pid_max */
	assert_true(qwt_proc_cpu_ticks_s(99999999) < 0);
	qwt_self_cpu(&user0, &sys0);
	assert_true(user0 >= 0);
	assert_true(sys0 >= 0);
	/* user time is charged by tick: the tick may land in the /proc reads
	 * (system time), so the spin goes on until all three readers grew */
	for (long i = 0; i < 4000000000L && (t <= t0 || k <= k0 || user <= user0);
	     i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		if (i % 1000000 == 0) {
			t = qwt_proc_cpu_s(self);
			k = qwt_proc_cpu_ticks_s(self);
			qwt_self_cpu(&user, &sys);
		}
	}
	assert_true(t > t0);
	assert_true(k > k0);
	assert_true(user > user0);
	assert_true(sys >= sys0);
}

static const struct CMUnitTest procstat_tests[] = {
	cmocka_unit_test(test_proc_value),
	cmocka_unit_test(test_cpu_of_this_process),
};

QWD_TEST_GROUP(lib_procstat, procstat_tests, NULL, NULL)
