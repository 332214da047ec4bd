/*
 * qwd/world.h -- the world model: BSP maps, hull traces, the areanode tree,
 * visibility, map checksums and the entity lump.
 *
 * Design note
 *   A map is loaded once per level into a struct bsp_map that never changes
 *   afterwards.  The loader (src/world/bsp.c) accepts three on-disk formats
 *   (BSP29; "BSP2"; "2PSB", the older BSP2 variant) and converts them to one
 *   in-memory form with 32-bit indices and float bounds.  Before anything is
 *   used it checks every count, offset and index of every lump and that the
 *   node and clipnode graphs are acyclic and no deeper than BSP_MAX_DEPTH, so
 *   the recursive walkers below can trust the data.  A refused file gives one
 *   message: "<file>: <lump>: <what is wrong>".
 *
 *   Index conventions (the same in all formats after loading):
 *     node child   >= 0: node index;  < 0: leaf index -1 - child
 *     clip child   >= 0: clipnode index; < 0: a CONTENTS_* value
 *     PVS/PHS bit  i  <-> leaf i + 1 (leaf 0 is the shared solid leaf)
 *
 *   Hulls follow QuakeWorld: hull 0 is the render tree seen as clipnodes (for
 *   point-sized traces), hull 1 the player box (-16 -16 -24 .. 16 16 32),
 *   hull 2 the large box (-32 -32 -24 .. 32 32 64).  Brush submodels trace
 *   in their own space; callers offset by the model's origin.
 *
 *   The areanode tree (src/world/area.c) is a fixed binary tree of depth 4
 *   that splits the longer horizontal axis at the middle, as QuakeWorld's
 *   does; each node keeps two lists of linked objects (triggers and
 *   solids), each a chain of 256-byte chunks of compact entries (the box
 *   an object is placed by and its id) taken from a pool the world
 *   allocates once, so a walk reads its candidates from dense memory.  It
 *   does not know what the objects are: the game embeds a struct
 *   world_obj in its entities.
 *
 *   Clients run the same hull traces to predict their own movement, so the
 *   trace code keeps QuakeWorld's semantics to the last epsilon.
 */
#ifndef QWD_WORLD_H
#define QWD_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qwd/common.h"

/* ---- constants -------------------------------------------------------- */

enum bsp_contents {
	CONTENTS_EMPTY = -1,
	CONTENTS_SOLID = -2,
	CONTENTS_WATER = -3,
	CONTENTS_SLIME = -4,
	CONTENTS_LAVA = -5,
	CONTENTS_SKY = -6,
	CONTENTS_ORIGIN = -7,	/* removed by the compiler; never in a valid map */
	CONTENTS_CLIP = -8,	/* likewise */
	CONTENTS_CURRENT_0 = -9,
	CONTENTS_CURRENT_DOWN = -14,
	CONTENTS_MIN = -14	/* lowest value a file may contain */
};

enum bsp_format { BSP_FMT_29, BSP_FMT_BSP2, BSP_FMT_2PSB };

enum {
	BSP_NUM_LUMPS = 15,
	BSP_MAX_HULLS = 4,	/* on disk: headnode[4]; hull 3 is unused */
	BSP_MAX_DEPTH = 1024,	/* deepest node/clipnode chain accepted */
	BSP_MAX_MAP_LEAFS = 1 << 20,
	BSP_MAX_FILE = 256 << 20 /* largest map file accepted, bytes */
};

/* lump numbers, as in the file header */
enum bsp_lump {
	LUMP_ENTITIES, LUMP_PLANES, LUMP_TEXTURES, LUMP_VERTEXES,
	LUMP_VISIBILITY, LUMP_NODES, LUMP_TEXINFO, LUMP_FACES, LUMP_LIGHTING,
	LUMP_CLIPNODES, LUMP_LEAFS, LUMP_MARKSURFACES, LUMP_EDGES,
	LUMP_SURFEDGES, LUMP_MODELS
};

/* name of a lump for messages ("nodes", "clipnodes", ...) */
const char *bsp_lump_name(int lump);

/* ---- the entity lump -------------------------------------------------- */

