/*
 * frame.c -- the server's life: start-up, the frame loop, shutdown.
 *
 * Design note
 *   server_frame() is the whole frame, top-down, one call per phase:
 *
 *     wait     select() on the socket, the console and the features'
 *              descriptors -- or, on the io_uring path (uring.c, picked at
 *              start-up by pick_net_path), one io_uring_enter that also
 *              submits the last frame's replies and polls the same
 *              descriptors (their fds hook; io runs them) until a packet
 *              arrives or `wait` runs out; with sys_ticrate > 0 a frame
 *              first sleeps until that long after the previous one, so
 *              that one wakeup serves the requests that came meanwhile
 *              (off by default: as in QuakeWorld, a frame per wakeup).
 *              A server driven in-process (struct server_link: memory
 *              queues for the socket, the driver's clock) skips it.
 *     WORLD    advance game time; game_frame runs thinks, doors, plats,
 *              missiles and the rules, at most once per sv_mintic
 *              (0.013 s, QuakeWorld's rule); a level change the game
 *              asked for (it only notes the name) is loaded right after.
 *              While paused (pause.c) the game's clock stands still
 *              and the world is not run
 *     RECEIVE  drain the socket with recvmmsg, NET_BATCH datagrams a call,
 *              at most RECV_ROUNDS calls a frame so replies are not starved;
 *              the features' packet hook sees each datagram first (a
 *              refused address stops there: bans.c, a hash probe or
 *              two; a master's answer: master.c); each other goes to the
 *              connectionless handler or to its client (found by address
 *              and qport through a hash table, O(1) per packet), through
 *              the netchan, and is parsed
 *     EXECUTE  (inside RECEIVE, per packet, as QuakeWorld does) moves run
 *              through game_client_cmd at once (physics, touches,
 *              weapons), string commands in order
 *     SCHEDULE measured only (server_sched_enable, sched.c): the jobs the
 *              frame's requests make, for a parallel frame's schedule
 *     REPLY    one reply to each client that sent a request, sendmmsg;
 *              then the features' frame hook (the demo's frame, QTV)
 *     upkeep   timeouts and zombies, the pause's release, and the
 *              features' upkeep (ban expiries, rates, heartbeats to the
 *              master servers), a few times a second
 *     end      the features' frame_end (the load meter, overload.c) and,
 *              after the profiler closed the frame, frame_closed (the
 *              predicted pool, autopool.c)
 *
 *   The core's part of start-up and shutdown is here (sv_core_init,
 *   sv_core_stop, sv_core_shutdown); server.c puts the features around
 *   it, and this file reaches them only through the hooks (hooks.h).
 *
 *   Everything the loop uses was allocated by server_init: the receive and
 *   send batches, the clients, the game and its entities, the reply
 *   state ring.
 */
#include "core.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include <bsd/string.h>

enum { RECV_ROUNDS = 16 };

static void log_stderr(void *ctx, int level, const char *line)
{
	(void)ctx;
	qwd_log_stderr_sink(NULL, level, line);
}

/* ---- start-up and shutdown -------------------------------------------- */

/* the flood defences (docs/security.md); every rate of 0 turns its
 * limit off */
static void register_defence_cvars(struct server *sv)
{
	static const struct {
		const char *rate, *rate_value, *rate_help;
		const char *burst, *burst_value, *burst_help;
	} budgets[BUDGET_KINDS] = {
		[BUDGET_CMD] = {
			"sv_cmdrate", "20", "string commands a client may send a "
			"second, sustained; more are ignored (0: no limit, and "
			"nobody dropped)",
			"sv_cmdburst", "150", "string commands a client may send at "
			"once (a signon takes up to about 80)"},
		[BUDGET_SETINFO] = {
			"sv_setinforate", "2", "userinfo changes a client may make a "
			"second, sustained; each goes to every player (0: no limit)",
			"sv_setinfoburst", "20", "userinfo changes a client may make "
			"at once"},
		[BUDGET_KILL] = {
			"sv_killrate", "1", "suicides a player may make a second, "
			"sustained; each is a respawn and an obituary (0: no limit)",
			"sv_killburst", "20", "suicides a player may make at once"},
		[BUDGET_DOWNLOAD] = {
			"sv_dlrate", "5", "downloads a client may start a second, "
			"sustained; each reads a file, and more are refused "
			"(0: no limit)",
			"sv_dlburst", "200", "downloads a client may start at once "
			"(ezQuake with only the free client data asks for 70)"},
	};

	for (int k = 0; k < BUDGET_KINDS; k++) {
		sv->budget_rate[k] = cvar_register(sv, budgets[k].rate,
						   budgets[k].rate_value, 0,
						   budgets[k].rate_help);
		sv->budget_burst[k] = cvar_register(sv, budgets[k].burst,
						    budgets[k].burst_value, 0,
						    budgets[k].burst_help);
	}
	sv->sv_cmdkick = cvar_register(sv, "sv_cmdkick", "150", 0,
				       "commands over budget (net of the refill at "
				       "sv_cmdrate) that drop a client (0: never)");
	sv->fp_messages = cvar_register(sv, "fp_messages", "4", 0,
					"chat flood protection: messages allowed within "
					"fp_persecond seconds (0: off; at most 16)");
	sv->fp_persecond = cvar_register(sv, "fp_persecond", "4", 0,
					 "chat flood protection: the interval, seconds");
	sv->fp_secondsdead = cvar_register(sv, "fp_secondsdead", "10", 0,
					   "chat flood protection: seconds a flooder "
					   "is muted");
	sv->sv_lograte = cvar_register(sv, "sv_lograte", "1", 0,
				       "log lines of one kind (chat, refused connects, "
				       "downloads, rcon...) one address may cause a "
				       "second, sustained; more are counted and "
				       "summarised (0: no limit)");
	sv->sv_logburst = cvar_register(sv, "sv_logburst", "10", 0,
					"log lines of one kind one address may cause "
					"at once");
	sv->sv_logtotal = cvar_register(sv, "sv_logtotal", "50", 0,
					"log lines all addresses together may cause a "
					"second, four seconds' worth at once (0: no limit)");
}

