/*
 * test_report.c -- the one-line report, the counter table and the JSON
 * lines (the operator's commands that print them: tests/server/
 * test_profcmd.c).
 *
 * Design note: the formatters are pure functions of a struct prof_stats,
 * so the line is checked whole against hand-made figures; the JSON is
 * checked by parsing it back (fake_pmu.c's minimal parser) and reading
 * named fields, which is what the experiment runner will do.
 */
#include "../harness.h"

#include "fake_pmu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void nan_derived(struct prof_derived *d)
{
	d->ipc = d->branch_miss_rate = d->l1d_mpki = d->l1i_mpki = d->llc_mpki = NAN;
	d->stall_frontend = d->stall_backend = d->cpu_share = NAN;
	d->cycles = d->instructions = d->context_switches = d->page_faults = NAN;
}

static void sample(struct prof_stats *st)
{
	static const double share[PROF_PHASES] = {0.004, 0.021, 0.030, 0.062, 0.883};

	memset(st, 0, sizeof(*st));
	st->seq = 7;
	st->uptime_s = 70.0;
	st->wall_time = 1700000000.5;
	st->seconds = 10.0;
	st->frames = 9980;
	for (int ph = 0; ph < PROF_PHASES; ph++) {
		st->phase_share[ph] = share[ph];
		st->phase_ns[ph] = (uint64_t)(share[ph] * 1e10);
		nan_derived(&st->phase[ph]);
	}
	st->requests = 31800;
	st->replies = 31790;
	st->requests_per_frame = (struct qwd_hist_summary){9980, 3.19, 3, 9, 40};
	st->request_time_ns = (struct qwd_hist_summary){31790, 99000.0, 85000, 410000, 1200000};
	st->reply_bytes = (struct qwd_hist_summary){31790, 410.0, 380, 1100, 1380};
	st->frame_busy_ns = (struct qwd_hist_summary){9980, 110000.0, 100000, 300000, 900000};
	st->packets_in = 31800;
	st->bytes_in = 1900000;
	st->packets_out = 31790;
	st->bytes_out = 13000000;
	st->clients_active = 10;
	st->client_in_Bps_mean = 19000.0;
	st->client_in_Bps_max = 21000.0;
	st->client_out_Bps_mean = 130000.0;
	st->client_out_Bps_max = 150000.0;
	st->counter_mode = PROF_CTR_ROTATING;
	st->events_counted = (1u << PROF_EVENTS) - 1;
	nan_derived(&st->busy);
	nan_derived(&st->all);
	st->busy.ipc = 0.416;
	st->busy.branch_miss_rate = 0.14;
	st->busy.l1d_mpki = 12.1;
	st->busy.l1i_mpki = 8.0;
	st->busy.llc_mpki = 0.5;
	st->busy.stall_frontend = 0.12;
	st->busy.stall_backend = 0.25;
	st->busy.cpu_share = 0.11;
	st->all.context_switches = 1200.0;
	st->all.page_faults = 0.0;
	st->phase[PROF_EXECUTE].ipc = 0.5;
}

static void test_line(void **state)
{
	struct prof_stats st;
	char line[1024];
	int n;

	(void)state;
	sample(&st);
	n = prof_format_line(&st, line, sizeof(line));
	assert_int_equal(n, (int)strlen(line));
	assert_string_equal(line,
		"stats 10.0s 998 fps | world 0.4% recv 2.1% exec 3.0% reply 6.2% "
		"idle 88.3% | req 3180/s 3.19/frame rep 3179/s | rt p50 85us "
		"p99 410us max 1.2ms | reply 410B avg 1380B max | in 3180 pkt/s "
		"190.0 kB/s out 3179 pkt/s 1.30 MB/s | clients 10 out avg "
		"130.0 kB/s max 150.0 kB/s | ipc 0.42 br 14.0% mpki l1d 12.1 "
		"l1i 8.0 llc 0.50 stall fe 12% be 25% cpu 11% cs 120/s pf 0/s "
		"[rotating]");
}