enum {
	ENT_MAX_KEY = 64,	/* bytes including the terminator */
	ENT_MAX_VALUE = 1024,	/* bytes including the terminator */
	ENT_MAX_PAIRS = 256,	/* key/value pairs in one entity */
	ENT_MAX_ENTITIES = 65536,
	ENT_MAX_TEXT = 16 << 20 /* largest entity lump accepted, bytes */
};

struct ent_pair {
	uint32_t key;	/* offsets into ent_list.pool, NUL-terminated */
	uint32_t value;
};

struct ent_def {
	uint32_t first_pair;
	uint32_t num_pairs;
	uint32_t line;	/* line of the opening brace, for messages */
};

struct ent_list {
	uint32_t num_ents;
	struct ent_def *ents;
	uint32_t num_pairs;
	struct ent_pair *pairs;
	char *pool;
	size_t pool_size;
};

/* Parse len bytes of entity text ("{ "key" "value" ... }" blocks; a NUL
 * ends the text early).  On error returns -1, leaves *out empty and writes
 * "line N: <what>" into err.  Returns 0 on success. */
int ent_parse(const char *text, size_t len, struct ent_list *out,
	      char *err, size_t errlen);
void ent_free(struct ent_list *list);
/* value of key in entity i, or NULL (the first pair wins if repeated) */
const char *ent_value(const struct ent_list *list, uint32_t i, const char *key);
static inline const char *ent_key_at(const struct ent_list *l, uint32_t pair)
{
	return l->pool + l->pairs[pair].key;
}
static inline const char *ent_value_at(const struct ent_list *l, uint32_t pair)
{
	return l->pool + l->pairs[pair].value;
}

/* ---- the loaded map --------------------------------------------------- */

struct bsp_plane {
	vec3_t normal;
	float dist;
	uint8_t type;		/* 0-2 axial x/y/z, 3-5 nearest axis */
	uint8_t signbits;	/* bit i set when normal[i] < 0 */
	uint8_t pad[2];
};

struct bsp_node {
	int32_t planenum;
	int32_t children[2];	/* >= 0 node, < 0 leaf -1 - child */
	vec3_t mins, maxs;
};

struct bsp_clipnode {
	int32_t planenum;
	int32_t children[2];	/* >= 0 clipnode, < 0 CONTENTS_* */
};

struct bsp_leaf {
	int32_t contents;
	int32_t visofs;		/* -1: no vis data for this leaf */
	vec3_t mins, maxs;
};

struct bsp_hull {
	const struct bsp_clipnode *clipnodes;
	const struct bsp_plane *planes;
	int32_t firstclipnode;
	int32_t lastclipnode;
	vec3_t clip_mins;
	vec3_t clip_maxs;
};

struct bsp_model {
	vec3_t mins, maxs, origin;
	int32_t headnode[BSP_MAX_HULLS];
	int32_t visleafs;
	int32_t firstface, numfaces;
	struct bsp_hull hulls[3];	/* 0 point, 1 player, 2 large */
};

struct bsp_map {
	char name[256];		/* as given to the loader */
	enum bsp_format format;
	uint8_t *file;		/* the whole file, kept for downloads */
	size_t file_size;
	uint32_t checksum;	/* all lumps but entities */
	uint32_t checksum2;	/* also without visibility, leafs, nodes */

	struct bsp_plane *planes;
	int32_t num_planes;
	struct bsp_node *nodes;
	int32_t num_nodes;
	struct bsp_leaf *leafs;
	int32_t num_leafs;
	struct bsp_clipnode *clipnodes;
	int32_t num_clipnodes;
	struct bsp_clipnode *hull0;	/* nodes seen as clipnodes */
	uint8_t *hull0_liquid;	/* per hull 0 node: a liquid leaf below
				 * (the loader's; NULL: walk every node) */
	struct bsp_model *models;
	int32_t num_models;

	const uint8_t *visdata;	/* points into file; vis_size bytes */
	int32_t vis_size;
	int32_t num_visleafs;	/* models[0].visleafs: leafs 1..N have PVS */
	int32_t vis_row_bytes;	/* bytes of one PVS/PHS row, multiple of 4 */
	uint8_t *pvs;		/* decompressed PVS, (num_visleafs+1) rows */
	uint8_t *phs;		/* PHS, (num_visleafs+1) rows */