static void register_cvars(struct server *sv)
{
	sv->hostname = cvar_register(sv, "hostname", "qwd", CVAR_SERVERINFO,
				     "name shown in server browsers");
	/* the modes as src/game plays them (items.c's design note) */
	sv->deathmatch = cvar_register(sv, "deathmatch", "1", CVAR_SERVERINFO,
				       "game mode: 1 items come back; 2 weapons stay, "
				       "health, armour and ammo never come back; 3 "
				       "weapons stay, ammo back in 15 s; 4 start with "
				       "every weapon but the grenade launcher, 255 ammo, "
				       "250 health, no weapon or ammo items, the quad is "
				       "the OctaPower; 5 start with every weapon, 200 "
				       "health, no weapon items, ammo back in 15 s (0 or "
				       "less plays 1)");
	sv->fraglimit = cvar_register(sv, "fraglimit", "0", CVAR_SERVERINFO,
				      "frags that end a level (0: none)");
	sv->timelimit = cvar_register(sv, "timelimit", "0", CVAR_SERVERINFO,
				      "minutes a level lasts (0: forever)");
	sv->sv_maxspeed = cvar_register(sv, "maxspeed", "320", CVAR_SERVERINFO,
					"player speed");
	/* ezQuake predicts KTX's jump when this key is missing: say it is off,
	 * as our physics is MVDSV's with every movement extension off */
	cvar_register(sv, "pm_ktjump", "0", CVAR_SERVERINFO | CVAR_ROM,
		      "movement extension (off: stock QuakeWorld jumping)");
	sv->sv_timeout = cvar_register(sv, "timeout", "65", 0,
				       "seconds of silence before a client is dropped");
	sv->sv_zombietime = cvar_register(sv, "zombietime", "2", 0,
					  "seconds a dropped slot stays reserved");
	sv->rcon_password = cvar_register(sv, "rcon_password", "", CVAR_SECRET,
					  "remote console password (empty: rcon off)");
	sv->password = cvar_register(sv, "password", "", CVAR_SECRET,
				     "password to join (empty: open)");
	sv->sv_maxrate = cvar_register(sv, "sv_maxrate", "30000", 0,
				       "highest client rate in bytes/s");
	sv->sv_mapcheck = cvar_register(sv, "sv_mapcheck", "1", 0,
					"drop clients whose map differs (checksum2)");
	sv->allow_download = cvar_register(sv, "allow_download", "1", 0,
					   "let clients download maps, models, "
					   "sounds and skins (0: nothing at all)");
	sv->allow_download_demos = cvar_register(sv, "allow_download_demos", "1", 0,
						 "let clients download demos/NAME "
						 "from the demo folder");
	sv->sv_maxdownloadrate = cvar_register(sv, "sv_maxdownloadrate", "0", 0,
					       "highest download rate in bytes/s "
					       "(a client's drate; 0: sv_maxrate)");
	sv->sv_downloadchunksperframe = cvar_register(sv, "sv_downloadchunksperframe",
						      "8", 0, "chunked downloads: chunks "
						      "sent for each one the download "
						      "rate lets through (MVDSV's "
						      "extra chunks), 1-30");
	sv->sv_maxdownloadtotal = cvar_register(sv, "sv_maxdownloadtotal",
						"1000000", 0, "bytes/s of chunked "
						"downloads to all clients together "
						"(at least 10000)");
	sv->sv_speedcheck = cvar_register(sv, "sv_speedcheck", "500", 0,
					  "ms of game time a client may run ahead (0: off)");
	sv->teamplay = cvar_register(sv, "teamplay", "0", CVAR_SERVERINFO,
		      "0 free for all, 1 no team damage, 3 only self-damage spared");
	cvar_register(sv, "samelevel", "0", CVAR_SERVERINFO,
		      "1: exits restart the same level");
	sv->sv_maxclientsperip = cvar_register(sv, "sv_maxclientsperip", "4", 0,
					       "slots one address may hold "
					       "(0: no limit)");
	sv->sv_signontimeout = cvar_register(sv, "sv_signontimeout", "10", 0,
					     "seconds a client has to enter the "
					     "game after connecting or a map change; "
					     "a download in progress restarts it "
					     "(0: no limit)");
	for (int k = 0; k < OOB_KINDS; k++)
		sv->sv_oob[k] = cvar_register(sv, sv_oob_cvar_name(k),
					      sv_oob_cvar_default(k), 0,
					      sv_oob_cvar_help(k));
	sv->sv_execlimit = cvar_register(sv, "sv_execlimit", "4096", 0,
					 "commands one exec chain (a config and the "
					 "configs it execs) may run in all");
	sv->sv_maxload = cvar_register(sv, "sv_maxload", "0.9", 0,
				       "refuse connects while the server is this "
				       "busy (share of wall time working, 0-1; stock "
				       "clients until halfway to 1; 0: off)");
	sv->sv_overloaddrop = cvar_register(sv, "sv_overloaddrop", "1", 0,
					    "1: when saturated with a backlog for over "
					    "a second, let the newest players go (QWDX "
					    "first) until it keeps up; 0: never");
	sv->sv_mintic = cvar_register(sv, "sv_mintic", "0.013", 0,
				      "shortest seconds between two runs of the "
				      "world's physics (QuakeWorld's and MVDSV's "
				      "rule: players' moves still run per request; "
				      "0: a run every frame)");
	/* MVDSV's: empty (off) by default, in the serverinfo once set, so
	 * clients and browsers see the server's antilag */
	sv->sv_antilag = cvar_register(sv, "sv_antilag", "", CVAR_SERVERINFO,
				       "antilag: 2 rewinds the other players to "
				       "where a shooter saw them for its hitscan "
				       "shots; 1 keeps their positions only; 0 "
				       "off (docs/antilag.md)");
	sv->sv_antilag_projectiles = cvar_register(sv, "sv_antilag_projectiles",
						   "", CVAR_SERVERINFO,
						   "with sv_antilag 2: a player's "
						   "projectiles meet the others "
						   "where it saw them too");
	sv->sv_antilag_no_pred = cvar_register(sv, "sv_antilag_no_pred", "",
					       CVAR_SERVERINFO,
					       "antilag rewinds to the time of the "
					       "reply the shooter last had, without "
					       "the step it predicts beyond it");
	sv->sys_ticrate = cvar_register(sv, "sys_ticrate", "0", 0,
					"shortest seconds between frames: packets "
					"arriving sooner wait, so one wakeup serves "
					"many (0: a frame per wakeup)");
	register_defence_cvars(sv);
	sv_pause_register(sv);
}

