/*
 * parse.c -- what qwd reads of the Agones sidecar's JSON answers.
 *
 * Design note
 *   jansson parses; this file only walks the result and copies out the few
 *   fields qwd uses into fixed buffers (struct agones_gs), so nothing the
 *   sidecar sends can outgrow them: a string too long for its field, or a
 *   label past AGONES_KV_MAX, is left out and counted in gs->skipped.  The
 *   field names are sdk.proto's as the sidecar's gateway writes them
 *   (object_meta, creation_timestamp, status.players); an int64 comes as a
 *   string ("10") and is accepted as a bare number too.  A wrong type
 *   where a field is required is an error naming the field.
 *   Fuzzed by tests/fuzz/fuzz_agones.c.
 */
#include "qwd/agones.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>
#include <jansson.h>

static const char *const call_names[AGONES_CALLS] = {
	[AGONES_READY] = "ready",
	[AGONES_ALLOCATE] = "allocate",
	[AGONES_SHUTDOWN] = "shutdown",
	[AGONES_HEALTH] = "health",
	[AGONES_RESERVE] = "reserve",
	[AGONES_SET_LABEL] = "setlabel",
	[AGONES_SET_ANNOTATION] = "setannotation",
	[AGONES_GAMESERVER] = "gameserver",
	[AGONES_WATCH] = "watch",
	[AGONES_PLAYER_CONNECT] = "playerconnect",
	[AGONES_PLAYER_DISCONNECT] = "playerdisconnect",
	[AGONES_SET_CAPACITY] = "setplayercapacity",
	[AGONES_GET_CAPACITY] = "getplayercapacity",
	[AGONES_PLAYER_COUNT] = "getplayercount",
	[AGONES_PLAYER_CONNECTED] = "isplayerconnected",
	[AGONES_PLAYERS] = "getconnectedplayers",
};

const char *agones_call_name(enum agones_call call)
{
	if ((int)call < 0 || call >= AGONES_CALLS)
		return "?";
	return call_names[call];
}

static const char *kv_find(const struct agones_kv *kv, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (strcmp(kv[i].key, key) == 0)
			return kv[i].value;
	return NULL;
}

const char *agones_gs_label(const struct agones_gs *gs, const char *key)
{
	return kv_find(gs->labels, gs->num_labels, key);
}

const char *agones_gs_annotation(const struct agones_gs *gs, const char *key)
{
	return kv_find(gs->annotations, gs->num_annotations, key);
}

/* a string member into dst; absent: "" and 0; too long or not a string:
 * -1 */
static int copy_str(const json_t *obj, const char *name, char *dst,
		    size_t size)
{
	dst[0] = '\0';
	const json_t *v = json_object_get(obj, name);
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v) || json_string_length(v) >= size)
		return -1;
	memcpy(dst, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

/* an int64 member: "N" (the proto's JSON form) or N; absent: 0 */
static int get_int64(const json_t *obj, const char *name, int64_t *out)
{
	*out = 0;
	const json_t *v = json_object_get(obj, name);
	if (!v || json_is_null(v))
		return 0;
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 0;
	}
	if (!json_is_string(v))
		return -1;
	const char *s = json_string_value(v);
	char *end;
	errno = 0;
	long long n = strtoll(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0)
		return -1;
	*out = n;
	return 0;
}

static void copy_map(const json_t *obj, struct agones_kv *kv, int *n,
		     int *skipped)
{
	const char *key;
	json_t *v;
	*n = 0;
	if (!json_is_object(obj))
		return;
	json_object_foreach((json_t *)obj, key, v) {
		if (*n >= AGONES_KV_MAX || !json_is_string(v) ||
		    strlen(key) >= AGONES_KEY_MAX ||
		    json_string_length(v) >= AGONES_VALUE_MAX ||
		    strlen(json_string_value(v)) != json_string_length(v)) {
			(*skipped)++;
			continue;
		}
		strlcpy(kv[*n].key, key, sizeof(kv[*n].key));
		strlcpy(kv[*n].value, json_string_value(v),
			sizeof(kv[*n].value));
		(*n)++;
	}
}

static int fail(char *err, size_t size, const char *what)
{
	if (err && size)
		strlcpy(err, what, size);
	return -1;
}

