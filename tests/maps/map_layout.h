/*
 * tests/maps/map_layout.h -- named test points of maps/small.map and
 * maps/large.map, written by maps/gen/mkmaps.py (do not edit: rerun
 * the generator after changing the maps).
 *
 * Design note: each room has its open box and a probe point in it;
 * pairs of rooms are listed as joined (a corridor, doorway or stairs
 * between them: each sees the other) or hidden (by the layout no
 * straight line joins them); probes are points of known contents.
 * The tests check each claim against the compiled map.
 */
#ifndef QWD_TESTS_MAP_LAYOUT_H
#define QWD_TESTS_MAP_LAYOUT_H

struct map_room {
	const char *name;
	float probe[3];
	float mins[3], maxs[3];	/* the room's open box */
};

struct map_pair {
	const char *a, *b;
};

struct map_probe {
	const char *name;
	float point[3];
	int contents;
};

enum { SMALL_SPAWNS = 72, SMALL_ROOMS = 9 };

static const struct map_room small_rooms[] = {
	{"sw", {-832, -832, 48}, {-1120, -1120, 0}, {-544, -544, 192}},
	{"s", {0, -832, 48}, {-288, -1120, 0}, {288, -544, 160}},
	{"se", {832, -832, 48}, {544, -1120, 0}, {1120, -544, 192}},
	{"w", {-832, 0, 48}, {-1120, -288, 0}, {-544, 288, 224}},
	{"centre", {272, 0, 48}, {-320, -320, 0}, {320, 320, 256}},
	{"e", {832, 0, 48}, {544, -288, 0}, {1120, 288, 224}},
	{"nw", {-832, 832, 48}, {-1120, 544, 0}, {-544, 1120, 192}},
	{"n", {0, 832, 48}, {-288, 544, 0}, {288, 1120, 160}},
	{"ne", {832, 832, 48}, {544, 544, 0}, {1120, 1120, 192}},
};

static const struct map_probe small_probes[] = {
	{"dais", {0, 0, 32}, CONTENTS_SOLID},
	{"dais top", {0, 0, 112}, CONTENTS_EMPTY},
	{"corridor", {-416, 0, 64}, CONTENTS_EMPTY},
	{"wall", {-416, 96, 64}, CONTENTS_SOLID},
};

static const struct map_pair small_seen[] = {
	{"sw", "s"},
	{"sw", "w"},
	{"s", "se"},
	{"s", "centre"},
	{"se", "e"},
	{"w", "centre"},
	{"w", "nw"},
	{"centre", "e"},
	{"centre", "n"},
	{"e", "ne"},
	{"nw", "n"},
	{"n", "ne"},
};

static const struct map_pair small_hidden[] = {
	{"sw", "ne"},
	{"nw", "se"},
	{"sw", "n"},
	{"sw", "e"},
	{"se", "nw"},
	{"ne", "s"},
	{"ne", "w"},
	{"se", "n"},
};

enum { LARGE_SPAWNS = 68, LARGE_ROOMS = 11 };

static const struct map_room large_rooms[] = {
	{"court", {800, 640, 48}, {-1536, -1152, 0}, {1536, 1152, 576}},
	{"west", {-2368, 0, 48}, {-2816, -768, 0}, {-1920, 768, 256}},
	{"east", {2368, 0, 48}, {1920, -768, 0}, {2816, 768, 256}},
	{"north", {0, 1920, 48}, {-512, 1536, 0}, {512, 2304, 224}},
	{"south", {0, -1920, 48}, {-512, -2304, 0}, {512, -1536, 224}},
	{"gallery_w", {-2368, 1728, 304}, {-2816, 1280, 256}, {-1920, 2176, 448}},
	{"gallery_e", {2368, 1728, 304}, {1920, 1280, 256}, {2816, 2176, 448}},
	{"bridge", {0, 1984, 304}, {-1920, 1856, 256}, {1920, 2112, 416}},
	{"lava_vault", {-2368, -1344, -208}, {-2816, -2176, -256}, {-1920, -1152, 64}},
	{"crypt", {2368, -1856, -208}, {1920, -2176, -256}, {2816, -1152, -32}},
	{"tunnel", {-1200, -1920, -208}, {-1920, -1984, -256}, {1920, -1856, -128}},
};

static const struct map_probe large_probes[] = {
	{"pool", {0, 0, -100}, CONTENTS_WATER},
	{"court sky", {0, 800, 584}, CONTENTS_SKY},
	{"court pillar", {1024, 640, 100}, CONTENTS_SOLID},
	{"west door", {-1728, 0, 64}, CONTENTS_EMPTY},
	{"west stairs", {-2368, 1024, 96}, CONTENTS_SOLID},
	{"east lift shaft", {2368, 1216, 128}, CONTENTS_EMPTY},
	{"lava", {-2624, -1664, -336}, CONTENTS_LAVA},
	{"lava bridge", {-2368, -1664, -264}, CONTENTS_SOLID},
};

static const struct map_pair large_seen[] = {
	{"court", "west"},
	{"court", "east"},
	{"court", "north"},
	{"court", "south"},
	{"west", "gallery_w"},
	{"west", "lava_vault"},
	{"gallery_w", "bridge"},
	{"bridge", "gallery_e"},
	{"lava_vault", "tunnel"},
	{"tunnel", "crypt"},
};

static const struct map_pair large_hidden[] = {
	{"gallery_w", "crypt"},
	{"gallery_w", "south"},
	{"lava_vault", "north"},
	{"crypt", "north"},
	{"bridge", "south"},
	{"north", "west"},
	{"north", "east"},
	{"south", "west"},
	{"south", "east"},
	{"lava_vault", "gallery_e"},
	{"crypt", "gallery_e"},
	{"bridge", "court"},
	{"tunnel", "court"},
	{"lava_vault", "court"},
};

#endif