/* The socket's path (uring.c's design note): io_uring when asked or, by
 * default, when the kernel grants it; select otherwise, said in one log
 * line with the reason (and in status).  -net uring that the kernel
 * refuses ends the start-up. */
static int pick_net_path(struct server *sv, enum net_path want)
{
	char err[128];

	if (want == NET_PATH_SELECT) {
		snprintf(sv->net_why, sizeof(sv->net_why), "select (-net select)");
	} else {
		sv->uring = net_uring_create(sv->sock, err, sizeof(err));
		if (sv->uring) {
			snprintf(sv->net_why, sizeof(sv->net_why), "io_uring (%s)",
				 want == NET_PATH_URING ? "-net uring" : "the kernel offers it");
		} else if (want == NET_PATH_URING) {
			qwd_logf(&sv->log, QWD_LOG_ERROR, "-net uring: %s", err);
			return -1;
		} else {
			snprintf(sv->net_why, sizeof(sv->net_why),
				 "select (io_uring refused: %s)", err);
		}
	}
	if (sv->uring)
		net_send_init_uring(sv->tx, sv->uring, &sv->net);
	else
		net_send_init(sv->tx, sv->sock, &sv->net);
	qwd_logf(&sv->log, QWD_LOG_INFO, "network path: %s", sv->net_why);
	return 0;
}