static int walk_gs(const json_t *root, struct agones_gs *gs, char *err,
		   size_t errsize)
{
	memset(gs, 0, sizeof(*gs));
	if (!json_is_object(root))
		return fail(err, errsize, "GameServer is not an object");
	const json_t *res = json_object_get(root, "result");
	if (res) {		/* a watch line */
		if (!json_is_object(res))
			return fail(err, errsize, "result is not an object");
		root = res;
	}
	const json_t *meta = json_object_get(root, "object_meta");
	const json_t *status = json_object_get(root, "status");
	if (meta && !json_is_object(meta))
		return fail(err, errsize, "object_meta is not an object");
	if (status && !json_is_object(status))
		return fail(err, errsize, "status is not an object");
	if (!meta && !status)
		return fail(err, errsize,
			    "GameServer has neither object_meta nor status");
	if (meta) {
		int64_t ts;
		if (copy_str(meta, "name", gs->name, sizeof(gs->name)) < 0)
			return fail(err, errsize, "object_meta.name");
		if (copy_str(meta, "uid", gs->uid, sizeof(gs->uid)) < 0)
			return fail(err, errsize, "object_meta.uid");
		if (get_int64(meta, "creation_timestamp", &ts) < 0)
			return fail(err, errsize,
				    "object_meta.creation_timestamp");
		snprintf(gs->creation_timestamp,
			 sizeof(gs->creation_timestamp), "%lld",
			 (long long)ts);
		copy_map(json_object_get(meta, "labels"), gs->labels,
			 &gs->num_labels, &gs->skipped);
		copy_map(json_object_get(meta, "annotations"),
			 gs->annotations, &gs->num_annotations, &gs->skipped);
	}
	if (status) {
		if (copy_str(status, "state", gs->state, sizeof(gs->state)) < 0)
			return fail(err, errsize, "status.state");
		const json_t *pl = json_object_get(status, "players");
		if (pl && json_is_object(pl) &&
		    (get_int64(pl, "count", &gs->players_count) < 0 ||
		     get_int64(pl, "capacity", &gs->players_capacity) < 0))
			return fail(err, errsize, "status.players");
	}
	return 0;
}

static json_t *load(const char *text, size_t len, char *err, size_t errsize)
{
	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root && err && errsize)
		snprintf(err, errsize, "not JSON: %s (byte %d)", je.text,
			 je.position);
	return root;
}

int agones_parse_gameserver(const char *text, size_t len,
			    struct agones_gs *gs, char *err, size_t errsize)
{
	json_t *root = load(text, len, err, errsize);
	if (!root) {
		memset(gs, 0, sizeof(*gs));
		return -1;
	}
	int rc = walk_gs(root, gs, err, errsize);
	json_decref(root);
	return rc;
}

int agones_parse_answer(enum agones_call call, const char *text, size_t len,
			struct agones_answer *a, struct agones_gs *gs,
			char *err, size_t errsize)
{
	a->flag = false;
	a->count = 0;
	a->num_ids = 0;
	a->gs = NULL;
	json_t *root = load(text, len, err, errsize);
	if (!root)
		return -1;
	int rc = 0;
	if (!json_is_object(root)) {
		rc = fail(err, errsize, "answer is not an object");
		goto out;
	}
	switch (call) {
	case AGONES_GAMESERVER:
		rc = walk_gs(root, gs, err, errsize);
		if (rc == 0)
			a->gs = gs;
		break;
	case AGONES_PLAYER_CONNECT:
	case AGONES_PLAYER_DISCONNECT:
	case AGONES_PLAYER_CONNECTED: {
		/* proto3's JSON leaves a false bool out */
		const json_t *b = json_object_get(root, "bool");
		if (b && !json_is_boolean(b))
			rc = fail(err, errsize, "bool is not a boolean");
		else
			a->flag = b && json_is_true(b);
		break;
	}
	case AGONES_GET_CAPACITY:
	case AGONES_PLAYER_COUNT:
		if (get_int64(root, "count", &a->count) < 0)
			rc = fail(err, errsize, "count is not an int64");
		break;
	case AGONES_PLAYERS: {
		const json_t *l = json_object_get(root, "list");
		if (l && !json_is_array(l))
			rc = fail(err, errsize, "list is not an array");
		else
			a->num_ids = l ? (int)json_array_size(l) : 0;
		break;
	}
	default:		/* {} */
		break;
	}
out:
	json_decref(root);
	return rc;
}
