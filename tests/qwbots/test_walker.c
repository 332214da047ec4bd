/*
 * test_walker.c -- the random walker's frame schedule, its seeded choices,
 * and the generator under it.
 *
 * Design note: the walker is pure (a struct, a generator, a command), so
 * the schedule is checked frame by frame: standing frames 0-9 of each
 * 20-frame cycle, walking 10-19, one action at frame 15 and none on any
 * other frame; a jump or a shot lasts one frame, a turn persists.  Runs
 * with one seed are compared command by command.
 */
#include "../harness.h"

#include <string.h>

#include "../../tools/qwbots/qwbots.h"

static const struct qwt_walker_params study = {10, 5, 5, 400};

static void test_schedule(void **state)
{
	struct qwt_walker w;
	struct qwt_rng r;
	struct usercmd cmd;
	float yaw = 90.0f;
	int actions = 0;

	(void)state;
	qwt_rng_seed(&r, 42, 7);
	qwt_walker_start(&w, yaw);
	for (int f = 0; f < 200; f++) {
		enum qwt_walker_action a;

		memset(&cmd, 0xab, sizeof(cmd));
		cmd.msec = 33;
		a = qwt_walker_step(&w, &study, &r, &cmd);
		/* msec is the client library's, untouched */
		assert_int_equal(cmd.msec, 33);
		assert_true(cmd.angles[0] == 0.0f && cmd.angles[2] == 0.0f);
		assert_int_equal(cmd.sidemove, 0);
		assert_int_equal(cmd.upmove, 0);
		assert_int_equal(cmd.impulse, 0);
		assert_int_equal(cmd.forwardmove, f % 20 >= 10 ? 400 : 0);
		if (f % 20 != 15) {
			assert_int_equal(a, QWT_ACT_NONE);
			assert_int_equal(cmd.buttons, 0);
			assert_true(cmd.angles[1] == yaw);
			continue;
		}
		actions++;
		switch (a) {
		case QWT_ACT_JUMP:
			assert_int_equal(cmd.buttons, BUTTON_JUMP);
			assert_true(cmd.angles[1] == yaw);
			break;
		case QWT_ACT_FIRE:
			assert_int_equal(cmd.buttons, BUTTON_ATTACK);
			assert_true(cmd.angles[1] == yaw);
			break;
		case QWT_ACT_TURN:
			assert_int_equal(cmd.buttons, 0);
			assert_true(cmd.angles[1] >= 0.0f && cmd.angles[1] < 360.0f);
			yaw = cmd.angles[1];	/* kept from now on */
			break;
		default:
			fail_msg("frame %d: no action", f);
		}
	}
	assert_int_equal(actions, 10);
	assert_int_equal(w.actions[QWT_ACT_JUMP] + w.actions[QWT_ACT_FIRE] +
				 w.actions[QWT_ACT_TURN],
			 10);
}

/* the same seed gives the same commands; another seed does not */
static void run_walker(uint64_t seed, uint64_t stream, struct usercmd *out,
		       int frames)
{
	struct qwt_walker w;
	struct qwt_rng r;

	qwt_rng_seed(&r, seed, stream);
	qwt_walker_start(&w, 0);
	for (int f = 0; f < frames; f++) {
		memset(&out[f], 0, sizeof(out[f]));
		qwt_walker_step(&w, &study, &r, &out[f]);
	}
}

static void test_seeded(void **state)
{
	static struct usercmd a[2000], b[2000], c[2000], d[2000];

	(void)state;
	run_walker(7, 3, a, 2000);
	run_walker(7, 3, b, 2000);
	run_walker(8, 3, c, 2000);
	run_walker(7, 4, d, 2000);
	assert_memory_equal(a, b, sizeof(a));
	assert_true(memcmp(a, c, sizeof(a)) != 0);
	assert_true(memcmp(a, d, sizeof(a)) != 0);
}

static void test_action_mix(void **state)
{
	struct qwt_walker w;
	struct qwt_rng r;
	struct usercmd cmd;
	const int cycles = 3000;

	(void)state;
	qwt_rng_seed(&r, 1, 1);
	qwt_walker_start(&w, 0);
	for (int f = 0; f < cycles * 20; f++)
		qwt_walker_step(&w, &study, &r, &cmd);
	for (int k = QWT_ACT_JUMP; k <= QWT_ACT_TURN; k++) {
		/* each a third, give or take (binomial sd ~ 26) */
		assert_true(w.actions[k] > 850 && w.actions[k] < 1150);
	}
	assert_string_equal(qwt_action_name(QWT_ACT_TURN), "turn");
}

static void test_other_params(void **state)
{
	const struct qwt_walker_params p = {2, 1, 1, 320};
	struct qwt_walker w;
	struct qwt_rng r;
	struct usercmd cmd;

	(void)state;
	qwt_rng_seed(&r, 5, 5);
	qwt_walker_start(&w, 10);
	for (int f = 0; f < 40; f++) {
		enum qwt_walker_action a = qwt_walker_step(&w, &p, &r, &cmd);

		assert_int_equal(cmd.forwardmove, f % 4 >= 2 ? 320 : 0);
		assert_int_equal(a != QWT_ACT_NONE, f % 4 == 3);
	}
}

static void test_rng(void **state)
{
	struct qwt_rng r;
	int seen[10] = {0};

	(void)state;
	qwt_rng_seed(&r, 0, 0);
	for (int i = 0; i < 10000; i++) {
		double u = qwt_rng_unit(&r);
		uint32_t k = qwt_rng_below(&r, 10);

		assert_true(u >= 0.0 && u < 1.0);
		assert_true(k < 10);
		seen[k]++;
	}
	for (int k = 0; k < 10; k++)
		assert_true(seen[k] > 800 && seen[k] < 1200);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_schedule),
	cmocka_unit_test(test_seeded),
	cmocka_unit_test(test_action_mix),
	cmocka_unit_test(test_other_params),
	cmocka_unit_test(test_rng),
};

QWD_TEST_GROUP(qwbots_walker, tests, NULL, NULL)