int sv_core_init(struct server *sv, const struct server_options *opt)
{
	char err[256];

	memset(sv, 0, sizeof(*sv));
	sv->log.sink = log_stderr;
	sv->log.min_level = opt->quiet ? QWD_LOG_WARN : QWD_LOG_INFO;
	sv->console_fd = -1;
	strlcpy(sv->basedir, opt->basedir ? opt->basedir : ".", sizeof(sv->basedir));
	strlcpy(sv->gamedir, opt->gamedir ? opt->gamedir : "qw", sizeof(sv->gamedir));
	strlcpy(sv->bind_ip, opt->ip ? opt->ip : "", sizeof(sv->bind_ip));
	(void)sv_bundled_map_dir();	/* found now, a constant from here on */
	/* port: < 0 the default, 0 an ephemeral one (tests), else as given */
	sv->port = (uint16_t)(opt->port < 0 ? PORT_SERVER : opt->port);
	sv->max_players = opt->maxclients > 0 ? opt->maxclients : 32;
	if (sv->max_players > SV_MAX_CLIENTS)
		sv->max_players = SV_MAX_CLIENTS;
	/* spectators do not take the players' slots: the slots are both
	 * (spectate.c) */
	sv->maxclients = sv->max_players + SV_SPECTATOR_SLOTS;
	if (sv->maxclients > SV_MAX_CLIENTS)
		sv->maxclients = SV_MAX_CLIENTS;
	/* the world, 32 stock slots, the map's and run-time entities, then
	 * every slot again at the top (the game's layout) */
	sv->max_entities = sv->maxclients + 1 + MAX_CLIENTS + 1024;
	if (sv->max_entities > SV_MAX_ENTITIES + sv->maxclients)
		sv->max_entities = SV_MAX_ENTITIES + sv->maxclients;
	pmove_vars_default(&sv->movevars);

	info_set_star_value_for_key(sv->serverinfo, sizeof(sv->serverinfo),
				    "*version", "qwd 0.1");
	register_cvars(sv);
	sv_console_base_register(sv);
	sv->hooks.serverinfo = sv_serverinfo_changed;
	{
		char mc[16];

		snprintf(mc, sizeof(mc), "%d", sv->max_players);
		cvar_register(sv, "maxclients", mc, CVAR_SERVERINFO | CVAR_ROM,
			      "players at most (set on the command line; "
			      "spectators have maxspectators)");
	}
	sv_spectate_init(sv);

	/* everything the frame loop will ever need, now */
	sv->rx = calloc(1, sizeof(*sv->rx));
	sv->tx = calloc(1, sizeof(*sv->tx));
	/* the tables every frame reads (on huge pages where the kernel gives
	 * them: qwd_table_alloc) */
	sv->clients = qwd_table_alloc((size_t)sv->maxclients * sizeof(*sv->clients));
	sv->baselines = qwd_table_alloc((size_t)sv->max_entities * sizeof(*sv->baselines));
	sv->frame_states = qwd_table_alloc((size_t)sv->max_entities * sizeof(*sv->frame_states));
	sv->frame_stamp = calloc((size_t)sv->max_entities, sizeof(*sv->frame_stamp));
	sv->send_list = calloc((size_t)sv->max_entities, sizeof(*sv->send_list));
	/* aligned: each object's walk fields in one cache line (world.h) */
	sv->objs = qwd_table_alloc((size_t)sv->max_entities * sizeof(*sv->objs));
	sv->reply_due = calloc((size_t)(sv->maxclients + 63) / 64, sizeof(*sv->reply_due));
	sv->entries = qwd_table_alloc((size_t)sv->maxclients * sizeof(*sv->entries));
	sv->seen = calloc((size_t)sv->maxclients, sizeof(*sv->seen));
	sv->entry_epoch = 1;	/* a cell of epoch 0 is one to be made */
	{
		struct game_config gc = {
			.max_entities = sv->max_entities,
			.max_clients = sv->maxclients,
			.seed = opt->seed,
		};

		sv->game = game_create(&gc);
		if (sv->game)
			sv->game->movevars = sv->movevars;
		sv_game_services(sv);
	}
	sv->hash_size = 64;
	while (sv->hash_size < (uint32_t)sv->maxclients * 2)
		sv->hash_size <<= 1;
	sv->hash = calloc(sv->hash_size, sizeof(*sv->hash));
	if (!sv->rx || !sv->tx || !sv->clients || !sv->baselines || !sv->objs ||
	    !sv->reply_due || !sv->entries || !sv->seen ||
	    !sv->frame_states || !sv->frame_stamp || !sv->send_list ||
	    !sv->game || !sv->hash || sv_sched_init(sv) != 0 ||
	    sv_events_init(sv) != 0) {
		qwd_logf(&sv->log, QWD_LOG_ERROR, "out of memory for %d clients", sv->maxclients);
		return -1;
	}
	for (int i = 0; i < sv->maxclients; i++) {
		sv->clients[i].slot = i;
		sv->clients[i].due = sv->reply_due;
	}
	for (uint32_t i = 0; i < sv->hash_size; i++)
		sv->hash[i] = -1;

	/* the first status answer is taken to be a full datagram */
	sv->status_estimate = NET_MAX_DATAGRAM;
	if (!net_secret_init(&sv->secret)) {
		qwd_logf(&sv->log, QWD_LOG_ERROR, "no random bytes for the challenge secret");
		return -1;
	}

	sv->link = opt->link;
	if (sv->link) {
		/* driven in-process: the driver's queues stand for the socket */
		sv->sock = -1;
		net_send_init_mem(sv->tx, sv->link->out, &sv->net);
	} else {
		sv->sock = net_udp_open(sv->bind_ip, sv->port, err, sizeof(err));
		if (sv->sock < 0) {
			qwd_logf(&sv->log, QWD_LOG_ERROR, "%s", err);
			return -1;
		}
		net_udp_set_buffers(sv->sock, 4 << 20);
		if (sv->port == 0) {
			struct net_addr a;

			if (net_udp_local_addr(sv->sock, &a))
				sv->port = ntohs(a.port);
		}
		if (pick_net_path(sv, opt->net) != 0)
			return -1;
	}
	/* the reply workers' send batches go where sv->tx goes */
	if (sv_reply_workers_init(sv, opt->threads_auto ? sv_threads_max(opt->threads_max)
							 : opt->threads,
				  opt->cpus, opt->num_cpus) != 0)
		return -1;
	if (sv_exec_init(sv) != 0)
		return -1;

	struct prof_config pc = {
		.log = &sv->log,
		.max_clients = sv->maxclients,
		.interval_s = opt->stats_interval,
		.report_console = opt->stats_console,
		.counters = opt->counters,
		.counters_merge_rx_exec = true,
		.counter_sample = opt->counter_sample > 0 ? opt->counter_sample
							  : SV_COUNTER_SAMPLE,
	};
	sv->prof = prof_create(&pc);
	if (!sv->prof) {
		qwd_logf(&sv->log, QWD_LOG_ERROR, "out of memory for the profiler");
		return -1;
	}
	if (opt->notimers)
		prof_set_timers(sv->prof, false);	/* from server_begin's reset */
	if (opt->stats_path) {
		sv->stats_file = fopen(opt->stats_path, "w");
		if (!sv->stats_file) {
			qwd_logf(&sv->log, QWD_LOG_ERROR, "-stats %s: %s", opt->stats_path,
				 strerror(errno));
			return -1;
		}
		setvbuf(sv->stats_file, NULL, _IOLBF, 0);
		prof_set_stats_file(sv->prof, sv->stats_file);
	}
	sv->realtime = sv->start_time = sv->time_clock = sv_clock(sv);
	sv_log_limit_init(sv);
	{
		char thp[16];
		size_t big = (size_t)sv->maxclients * sizeof(*sv->clients) +
			     (size_t)sv->workers[0].ring.size * sizeof(*sv->workers[0].ring.states) *
			     (size_t)sv->threads;

		if (QWD_TABLE_HUGE_MIN == SIZE_MAX)
			qwd_logf(&sv->log, QWD_LOG_INFO, "tables: %.1f MB of clients and "
				 "entity states, on the heap (the sanitizer build)",
				 (double)big / (1 << 20));
		else
			qwd_logf(&sv->log, QWD_LOG_INFO, "tables: %.1f MB of clients and "
				 "entity states; those of %zu kB or more advised huge "
				 "pages (the kernel's transparent huge pages: %s)",
				 (double)big / (1 << 20), QWD_TABLE_HUGE_MIN >> 10,
				 qwd_table_thp_mode(thp, sizeof(thp)));
	}
	qwd_logf(&sv->log, QWD_LOG_INFO, "qwd listening on %s:%u, %d slots",
		 sv->bind_ip[0] ? sv->bind_ip : "*", sv->port, sv->maxclients);
	return 0;
}