	char *entity_text;	/* NUL-terminated copy of the lump */
	size_t entity_len;
	struct ent_list ents;
};

/* Load and validate a map file.  On failure returns NULL and writes one
 * message naming the file, the lump and the bad value into err. */
struct bsp_map *bsp_load(const char *path, char *err, size_t errlen);
/* The same from memory (the bytes are copied).  name is used in messages. */
struct bsp_map *bsp_load_mem(const char *name, const uint8_t *data,
			     size_t size, char *err, size_t errlen);
void bsp_free(struct bsp_map *map);

/* ---- visibility (src/world/vis.c) ------------------------------------- */

/* Leaf that contains point p (walks the world's node tree). */
int32_t bsp_point_leaf(const struct bsp_map *map, const vec3_t p);

/* Decompressed PVS row of a leaf (vis_row_bytes bytes).  Leaf 0 and maps
 * without vis data see everything. */
const uint8_t *bsp_leaf_pvs(const struct bsp_map *map, int32_t leaf);
/* Potentially hearable set: the union of the PVS of every leaf in the PVS. */
const uint8_t *bsp_leaf_phs(const struct bsp_map *map, int32_t leaf);

/* Union of the PVS of every leaf within 8 units of org, into out
 * (vis_row_bytes bytes), as QuakeWorld's "fat PVS" for a view point. */
void bsp_fat_pvs(const struct bsp_map *map, const vec3_t org, uint8_t *out);

/* Leafs (indices > 0) touched by the box, up to max; returns how many
 * there are in all (may exceed max: the caller sees the overflow). */
int bsp_box_leafs(const struct bsp_map *map, const vec3_t mins,
		  const vec3_t maxs, int32_t *out, int max);

static inline bool bsp_vis_test(const uint8_t *row, int32_t leaf)
{
	int32_t b = leaf - 1;
	return leaf > 0 && (row[b >> 3] & (1u << (b & 7)));
}

/* Build the PVS and PHS tables; called by the loader after validation.
 * Returns 0, or -1 with a message. */
int bsp_vis_build(struct bsp_map *map, char *err, size_t errlen);

/* ---- hull traces (src/world/trace.c) ---------------------------------- */

struct trace {
	bool allsolid;		/* the whole move was in solid */
	bool startsolid;	/* the start point was in solid */
	bool inopen, inwater;	/* the move crossed empty / liquid */
	float fraction;		/* 1.0: the move was not blocked */
	vec3_t endpos;
	struct {
		vec3_t normal;
		float dist;
	} plane;		/* plane of the surface hit */
	int ent;		/* world_obj id hit, -1 for none; 0 world */
};

int bsp_hull_point_contents(const struct bsp_hull *hull, int num,
			    const vec3_t p);
/* contents of the world at p through hull 0 */
int bsp_point_contents(const struct bsp_map *map, const vec3_t p);
/* the same when it is a liquid (or sky: <= CONTENTS_WATER), else
 * CONTENTS_EMPTY (solid too); the walk stops at the first node with no
 * liquid below it (hull0_liquid), at once on a map without any */
int bsp_point_liquid(const struct bsp_map *map, const vec3_t p);

/* Trace a point from start to end through hull (both in hull space).
 * Returns with tr filled as QuakeWorld's recursive hull check does. */
void bsp_trace_hull(const struct bsp_hull *hull, const vec3_t start,
		    const vec3_t end, struct trace *tr);

/* The hull of model that fits a box of this size, and the offset to add
 * to a point to put it into that hull's space (QuakeWorld: size x < 3 ->
 * hull 0, <= 32 -> hull 1, else hull 2). */
const struct bsp_hull *bsp_hull_for_size(const struct bsp_model *model,
					 const vec3_t mins, const vec3_t maxs,
					 vec3_t offset);

/* A box as a hull (QuakeWorld's box hull): six axial planes, each clipnode
 * leading to the next while inside, so only the inside of all six is
 * solid.  Everything but the six distances is the same for every box: a
 * caller tracing many boxes lays it out once (bsp_box_hull_init) and sets
 * the distances per box (bsp_box_hull_set). */