static void test_line_degrades(void **state)
{
	struct prof_stats st;
	char line[1024], small[40];
	int n;

	(void)state;
	sample(&st);
	/* counters off: no counter part at all */
	st.counter_mode = PROF_CTR_OFF;
	prof_format_line(&st, line, sizeof(line));
	assert_null(strstr(line, "ipc"));
	assert_null(strstr(line, "cpu"));
	assert_non_null(strstr(line, "| clients 10 out avg 130.0 kB/s max 150.0 kB/s"));
	/* software only: the hardware figures are NaN and left out */
	st.counter_mode = PROF_CTR_SOFTWARE;
	st.counters_user_only = true;
	nan_derived(&st.busy);
	st.busy.cpu_share = 0.5;
	prof_format_line(&st, line, sizeof(line));
	assert_non_null(strstr(line, "| cpu 50% cs 120/s pf 0/s [sw only: no hw counters] [user only]"));
	assert_null(strstr(line, "ipc"));
	assert_null(strstr(line, "mpki"));
	/* empty interval: no division by zero, dashes for what is unknown */
	memset(&st, 0, sizeof(st));
	prof_format_line(&st, line, sizeof(line));
	assert_string_equal(line,
		"stats 0.0s 0 fps | world 0.0% recv 0.0% exec 0.0% reply 0.0% "
		"idle 0.0% | req 0/s 0.00/frame rep 0/s | rt - | reply - | in 0 "
		"pkt/s - out 0 pkt/s - | clients 0");
	/* truncation: snprintf's contract */
	sample(&st);
	n = prof_format_line(&st, small, sizeof(small));
	assert_int_equal(n, prof_format_line(&st, line, sizeof(line)));
	assert_int_equal(n, (int)strlen(line));
	assert_memory_equal(small, line, sizeof(small) - 1);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_int_equal(prof_format_line(&st, NULL, 0), n);
}

static void test_json_fields(void **state)
{
	struct prof_stats st;
	char buf[16384], v[64];
	FILE *f;

	(void)state;
	sample(&st);
	f = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(f);
	assert_int_equal(prof_write_json(&st, f), 0);
	fclose(f);
	assert_int_equal(buf[strlen(buf) - 1], '\n');
	assert_ptr_equal(strchr(buf, '\n'), buf + strlen(buf) - 1);	/* one line */
	assert_true(json_text_valid(buf));
	assert_true(json_text_get(buf, "schema", v, sizeof(v)));
	assert_string_equal(v, "\"qwd-stats/1\"");
	assert_true(json_text_num(buf, "seq") == 7);
	assert_true(fabs(json_text_num(buf, "time") - 1700000000.5) < 1e-3);
	assert_true(json_text_num(buf, "interval_s") == 10.0);
	assert_true(json_text_num(buf, "frames") == 9980);
	/* the phases by name */
	assert_true(json_text_num(buf, "phase_ns.world") == 40000000);
	assert_true(json_text_num(buf, "phase_ns.receive") == 210000000);
	assert_true(json_text_num(buf, "phase_ns.execute") == 300000000);
	assert_true(json_text_num(buf, "phase_ns.reply") == 620000000);
	assert_true(json_text_num(buf, "phase_ns.idle") == 8830000000.0);
	assert_true(fabs(json_text_num(buf, "phase_share.idle") - 0.883) < 1e-9);
	assert_true(json_text_num(buf, "requests") == 31800);
	assert_true(fabs(json_text_num(buf, "requests_per_s") - 3180.0) < 1e-9);
	assert_true(fabs(json_text_num(buf, "replies_per_s") - 3179.0) < 1e-9);
	assert_true(fabs(json_text_num(buf, "requests_per_frame.mean") - 3.19) < 1e-9);
	assert_true(json_text_num(buf, "request_time_us.p50") == 85.0);
	assert_true(json_text_num(buf, "request_time_us.p99") == 410.0);
	assert_true(json_text_num(buf, "request_time_us.max") == 1200.0);
	assert_true(json_text_num(buf, "request_time_us.count") == 31790);
	assert_true(json_text_num(buf, "reply_bytes.max") == 1380);
	assert_true(json_text_num(buf, "frame_busy_us.p99") == 300.0);
	assert_true(json_text_num(buf, "net.bytes_out") == 13000000);
	assert_true(fabs(json_text_num(buf, "net.bytes_out_per_s") - 1300000.0) < 1e-6);
	assert_true(json_text_num(buf, "clients.active") == 10);
	assert_true(json_text_num(buf, "clients.out_Bps_max") == 150000.0);
	assert_true(json_text_get(buf, "counters.mode", v, sizeof(v)));
	assert_string_equal(v, "\"rotating\"");
	assert_true(json_text_get(buf, "counters.user_only", v, sizeof(v)));
	assert_string_equal(v, "false");
	assert_true(fabs(json_text_num(buf, "counters.phases.busy.ipc") - 0.416) < 1e-12);
	assert_true(json_text_num(buf, "counters.phases.execute.ipc") == 0.5);
	/* not measured: null, not NaN, not 0 */
	assert_true(json_text_get(buf, "counters.phases.world.ipc", v, sizeof(v)));
	assert_string_equal(v, "null");
	assert_true(json_text_get(buf, "counters.phases.all.page_faults", v, sizeof(v)));
	assert_string_equal(v, "0");
	assert_non_null(strstr(buf, "\"events\":[\"cycles\",\"instructions\","));
}