void sv_core_stop(struct server *sv)
{
	if (sv->clients) {
		char why[64];

		snprintf(why, sizeof(why), "server shut down%s%s%s",
			 sv->quit_reason[0] ? " (" : "", sv->quit_reason,
			 sv->quit_reason[0] ? ")" : "");
		/* the text rides with the svc_disconnect each drop sends */
		sv_broadcast_printf(sv, PRINT_HIGH, "%s\n", why);
		for (int i = 0; i < sv->maxclients; i++)
			if (sv->clients[i].state >= CS_CONNECTED)
				sv_drop_client(sv, &sv->clients[i], why);
	}
}

void sv_core_shutdown(struct server *sv)
{
	capture_close(sv->capture);
	sv->capture = NULL;
	if (sv->prof) {
		prof_interval_close(sv->prof);
		prof_destroy(sv->prof);
		sv->prof = NULL;
	}
	if (sv->stats_file)
		fclose(sv->stats_file);
	sv->stats_file = NULL;
	net_uring_destroy(sv->uring);	/* its queued sends go out first */
	sv->uring = NULL;
	if (sv->sock >= 0)
		net_udp_close(sv->sock);
	sv->sock = -1;
	world_free(&sv->world);
	bsp_free(sv->map);
	sv->map = NULL;
	free(sv->rx);
	free(sv->tx);
	qwd_table_free(sv->clients, (size_t)sv->maxclients * sizeof(*sv->clients));
	free(sv->reply_due);
	qwd_table_free(sv->entries, (size_t)sv->maxclients * sizeof(*sv->entries));
	free(sv->seen);
	qwd_table_free(sv->baselines, (size_t)sv->max_entities * sizeof(*sv->baselines));
	qwd_table_free(sv->frame_states, (size_t)sv->max_entities * sizeof(*sv->frame_states));
	free(sv->frame_stamp);
	free(sv->send_list);
	qwd_table_free(sv->objs, (size_t)sv->max_entities * sizeof(*sv->objs));
	sv_events_free(sv);
	sv_sched_free(sv);
	sv_exec_free(sv);
	game_destroy(sv->game);
	sv->game = NULL;
	free(sv->hash);
	sv_reply_workers_free(sv);
	free(sv->view_pvs);
	sv->clients = NULL;
	qwd_logf(&sv->log, QWD_LOG_INFO, "qwd stopped: %llu frames, %llu requests, "
		 "%llu replies, %llu chokes, %llu entity lists cut",
		 (unsigned long long)sv->stats.frames,
		 (unsigned long long)sv->stats.requests,
		 (unsigned long long)sv->stats.replies,
		 (unsigned long long)sv->stats.chokes,
		 (unsigned long long)sv->stats.entity_cuts);
	{
		char line[768];

		sv_defence_counts(sv, line, sizeof(line));
		qwd_logf(&sv->log, QWD_LOG_INFO, "%s", line);
	}
	sv_log_summaries(sv, true);
	sv_log_bad_counts(sv);
	{
		const struct net_stats *n = &sv->net;
		uint64_t calls = n->wait_calls + n->enter_calls + n->recv_calls +
				 n->send_calls;

		qwd_logf(&sv->log, QWD_LOG_INFO, "network %s: %llu system calls "
			 "(%llu waits, %llu io_uring enters, %llu receive, %llu "
			 "send), %.3f per reply", sv->net_why,
			 (unsigned long long)calls,
			 (unsigned long long)n->wait_calls,
			 (unsigned long long)n->enter_calls,
			 (unsigned long long)n->recv_calls,
			 (unsigned long long)n->send_calls,
			 sv->stats.replies ? (double)calls / (double)sv->stats.replies : 0.0);
	}
}