struct bsp_box_hull {
	struct bsp_hull hull;
	struct bsp_plane planes[6];
	struct bsp_clipnode clipnodes[6];
};

void bsp_box_hull_init(struct bsp_box_hull *b);
void bsp_box_hull_set(struct bsp_box_hull *b, const vec3_t mins,
		      const vec3_t maxs);
/* bsp_trace_hull(&b->hull, ...), the same answer bit for bit, with the
 * box's fixed layout written into the walk (a crowd's moves trace boxes
 * most of all) */
void bsp_trace_box_hull(const struct bsp_box_hull *b, const vec3_t start,
			const vec3_t end, struct trace *tr);

/* Is p solid in the box hull of mins..maxs?  The answer of
 * bsp_hull_point_contents on it without the walk: the six planes' own
 * tests (p - max < 0 and not p - min < 0 on every axis), so a point on a
 * face and a NaN come out the same. */
static inline bool bsp_box_point_solid(const vec3_t mins, const vec3_t maxs,
				       const vec3_t p)
{
	for (int k = 0; k < 3; k++)
		if (!(p[k] - maxs[k] < 0) || p[k] - mins[k] < 0)
			return false;
	return true;
}

/* Trace a box (mins/maxs) from start to end against brush model modelnum
 * placed at origin.  Results are in world space. */
void bsp_trace_box(const struct bsp_map *map, int modelnum,
		   const vec3_t origin, const vec3_t mins, const vec3_t maxs,
		   const vec3_t start, const vec3_t end, struct trace *tr);

/* ---- the areanode tree and move traces (src/world/area.c) ------------- */

enum solid_kind {
	SOLID_NOT,		/* not linked for collisions */
	SOLID_TRIGGER,		/* touch on edge, not blocking */
	SOLID_BBOX,		/* touch on side, block on top */
	SOLID_SLIDEBOX,		/* like bbox, but not on ground (players) */
	SOLID_BSP		/* brush model (model field) */
};

enum move_kind { MOVE_NORMAL, MOVE_NOMONSTERS, MOVE_MISSILE };

enum {
	AREA_DEPTH = 4,		/* QuakeWorld's tree: 16 leaves */
	AREA_MAX_DEPTH = 8,	/* for servers of hundreds of players */
	AREA_NODES = (2 << AREA_MAX_DEPTH) - 1,
	/* an object narrower than twice this on x and y is placed by its
	 * centre (area.c, "Loose"): a player's linked box is 34 wide, a
	 * mover's deferred region a little more */
	AREA_LOOSE = 24,
	WORLD_MAX_OBJ_LEAFS = 16,
	WORLD_BSP_OBJS = 64		/* brush objects world.bsp_ids follows */
};

enum area_kind { AREA_SOLID, AREA_TRIGGERS };

/* An object in an areanode list: the box the list was chosen by (the one
 * a walk tests first: absmin/absmax, except for an object placed by
 * world_link_region for a deferred phase, the region it may reach) and
 * its id.  The entry is the placed box's one owner. */
struct area_entry {
	vec3_t lmin, lmax;
	int32_t id;
	int32_t pad_;
};

enum { AREA_CHUNK_ENTRIES = 7 };

/* A run of one list's entries, 256 bytes (64-aligned in the pool): a
 * list is a chain of them, every one but its first (the head) full. */
struct area_chunk {
	int32_t next;	/* the list's next chunk, or -1; in the pool's free
			 * list, the next free one */
	int32_t count;	/* entries in use */
	int32_t list;	/* whose: node * 2 + enum area_kind */
	int32_t pad_[5];
	struct area_entry e[AREA_CHUNK_ENTRIES];
};
_Static_assert(sizeof(struct area_chunk) == 256, "area_chunk: four lines");

/* An object's first 64 bytes hold what a walk reads of an object whose
 * placed box meets its query (its kind, owner, model, live box and
 * origin: the walk itself reads the lists' entries) and what a reply's
 * visibility test reads (leaf1); the object is 256 bytes, so in an array
 * aligned to 64 (the server's) that is one cache line. */
