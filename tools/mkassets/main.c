/*
 * mkassets -- the smallest client data a stock QuakeWorld client (ezQuake)
 * needs to start, connect to qwd and draw a level, made from nothing.
 *
 * Design note
 *   usage: mkassets DIR MAP.bsp... [progs/NAME...]
 *   writes DIR/id1/, a client base directory (a progs/ name given is made
 *   too: another server's mod precaches models ours does not, and
 *   tests/interop/mvd.sh watches MVDSV with KTX):
 *     gfx/palette.lmp    768 bytes, our palette (palette.c); the client
 *                        stops at start without it
 *     gfx/colormap.lmp   the light table made from it, 64 x 256 + 1 bytes;
 *                        also loaded at start
 *     gfx/conback.lmp    the console background, 320x200 (pics.c)
 *     gfx/NAME.lmp       the 30 menu and text box pictures the client
 *                        caches at start (pics.c lists them)
 *     gfx.wad            WAD2: conchars, the console font (font.c), and
 *                        the status bar and screen icons (pics.c)
 *     progs/NAME,        one box model (model.c) for every model the game
 *     maps/b_NAME.bsp    precaches on the given maps (progs/ models and
 *                        sprites, the brush models of the item boxes): the
 *                        client will not enter a level missing one, and
 *                        asks the server for each in turn; and
 *                        progs/bolt2.mdl, which the client loads by itself
 *                        when the first thunderbolt beam (our game's
 *                        TE_LIGHTNING2) arrives, and without which it
 *                        drops the connection there; progs/s_explod.spr,
 *                        which it loads on the first explosion
 *                        (TE_EXPLOSION: a rocket or grenade blast, seen
 *                        in every demo of a fight) and stops without
 *     sound/NAME.wav     a tenth of a second of silence (sound.c) for
 *                        every sound the game precaches on the given maps,
 *                        looped for those it plays as static sounds: a
 *                        client asks the server for every sound it lacks,
 *                        even with -nosound, before the models
 *   With these a first connect asks the server for the level alone (and
 *   a skin, which falls back to the model's own): the particle, crosshair
 *   and font pictures ezQuake looks for are optional.  Left out: the
 *   sounds the client plays by itself (menus, the temporary entities'
 *   ricochets and blasts: it never asks for them), the other beam models
 *   (bolt.mdl, bolt3.mdl: lightning kinds our game never sends).
 *   Which models and sounds: the game itself (libqwd) loads each map as
 *   the server would, once for each deathmatch mode 0..5 since the rules
 *   choose what spawns, and every name it precaches (and which sounds it
 *   makes static) is collected through its services; so the lists have
 *   one owner, src/game, and follow it.
 *   Files: qpic pictures (.lmp files and the wad's 'B' lumps) are int32
 *   width, height, then the pixels; the conchars lump ('D') is 128x128
 *   pixels alone.  WAD2: "WAD2", int32 lump count, int32 directory
 *   offset; the lumps (each at a multiple of 4); the directory, 32 bytes a
 *   lump: int32 position, size on disk, size, type byte, compression 0,
 *   two pad bytes, 16-byte name.  All little-endian, written through
 *   msg_buf (src/common), which owns that encoding.
 *   The output only depends on the maps: the same input makes the same
 *   bytes.
 */
#include "mkassets.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "qwd/game.h"
#include "qwd/world.h"

enum {
	OUT_MAX = 1 << 20,	/* the largest file: gfx.wad, about 100 KiB */
	MAX_PICS = 160,
	MAX_NAMES = 512,
	NAME_LEN = 64,
	LOAD_ENTITIES = 8192,
	LOAD_CLIENTS = 32,
	WAD_QPIC = 'B',
	WAD_RAW = 'D',
	DEATHMATCH_MODES = 6
};

struct names {
	char v[MAX_NAMES][NAME_LEN];
	int n;
	bool dropped;	/* a name that did not fit: the set would lack it */
};