/* the defences' counters: status's words and the metrics page's label
 * (docs/security.md says what each defence is) */
#define DEFENCE(field, name, text) \
	{name, text, offsetof(struct server_stats, field)}
const struct sv_defence_counter sv_defence_counters[SV_DEFENCE_COUNTERS] = {
	DEFENCE(prints_dropped, "texts_dropped", "texts dropped"),
	DEFENCE(infos_folded, "updates_folded", "updates folded"),
	DEFENCE(cmds_ignored, "commands_ignored", "commands ignored"),
	DEFENCE(says_muted, "chat_muted", "chat muted"),
	DEFENCE(mutes, "clients_muted", "clients muted"),
	DEFENCE(flood_drops, "flood_drops", "flood drops"),
	DEFENCE(log_suppressed, "log_lines_suppressed", "log lines suppressed"),
	DEFENCE(busy_refusals, "connects_refused_load", "connects refused for load"),
	DEFENCE(overload_drops, "overload_drops", "players let go in overload"),
	DEFENCE(tmoves_ignored, "tmoves_ignored", "player tmoves ignored"),
	DEFENCE(uploads_refused, "uploads_refused", "uploads refused"),
	DEFENCE(chunk_budget_waits, "download_budget_waits",
		"download chunks held by the server-wide budget"),
	DEFENCE(chunk_requests_dropped, "chunk_requests_dropped",
		"chunk requests dropped"),
};
#undef DEFENCE

uint64_t sv_defence_count(const struct server *sv, int i)
{
	const char *base = (const char *)&sv->stats;
	uint64_t v;

	memcpy(&v, base + sv_defence_counters[i].offset, sizeof(v));
	return v;
}

void sv_defence_counts(const struct server *sv, char *out, size_t size)
{
	size_t len = 0;

	if (size)
		out[0] = '\0';
	for (int i = 0; i < SV_DEFENCE_COUNTERS && len < size; i++) {
		int n = snprintf(out + len, size - len, "%s%s %llu",
				 i ? ", " : "", sv_defence_counters[i].text,
				 (unsigned long long)sv_defence_count(sv, i));

		if (n < 0)
			break;
		len += (size_t)n;
	}
}

static const char *const bad_names[BAD_KINDS] = {
	"short header", "unknown client", "stale sequence", "bad message byte",
	"truncated message", "bad string", "bad move checksum", "bad connectionless",
	"oversized", "signon out of order"
};

const char *sv_bad_name(int kind)
{
	return kind >= 0 && kind < BAD_KINDS ? bad_names[kind] : "?";
}

void sv_log_bad_counts(struct server *sv)
{
	char line[512];
	size_t len = 0;

	sv->stats.bad[BAD_OVERSIZED] = sv->net.oversized_in;
	for (int k = 0; k < BAD_KINDS; k++)
		if (sv->stats.bad[k] && len < sizeof(line))
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s %llu",
						len ? ", " : "", bad_names[k],
						(unsigned long long)sv->stats.bad[k]);
	if (len)
		qwd_logf(&sv->log, QWD_LOG_INFO, "malformed input dropped: %s", line);
}

/* ---- the frame -------------------------------------------------------- */