struct world_obj {
	union {
		struct {
			int32_t area_pos;	/* its entry while linked: chunk
						 * * AREA_CHUNK_ENTRIES + slot;
						 * -1 otherwise */
			int id;		/* index in world.objs; 0 is the world */
			int solid;	/* enum solid_kind */
			int32_t leaf1;	/* the only leaf, when it touches one
					 * (most do: a visibility test is one
					 * bit), else -1 */
			bool linked;
			bool monster;	/* MOVE_MISSILE uses enlarged boxes for these */
			bool pending;	/* linked or unlinked in a deferred
					 * phase: world_commit places it */
			bool gone;	/* unlinked (or made SOLID_NOT) in it */
			int owner;	/* id of the owner (traces pass it), or -1 */
			int model;	/* brush submodel for SOLID_BSP, else -1 */
			vec3_t absmin, absmax;	/* world-space box, set by world_link */
			vec3_t origin;
			/* 64 bytes */
			vec3_t mins, maxs;
			int num_leafs;	/* leafs touched, for PVS checks in replies */
			bool leafs_overflow;	/* more than WORLD_MAX_OBJ_LEAFS: always test */
			bool leafs_valid;	/* the leafs are those of absmin..absmax
						 * in this world's map (world_init
						 * clears it) */
			int32_t bsp_pos;	/* its place in world.bsp_ids, or -1 */
			int32_t leafnums[WORLD_MAX_OBJ_LEAFS];
		};
		uint8_t size_[256];
	};
};
_Static_assert(offsetof(struct world_obj, origin) + sizeof(vec3_t) <= 64,
	       "world_obj: the walk's fields fit its first cache line");

struct area_node {
	int axis;		/* -1: leaf of the tree */
	float dist;
	int children[2];
	int32_t lists[2];	/* by enum area_kind: the head chunk, or -1 */
};

struct world {
	const struct bsp_map *map;
	struct area_node nodes[AREA_NODES];
	int num_nodes;
	int depth;		/* of the tree: AREA_DEPTH unless chosen */
	struct world_obj *objs;	/* caller-owned array, objs[i].id == i */
	int max_objs;
	bool deferred;		/* a deferred phase runs (world_defer) */
	struct world_changes *changes;	/* the log links go to, or NULL */
	struct area_chunk *chunks;	/* the lists' pool (world_init's) */
	int num_chunks;
	int32_t free_chunk;	/* the first free chunk, or -1 */
	/* the objects of the solid lists that were brush models (SOLID_BSP)
	 * when listed, the only ones a MOVE_NOMONSTERS move clips: it tests
	 * these instead of walking the tree's lists (a crowd's gibs fly past
	 * hundreds of players and a few doors).  num_bsp -1: once more were
	 * listed than fit, and the tree is walked. */
	int32_t bsp_ids[WORLD_BSP_OBJS];
	int num_bsp;
};

/* Build the areanode tree over map's world model bounds and take the
 * caller's object array (all unlinked; objs[0] stands for the world).
 * The lists' pool is allocated here, once, for max_objs objects: 0, or
 * -1 when it cannot be (the world is then unusable; world_free is still
 * safe).  What w held is not looked at: a world initialised again is
 * world_free'd first. */
int world_init(struct world *w, const struct bsp_map *map,
	       struct world_obj *objs, int max_objs)
	__attribute__((warn_unused_result));
/* The same with a tree of the given depth (clamped to 1..AREA_MAX_DEPTH):
 * deeper, each node's lists hold fewer objects when hundreds are linked;
 * the order in which a move meets objects then differs from QuakeWorld's
 * (which object wins a tie at equal fractions), so servers that play
 * QuakeWorld's game for 32 players keep AREA_DEPTH. */
int world_init_depth(struct world *w, const struct bsp_map *map,
		     struct world_obj *objs, int max_objs, int depth)
	__attribute__((warn_unused_result));
/* Release what world_init allocated; the world holds no lists after it
 * (a second call does nothing). */