/* what the game precaches, as its services hear it */
struct precaches {
	struct names models, sounds;
	bool looped[MAX_NAMES];	/* sounds[i] is played as a static sound */
	float deathmatch;
};

struct out {
	const char *dir;
	int files;
	long bytes;
};

static uint8_t out_buf[OUT_MAX];
static struct pic pic;

/* ---- files -------------------------------------------------------------- */

static int make_parents(char *path)
{
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST) {
			fprintf(stderr, "mkassets: %s: %s\n", path, strerror(errno));
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return 0;
}

static int write_file(struct out *o, const char *rel, const struct msg_buf *m)
{
	char path[4096];
	FILE *f;

	if (m->overflowed) {
		fprintf(stderr, "mkassets: %s: larger than %d bytes\n", rel, OUT_MAX);
		return -1;
	}
	if (snprintf(path, sizeof(path), "%s/id1/%s", o->dir, rel) >= (int)sizeof(path)) {
		fprintf(stderr, "mkassets: %s: path too long\n", o->dir);
		return -1;
	}
	if (make_parents(path) != 0)
		return -1;
	f = fopen(path, "wb");
	if (!f || fwrite(m->data, 1, m->cursize, f) != m->cursize) {
		fprintf(stderr, "mkassets: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "mkassets: %s: %s\n", path, strerror(errno));
		return -1;
	}
	o->files++;
	o->bytes += (long)m->cursize;
	return 0;
}

static void put_qpic(struct msg_buf *m, const struct pic *p)
{
	msg_write_long(m, p->w);
	msg_write_long(m, p->h);
	msg_write_data(m, p->px, (size_t)p->w * (size_t)p->h);
}

/* ---- the pieces ----------------------------------------------------------- */

static int write_palette(struct out *o)
{
	static uint8_t pal[PAL_BYTES], map[COLORMAP_BYTES];
	struct msg_buf m;

	palette_make(pal);
	colormap_make(pal, map);
	msg_init(&m, out_buf, sizeof(out_buf));
	msg_write_data(&m, pal, sizeof(pal));
	if (write_file(o, "gfx/palette.lmp", &m) != 0)
		return -1;
	msg_init(&m, out_buf, sizeof(out_buf));
	msg_write_data(&m, map, sizeof(map));
	return write_file(o, "gfx/colormap.lmp", &m);
}

static int write_lmps(struct out *o)
{
	static struct pic_spec specs[MAX_PICS];
	size_t n = lmp_pic_specs(specs, MAX_PICS);
	char rel[64];

	if (n == 0) {
		fprintf(stderr, "mkassets: more than %d pictures or a long name\n", MAX_PICS);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct msg_buf m;

		msg_init(&m, out_buf, sizeof(out_buf));
		specs[i].draw(&pic, &specs[i]);
		put_qpic(&m, &pic);
		snprintf(rel, sizeof(rel), "gfx/%.15s.lmp", specs[i].name);
		if (write_file(o, rel, &m) != 0)
			return -1;
	}
	return 0;
}

struct lump {
	char name[16];
	int pos, size, type;
};

static void lump_start(struct msg_buf *m, struct lump *l, const char *name, int type)
{
	while (m->cursize % 4)
		msg_write_byte(m, 0);
	memset(l->name, 0, sizeof(l->name));
	snprintf(l->name, sizeof(l->name), "%.15s", name);
	l->pos = (int)m->cursize;
	l->type = type;
}

static int write_wad(struct out *o)
{
	static struct pic_spec specs[MAX_PICS];
	static struct lump lumps[MAX_PICS + 1];
	static uint8_t conchars[CONCHARS_SIZE * CONCHARS_SIZE];
	size_t n = wad_pic_specs(specs, MAX_PICS);
	int count = 0, dir;
	struct msg_buf m, head;

	if (n == 0) {
		fprintf(stderr, "mkassets: more than %d wad pictures or a long name\n", MAX_PICS);
		return -1;
	}
	msg_init(&m, out_buf, sizeof(out_buf));
	msg_get_space(&m, 12);	/* the header, written last */

	conchars_make(conchars);
	lump_start(&m, &lumps[count], "conchars", WAD_RAW);
	msg_write_data(&m, conchars, sizeof(conchars));
	lumps[count].size = (int)m.cursize - lumps[count].pos;
	count++;
	for (size_t i = 0; i < n; i++, count++) {
		specs[i].draw(&pic, &specs[i]);
		lump_start(&m, &lumps[count], specs[i].name, WAD_QPIC);
		put_qpic(&m, &pic);
		lumps[count].size = (int)m.cursize - lumps[count].pos;
	}

	while (m.cursize % 4)
		msg_write_byte(&m, 0);
	dir = (int)m.cursize;
	for (int i = 0; i < count; i++) {
		msg_write_long(&m, lumps[i].pos);
		msg_write_long(&m, lumps[i].size);
		msg_write_long(&m, lumps[i].size);
		msg_write_byte(&m, lumps[i].type);
		msg_write_byte(&m, 0);	/* not compressed */
		msg_write_short(&m, 0);
		msg_write_data(&m, lumps[i].name, sizeof(lumps[i].name));
	}
	msg_init(&head, out_buf, 12);
	msg_write_data(&head, "WAD2", 4);
	msg_write_long(&head, count);
	msg_write_long(&head, dir);
	return write_file(o, "gfx.wad", &m);
}

/* ---- the models the game precaches ---------------------------------- */

static int add_name(void *ctx, const char *name)
{
	struct names *l = ctx;

	for (int i = 0; i < l->n; i++)
		if (strcmp(l->v[i], name) == 0)
			return i + 1;
	if (l->n >= MAX_NAMES || strlen(name) >= NAME_LEN) {
		l->dropped = true;
		return 0;
	}
	snprintf(l->v[l->n], NAME_LEN, "%s", name);
	return ++l->n;
}

static int add_model(void *ctx, const char *name)
{
	return add_name(&((struct precaches *)ctx)->models, name);
}

static int add_sound(void *ctx, const char *name)
{
	return add_name(&((struct precaches *)ctx)->sounds, name);
}

/* snd is the index add_sound gave */
static void static_sound(void *ctx, const vec3_t origin, int snd, float vol,
			 float attn)
{
	struct precaches *p = ctx;

	(void)origin, (void)vol, (void)attn;
	if (snd >= 1 && snd <= p->sounds.n)
		p->looped[snd - 1] = true;
}

static const float *cvar(void *ctx, const char *name)
{
	const struct precaches *p = ctx;

	return strcmp(name, "deathmatch") == 0 ? &p->deathmatch : NULL;
}

static int collect(const char *path, struct precaches *pre)
{
	char err[256], mapname[64];
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct bsp_map *map = bsp_load(path, err, sizeof(err));
	struct world_obj *objs;
	struct world world;
	struct game *g;
	struct game_services svc;
	int rc = 0;

	if (!map) {
		fprintf(stderr, "mkassets: %s\n", err);
		return -1;
	}
	snprintf(mapname, sizeof(mapname), "%.*s", (int)strcspn(base, "."), base);
	objs = calloc(LOAD_ENTITIES, sizeof(*objs));
	g = game_create(&(struct game_config){LOAD_ENTITIES, LOAD_CLIENTS, 1});
	if (!objs || !g) {
		fprintf(stderr, "mkassets: out of memory\n");
		rc = -1;
	}
	memset(&svc, 0, sizeof(svc));
	svc.ctx = pre;
	svc.precache_model = add_model;
	svc.precache_sound = add_sound;
	svc.static_sound = static_sound;
	svc.cvar = cvar;
	for (int dm = 0; rc == 0 && dm < DEATHMATCH_MODES; dm++) {
		pre->deathmatch = (float)dm;
		if (world_init(&world, map, objs, LOAD_ENTITIES) != 0) {
			fprintf(stderr, "mkassets: %s: out of memory for the "
				"areanode lists\n", path);
			rc = -1;
			break;
		}
		if (game_load_level(g, &world, map, mapname, &svc, 1.0, err,
				    sizeof(err)) != 0) {
			fprintf(stderr, "mkassets: %s: %s\n", path, err);
			rc = -1;
		}
		world_free(&world);
	}
	if (g)
		game_destroy(g);
	free(objs);
	bsp_free(map);
	return rc;
}

/* the models the client loads by itself, on our game's temporary entities:
 * the thunderbolt's beam, and the explosion sprite of every rocket and
 * grenade blast (TE_EXPLOSION; ezQuake stops with an error without it) */
static const char *const client_models[] = {"progs/bolt2.mdl", "progs/s_explod.spr"};

/* a name a client looks for under its base directory: no "*N" (a
 * submodel of the level), nothing above it or absolute */
static bool plain_name(const char *name)
{
	return name[0] && name[0] != '*' && name[0] != '/' && !strstr(name, "..");
}

static int too_many(const struct names *l, const char *what)
{
	if (!l->dropped)
		return 0;
	fprintf(stderr, "mkassets: more than %d %s, or a name of %d characters "
		"or more\n", MAX_NAMES, what, NAME_LEN);
	return -1;
}

static int write_models(struct out *o, struct names *models, int *count)
{
	for (size_t i = 0; i < sizeof(client_models) / sizeof(client_models[0]); i++)
		add_name(models, client_models[i]);
	if (too_many(models, "models") != 0)
		return -1;
	for (int i = 0; i < models->n; i++) {
		struct msg_buf m;

		if (!plain_name(models->v[i]))
			continue;
		msg_init(&m, out_buf, sizeof(out_buf));
		if (!model_make(models->v[i], &m)) {
			fprintf(stderr, "mkassets: %s: no model format of ours "
				"(.mdl, .spr, .bsp)\n", models->v[i]);
			return -1;
		}
		if (write_file(o, models->v[i], &m) != 0)
			return -1;
		(*count)++;
	}
	return 0;
}

static int write_sounds(struct out *o, const struct precaches *pre, int *count)
{
	char rel[NAME_LEN + 8];

	if (too_many(&pre->sounds, "sounds") != 0)
		return -1;
	for (int i = 0; i < pre->sounds.n; i++) {
		struct msg_buf m;

		if (!plain_name(pre->sounds.v[i]))
			continue;
		msg_init(&m, out_buf, sizeof(out_buf));
		sound_make(pre->looped[i], &m);
		snprintf(rel, sizeof(rel), "sound/%s", pre->sounds.v[i]);
		if (write_file(o, rel, &m) != 0)
			return -1;
		(*count)++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct precaches pre;
	struct out o = {NULL, 0, 0};
	int num_models = 0, num_sounds = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: mkassets DIR MAP.bsp... [progs/NAME...]\n"
			"  writes DIR/id1: the client data ezQuake needs to play\n"
			"  on qwd serving those maps (and the models named)\n");
		return 2;
	}
	o.dir = argv[1];
	for (int i = 2; i < argc; i++) {
		if (strncmp(argv[i], "progs/", 6) == 0)
			add_name(&pre.models, argv[i]);
		else if (collect(argv[i], &pre) != 0)
			return 1;
	}
	if (write_palette(&o) != 0 || write_lmps(&o) != 0 || write_wad(&o) != 0 ||
	    write_models(&o, &pre.models, &num_models) != 0 ||
	    write_sounds(&o, &pre, &num_sounds) != 0)
		return 1;
	printf("mkassets: %s/id1: %d files, %ld bytes (%d models, %d sounds)\n",
	       o.dir, o.files, o.bytes, num_models, num_sounds);
	return 0;
}