static void receive_packet(struct server *sv, struct net_packet *p)
{
	struct msg_buf m;
	struct client *cl;
	uint16_t qport;

	if (sv->capture)
		capture_in(sv->capture, &p->from, p->data, p->len, sv->realtime);

	/* the features' filters: a refused address goes no further,
	 * whatever it sent (bans.c); a master server's answer (master.c) */
	if (sv_hooks_packet(sv, &p->from, p->data, p->len))
		return;
	msg_init_read(&m, p->data, p->len);
	if ((p->len == 1 && p->data[0] == A2A_PING) || oob_is_connectionless(&m)) {
		sv_exec_flush(sv);	/* rcon, status: after the moves before */
		sv_connectionless(sv, &p->from, &m);
		return;
	}
	if (!netchan_peek_qport(&m, &qport)) {
		sv->stats.bad[BAD_SHORT_HEADER]++;
		return;
	}
	cl = sv_find_client(sv, &p->from, qport);
	if (!cl) {
		sv->stats.bad[BAD_UNKNOWN_CLIENT]++;
		return;
	}
	if (!netchan_process(&cl->chan, &m, sv->realtime)) {
		sv->stats.bad[BAD_STALE]++;
		return;
	}
	prof_request(sv->prof, cl->slot, p->len);
	/* a NAT may have moved the client to another port: follow it */
	if (cl->chan.remote.port != p->from.port) {
		char a[NET_ADDR_STRLEN];

		sv_log_from(sv, &p->from, QWD_LOG_INFO, "client %d moved to %s",
			    cl->slot, net_addr_format(&p->from, a));
		cl->chan.remote.port = p->from.port;
	}
	sv_client_packet(sv, cl, &m);
}

static void check_timeouts(struct server *sv)
{
	for (int i = 0; i < sv->maxclients; i++) {
		struct client *cl = &sv->clients[i];

		if (cl->state >= CS_CONNECTED &&
		    sv->realtime - cl->chan.last_received > sv->sv_timeout->value) {
			sv_broadcast_printf(sv, PRINT_HIGH, "%s timed out\n", cl->name);
			sv_drop_client(sv, cl, "timed out");
		}
		/* a slot held in the signon is a slot nobody plays in: one
		 * connect a minute per fake client would keep them all */
		if (cl->state == CS_CONNECTED && sv->sv_signontimeout->value > 0 &&
		    sv->realtime - cl->signon_since > sv->sv_signontimeout->value) {
			char why[80];

			snprintf(why, sizeof(why), "did not enter the game within "
				 "%g s (sv_signontimeout)", sv->sv_signontimeout->value);
			sv_reliable_printf(cl, PRINT_HIGH, "%s\n", why);
			sv_drop_client(sv, cl, why);
		}
		if (cl->state == CS_ZOMBIE && sv->realtime > cl->zombie_until) {
			cl->state = CS_FREE;
			sv_entry_sync(sv, cl);
		}
	}
}

static void read_console(struct server *sv)
{
	ssize_t n = read(sv->console_fd, sv->console_buf + sv->console_len,
			 sizeof(sv->console_buf) - 1 - sv->console_len);
	char *nl;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;		/* a signal came: the loop looks at it first */
	if (n <= 0) {
		sv->console_fd = -1;	/* end of input: no console any more */
		return;
	}
	sv->console_len += (size_t)n;
	sv->console_buf[sv->console_len] = '\0';
	while ((nl = strchr(sv->console_buf, '\n')) != NULL) {
		*nl = '\0';
		server_command(sv, sv->console_buf, stdout);
		fflush(stdout);
		sv->console_len -= (size_t)(nl + 1 - sv->console_buf);
		memmove(sv->console_buf, nl + 1, sv->console_len + 1);
	}
	if (sv->console_len == sizeof(sv->console_buf) - 1)
		sv->console_len = 0;	/* a line longer than the buffer: dropped */
}

/* The wait that opens a frame: the sys_ticrate sleep, then select() on
 * the socket and the console; *fds says which of them is readable. */
static void frame_wait(struct server *sv, double wait, fd_set *fds,
		       fd_set *wfds)
{
	struct timeval tv;
	int maxfd = sv->uring ? -1 : sv->sock;
	double since, hold = 0;

	/* coalesce: a frame that comes sooner than sys_ticrate after the last
	 * one sleeps out the rest first, and the packets that arrive meanwhile
	 * are read in one batch; a wakeup, a select and the send and receive
	 * calls are then shared by many requests instead of paid per request */
	since = server_clock() - sv->realtime;
	if (sv->sys_ticrate->value > 0 && since >= 0 &&
	    since < sv->sys_ticrate->value) {
		double rest = sv->sys_ticrate->value - since;
		struct timespec ts = {
			.tv_sec = (time_t)rest,
			.tv_nsec = (long)((rest - (double)(time_t)rest) * 1e9),
		};

		/* the io_uring path sleeps it out in its own enter */
		if (sv->uring) {
			hold = rest;
		} else {
			sv->net.wait_calls++;
			nanosleep(&ts, NULL);
		}
	}

	if (!sv->uring)
		FD_SET(sv->sock, fds);
	if (sv->console_fd >= 0) {
		FD_SET(sv->console_fd, fds);
		if (sv->console_fd > maxfd)
			maxfd = sv->console_fd;
	}
	/* the features' descriptors (hooks.h: fds, io) */
	sv_hooks_fds(sv, fds, wfds, &maxfd, &wait);
	if (wait < 0)
		wait = 0;
	if (sv->uring) {
		/* the replies, the wait, the receives: one enter (uring.c) */
		net_uring_wait(sv->uring, hold, wait, fds, wfds, maxfd, &sv->net);
		return;
	}
	sv->net.wait_calls++;
	tv.tv_sec = (time_t)wait;
	tv.tv_usec = (suseconds_t)((wait - (double)tv.tv_sec) * 1e6);
	if (select(maxfd + 1, fds, wfds, NULL, &tv) < 0) {
		/* the set is as we filled it, not as select found it: a
		 * console read on it would block (a signal, EINTR) */
		FD_ZERO(fds);
		FD_ZERO(wfds);
		if (errno != EINTR)
			qwd_logf(&sv->log, QWD_LOG_ERROR, "select: %s", strerror(errno));
	}
}