static void test_json_counters_off_and_empty(void **state)
{
	struct prof_stats st;
	char buf[16384], v[64];
	FILE *f;

	(void)state;
	memset(&st, 0, sizeof(st));
	for (int ph = 0; ph < PROF_PHASES; ph++)
		nan_derived(&st.phase[ph]);
	f = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(f);
	assert_int_equal(prof_write_json(&st, f), 0);
	fclose(f);
	assert_true(json_text_valid(buf));
	assert_true(json_text_get(buf, "counters", v, sizeof(v)));
	assert_string_equal(v, "null");
	/* rates of an empty interval are unknown, not infinite */
	assert_true(json_text_get(buf, "requests_per_s", v, sizeof(v)));
	assert_string_equal(v, "null");
	assert_true(json_text_num(buf, "requests") == 0);
}

static void test_json_write_error(void **state)
{
	struct prof_stats st;
	char tiny[16];
	FILE *f;

	(void)state;
	sample(&st);
	f = fmemopen(tiny, sizeof(tiny), "w");
	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	assert_int_equal(prof_write_json(&st, f), -1);
	fclose(f);
}

static void test_counter_table(void **state)
{
	struct prof_stats st;
	char buf[4096];

	(void)state;
	sample(&st);
	st.events_counted &= ~(1u << PROF_EV_STALLED_BACKEND);
	prof_format_counters(&st, buf, sizeof(buf));
	assert_non_null(strstr(buf, "counters: mode rotating over 10.0 s\n"));
	assert_non_null(strstr(buf, "not counted: stalled-cycles-backend\n"));
	assert_non_null(strstr(buf, "\nexecute     3.0     0.500"));
	assert_non_null(strstr(buf, "\nbusy       11.7     0.416    14.00%"));
	assert_non_null(strstr(buf, "\nall       100.0         -"));
	/* one line per phase plus busy and all, after four header lines */
	{
		int lines = 0;

		for (const char *s = buf; *s; s++)
			lines += *s == '\n';
		assert_int_equal(lines, 4 + PROF_PHASES + 2);
	}
	st.counter_mode = PROF_CTR_OFF;
	prof_format_counters(&st, buf, sizeof(buf));
	assert_string_equal(buf, "counters: mode off over 10.0 s\n");
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(prof_phase_name(PROF_WORLD), "world");
	assert_string_equal(prof_phase_name(PROF_RECEIVE), "receive");
	assert_string_equal(prof_phase_name(PROF_EXECUTE), "execute");
	assert_string_equal(prof_phase_name(PROF_REPLY), "reply");
	assert_string_equal(prof_phase_name(PROF_IDLE), "idle");
	assert_string_equal(prof_phase_name(PROF_PHASES), "?");
	assert_string_equal(prof_event_name(PROF_EV_LLC_MISSES), "LLC-load-misses");
	assert_string_equal(prof_event_name(-1), "?");
	assert_string_equal(prof_counter_mode_name(PROF_CTR_SOFTWARE), "software");
	assert_string_equal(prof_counter_mode_name(99), "?");
}

static void test_event_encodings(void **state)
{
	uint32_t type;
	uint64_t config;

	(void)state;
	prof_event_attr(PROF_EV_INSTRUCTIONS, &type, &config);
	assert_int_equal(type, PERF_TYPE_HARDWARE);
	assert_int_equal(config, PERF_COUNT_HW_INSTRUCTIONS);
	/* HW_CACHE: id | op << 8 | result << 16 (perf_event_open(2)) */
	prof_event_attr(PROF_EV_L1I_MISSES, &type, &config);
	assert_int_equal(type, PERF_TYPE_HW_CACHE);
	assert_int_equal(config, PERF_COUNT_HW_CACHE_L1I | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
					 (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
	prof_event_attr(PROF_EV_LLC_MISSES, &type, &config);
	assert_int_equal(config, 0x10002);
	prof_event_attr(PROF_EV_TASK_CLOCK, &type, &config);
	assert_int_equal(type, PERF_TYPE_SOFTWARE);
	assert_int_equal(config, PERF_COUNT_SW_TASK_CLOCK);
}

static const struct CMUnitTest report_tests[] = {
	cmocka_unit_test(test_line),
	cmocka_unit_test(test_line_degrades),
	cmocka_unit_test(test_json_fields),
	cmocka_unit_test(test_json_counters_off_and_empty),
	cmocka_unit_test(test_json_write_error),
	cmocka_unit_test(test_counter_table),
	cmocka_unit_test(test_names),
	cmocka_unit_test(test_event_encodings),
};

QWD_TEST_GROUP(prof_report, report_tests, NULL, NULL)