void world_free(struct world *w);
/* the depth for a server of max_clients players: AREA_DEPTH up to 32, one
 * level more per doubling past it, at most AREA_MAX_DEPTH */
int world_depth_for(int max_clients);
/* (Re)link obj after its origin/mins/maxs/solid changed: sets absmin/
 * absmax (a 1-unit margin, as QuakeWorld), the touched leafs, and puts it
 * in the areanode list it fits in. */
void world_link(struct world *w, struct world_obj *obj);
void world_unlink(struct world *w, struct world_obj *obj);

/* A deferred phase, for moves run on several threads at once
 * (docs/parallel.md, "EXECUTE on workers"): between world_defer(w, true)
 * and world_defer(w, false) no list of the tree changes.  world_link and
 * world_unlink set the object's box and leafs (or mark it gone) and
 * leave it where it is, pending; queries test the box it was placed by
 * (its list entry's) first and then, for what passes, its live box, skipping
 * what is gone.  So a thread reads the live fields only of objects whose
 * placed box meets its query.  Before the phase the caller places each
 * object that may move by world_link_region (the region it may reach,
 * which must hold its box); after it, world_commit places each object
 * that was placed or is pending, in the order the caller wants the lists
 * to have. */
void world_defer(struct world *w, bool on);
void world_link_region(struct world *w, struct world_obj *obj,
		       const vec3_t mins, const vec3_t maxs);
void world_commit(struct world *w, struct world_obj *obj);

/* The change log of a segment of moves (src/world/changes.c;
 * docs/parallel.md, "Speculative moves"): while one is attached
 * (world_changes_begin .. _end), world_link and world_unlink note the
 * object's placed box before and after.  world_changes_meet: did an
 * object other than skip, changed since the log began, have a placed box
 * meeting [mins, maxs] (and, when test is given, one test says yes of:
 * the caller's finer question, told the object's id and whether it has a
 * brush model)?  Yes also when no log is attached or it
 * filled.
 * Made once (max_entries notes a segment), nothing allocated after. */
struct world_changes;
struct world_changes *world_changes_create(int max_entries);
void world_changes_destroy(struct world_changes *c);
void world_changes_begin(struct world *w, struct world_changes *c);
void world_changes_end(struct world *w);
/* (area.c's: obj's placed box, mins..maxs) */
void world_changes_note(struct world_changes *c, const struct world_obj *obj,
			const vec3_t mins, const vec3_t maxs);
typedef bool (*world_changes_test)(void *ctx, int id, const vec3_t mins,
				   const vec3_t maxs, bool brush);
bool world_changes_meet(const struct world *w, const vec3_t mins,
			const vec3_t maxs, int skip, world_changes_test test,
			void *ctx);
/* Does the segment a..b, grown by r on every side, meet the box? */
bool world_segment_meets(const vec3_t a, const vec3_t b, float r,
			 const vec3_t mins, const vec3_t maxs);
/* notes made, and segments whose log filled, since it was made */
void world_changes_counts(const struct world_changes *c, uint64_t *noted,
			  uint64_t *overflows);

/* A snapshot of the solid lists and their objects (src/world/snapshot.c),
 * read while the source changes: w answers the solid walks and serves
 * the objects' walk fields and boxes as the source did when it was taken
 * (no trigger lists, no leafs; never linked into).  world_snap_init makes
 * its arrays for src's size (0, or -1 when memory is short); fits: src's
 * size still fits and src is not in a deferred phase; take copies part
 * `part` of `parts` (node ranges: the parts write disjoint memory, so
 * workers may take them side by side; the first also sets w's fields). */
struct world_snap {
	struct world w;
	struct world_obj *objs;		/* max_objs, objs[i].id == i */
	struct area_chunk *chunks;	/* max_chunks, the source's indices */
	int max_objs, max_chunks;
};
int world_snap_init(struct world_snap *s, const struct world *src)
	__attribute__((warn_unused_result));
void world_snap_free(struct world_snap *s);
bool world_snap_fits(const struct world_snap *s, const struct world *src);
void world_snap_take(struct world_snap *s, const struct world *src,
		     int part, int parts);