/* A linked server's look at the features' descriptors: select() without
 * a wait, on them alone. */
static void features_poll(struct server *sv, fd_set *fds, fd_set *wfds)
{
	struct timeval tv = {0, 0};
	double wait = 0;
	int maxfd = -1;

	sv_hooks_fds(sv, fds, wfds, &maxfd, &wait);
	if (maxfd >= 0 && select(maxfd + 1, fds, wfds, NULL, &tv) < 0) {
		FD_ZERO(fds);
		FD_ZERO(wfds);
	}
}

void server_frame(struct server *sv, double wait)
{
	fd_set fds, wfds;
	double now;
	bool backlog = false;

	FD_ZERO(&fds);
	FD_ZERO(&wfds);
	/* driven in-process (a link): nothing to wait for, but the
	 * features' descriptors are looked at */
	if (!sv->link)
		frame_wait(sv, wait, &fds, &wfds);
	else
		features_poll(sv, &fds, &wfds);

	/* WORLD */
	prof_switch(sv->prof, PROF_WORLD);
	now = sv_clock(sv);
	/* the game's clock stands still while paused (pause.c) */
	if (!sv->paused)
		sv->time += now - sv->time_clock;
	sv->time_clock = now;
	sv->realtime = now;
	if (sv->map) {
		/* the world's physics at most once per sv_mintic, as in
		 * QuakeWorld: thinks, movers and missiles need no more, and a
		 * busy server's wakeups (one per few requests) do not each
		 * pay for a world frame */
		if (!sv->paused &&
		    sv->time - sv->physics_time >= sv->sv_mintic->value) {
			sv->physics_time = sv->time;
			game_frame(sv->game, sv->time);
		}
		/* a level change fires inside game code (the world's frame or
		 * a player's move the frame before): load it now */
		if (sv->pending_map[0]) {
			char map[sizeof(sv->pending_map)], err[256];

			strlcpy(map, sv->pending_map, sizeof(map));
			sv->pending_map[0] = '\0';
			if (server_map(sv, map, err, sizeof(err)) != 0)
				qwd_logf(&sv->log, QWD_LOG_WARN, "changelevel: %s", err);
		}
	}

	/* RECEIVE + EXECUTE (switched per packet in user.c) */
	prof_switch(sv->prof, PROF_RECEIVE);
	for (int round = 0; round < RECV_ROUNDS; round++) {
		int n = sv->link ? net_mem_recv_batch(sv->link->in, sv->rx, &sv->net)
			: sv->uring ? net_uring_recv_batch(sv->uring, sv->rx, &sv->net)
				    : net_udp_recv_batch(sv->sock, sv->rx, &sv->net);

		if (n <= 0)
			break;
		sv->batch_ns = prof_now(sv->prof);
		for (int i = 0; i < n; i++) {
			if (i + 1 < n)
				sv_client_prefetch(sv, &sv->rx->packets[i + 1]);
			receive_packet(sv, &sv->rx->packets[i]);
		}
		if (n < NET_BATCH)
			break;
		backlog = round == RECV_ROUNDS - 1;
	}
	/* the last segment of queued moves (execute.c) */
	sv_exec_flush(sv);

	/* the jobs a parallel frame would have made of these requests,
	 * when measured (sched.c) */
	sv_sched_frame(sv);

	/* REPLY */
	prof_switch(sv->prof, PROF_REPLY);
	sv_send_replies(sv);
	sv_events_settle(sv);	/* the clients that got no reply */
	sv_hooks_frame(sv);	/* the demo's frame, QTV (demo.c) */
	/* the io_uring path queued them: out now, unless the caller waits
	 * again at once (server_defer_sends) */
	if (!sv->defer_sends)
		net_send_sync(sv->tx);

	/* upkeep counts as world work */
	prof_switch(sv->prof, PROF_WORLD);
	if (sv->console_fd >= 0 && FD_ISSET(sv->console_fd, &fds))
		read_console(sv);
	sv_hooks_io(sv, &fds, &wfds);
	if (now - sv->last_upkeep > 0.1) {
		check_timeouts(sv);
		sv_pause_upkeep(sv);
		sv_hooks_upkeep(sv);	/* bans, rates, heartbeats */
		sv_log_summaries(sv, false);
		sv->last_upkeep = now;
	}
	sv->stats.frames++;
	sv->frame_start = now;
	sv->frame_backlog = backlog;
	sv_hooks_frame_end(sv);	/* the load meter (overload.c) */
	prof_net_totals(sv->prof, sv->net.packets_in, sv->net.bytes_in,
			sv->net.packets_out, sv->net.bytes_out);
	prof_frame_end(sv->prof);
	sv_hooks_frame_closed(sv);	/* the predicted pool (autopool.c) */
	prof_periodic(sv->prof);
}