/* Objects of the given list whose boxes touch [mins, maxs], in the order
 * of their ids (whatever the lists' order: a tree whose lists were built
 * in another order gives the same answer); returns how many were found
 * (at most max are stored: the max lowest ids). */
int world_area_objs(const struct world *w, const vec3_t mins,
		    const vec3_t maxs, enum area_kind kind,
		    struct world_obj **out, int max);
/* The same in the lists' order (the first max found), for a caller whose
 * use of the answer does not depend on its order (a schedule's joins, or
 * pmove, which breaks its ties by id and sorts only what it must cut). */
int world_area_any(const struct world *w, const vec3_t mins,
		   const vec3_t maxs, enum area_kind kind,
		   struct world_obj **out, int max);
/* The first object of the given list whose box touches [mins, maxs] and
 * that fn accepts, in the lists' order, or NULL when fn accepts none; the
 * walk stops at the first it accepts.  For a question whose answer does
 * not depend on which object answers it (is any player there?): no cap,
 * no sort. */
typedef bool (*world_area_pred)(void *ctx, const struct world_obj *obj);
const struct world_obj *world_area_find(const struct world *w,
					const vec3_t mins, const vec3_t maxs,
					enum area_kind kind,
					world_area_pred fn, void *ctx);
/* Would a walk of the given list over [mins, maxs] (world_area_find's,
 * world_area_objs') come to obj and ask about it?  Yes when obj is in
 * that list and its entry meets the box (in a deferred phase, as the
 * walk's own test says).  A caller that remembers which object answered
 * a question last time asks that one first: when it still answers, the
 * walk would have found one. */
bool world_area_visits(const struct world *w, const struct world_obj *obj,
		       const vec3_t mins, const vec3_t maxs,
		       enum area_kind kind);
/* objs (of one world's array) in the order of their ids */
void world_objs_sort(struct world_obj **objs, int n);

/* Contents at p: the world's hull 0. */
int world_point_contents(const struct world *w, const vec3_t p);
/* The liquid at p (bsp_point_liquid): contents <= CONTENTS_WATER, or
 * CONTENTS_EMPTY where there is none */
int world_point_liquid(const struct world *w, const vec3_t p);

/* Move a box from start to end, clipping against the world and every
 * linked solid object but passobj, its owner and what passobj owns; the
 * answer does not depend on the lists' order: an all-solid trace first,
 * then the nearest hit, then the lowest id (the world's 0 first). */
void world_move(const struct world *w, const vec3_t start, const vec3_t mins,
		const vec3_t maxs, const vec3_t end, enum move_kind kind,
		const struct world_obj *passobj, struct trace *tr);

/* Objects a move meets at other origins than their own (antilag's
 * rewound players): mark[id] != 0 for each of ids[0..num) (mark has an
 * entry per object), origins[3*i..3*i+2] where ids[i] stands for the
 * move, boxes[6*i..6*i+5] its box there (mins, maxs) as the caller
 * made the set: a quick test that passes over the many far away (it
 * must hold the object's box at the move; the exact test follows with
 * the object's own).  The caller owns the arrays. */
struct world_lag {
	int num;
	const int *ids;
	const float *origins;
	const float *boxes;
	const uint8_t *mark;
};

/* world_move with lag's objects skipped where they are and clipped at
 * their given origins instead (MVDSV's MOVE_LAGGED): the same rules of
 * passing (itself, owner, owned, points), the same nearest-hit rule. */
void world_move_lagged(const struct world *w, const vec3_t start,
		       const vec3_t mins, const vec3_t maxs, const vec3_t end,
		       enum move_kind kind, const struct world_obj *passobj,
		       const struct world_lag *lag, struct trace *tr);

/* Is a box at origin stuck in anything solid? (world_move of length 0) */
bool world_test_box(const struct world *w, const vec3_t origin,
		    const vec3_t mins, const vec3_t maxs,
		    const struct world_obj *passobj);
/* The same against the linked objects alone, for a caller that knows the
 * world model leaves room there (the map's geometry never moves). */
bool world_test_box_objs(const struct world *w, const vec3_t origin,
			 const vec3_t mins, const vec3_t maxs,
			 const struct world_obj *passobj);

#endif
