#!/usr/bin/env python3
"""mkmaps.py -- generate maps/small.map, maps/large.map and maps/arena.map,
and the table of named test points the map tests use
(tests/maps/map_layout.h: small and large).

Design note
  The build never runs this: the generated files are committed, and
  `make` compiles the .map files with tools/qwmap.  The generator is the
  documentation of how the maps are made, and the way to change them:

      python3 maps/gen/mkmaps.py        (from the repository root)

  Output is deterministic (no randomness, fixed iteration order), so a
  rerun without changes rewrites the same bytes.

  A map is described as a list of open boxes ("air": rooms, corridors,
  stairwells, lift shafts, pits) plus what stands inside them (steps,
  pillars, liquids, brush entities, point entities).  The walls are made
  here, not drawn: every air box gets a shell of six solid slabs around
  it, and every slab has all air boxes cut out of it (box minus box is at
  most six boxes).  That keeps the map sealed by construction -- any point
  just outside the union of the air boxes lies in the shell of the box it
  borders and in no air box, so it is solid -- and an opening between two
  spaces is simply two air boxes that touch or overlap.  qwmap accepts box
  brushes only (docs/qwmap.md), which is all this produces.

  Sizes follow the player: the box is 32x32x56 (origin 24 above the
  feet), so spawn points stand at floor + 24; doors and corridors are at
  least 128 wide and 128 high (bots need 96, doors 64x96); steps are 16
  high and 24 to 32 deep.  Rooms are big enough for qwd's spawn rings
  (src/server/level.c choose_spawn: rings of 40 units around each spot,
  reached in a straight line) to place 1024 players without overlap.
"""

import os
import sys

T = 16  # wall, floor and ceiling thickness

# ---- boxes ----------------------------------------------------------------


def overlaps(a, b):
    """True when boxes a and b share volume (touching faces do not count)."""
    return all(a[i] < b[i + 3] and b[i] < a[i + 3] for i in range(3))


def subtract(a, b):
    """a minus b as a list of boxes (a unchanged when they do not overlap)."""
    if not overlaps(a, b):
        return [a]
    out = []
    lo = list(a[:3])
    hi = list(a[3:])
    for ax in range(3):
        if lo[ax] < b[ax]:
            piece_hi = list(hi)
            piece_hi[ax] = b[ax]
            out.append(tuple(lo) + tuple(piece_hi))
            lo[ax] = b[ax]
        if hi[ax] > b[ax + 3]:
            piece_lo = list(lo)
            piece_lo[ax] = b[ax + 3]
            out.append(tuple(piece_lo) + tuple(hi))
            hi[ax] = b[ax + 3]
    return out


def brush_text(box, tex):
    """One box brush in the standard format: six axial planes, three points
    each, clockwise seen from outside (qwmap's and id's convention)."""
    x0, y0, z0, x1, y1, z1 = (int(v) for v in box)
    planes = [
        ((x0, y1, z0), (x0, y0, z1), (x0, y0, z0)),  # -x
        ((x1, y0, z0), (x1, y0, z1), (x1, y1, z0)),  # +x
        ((x0, y0, z1), (x1, y0, z0), (x0, y0, z0)),  # -y
        ((x0, y1, z0), (x1, y1, z0), (x0, y1, z1)),  # +y
        ((x1, y0, z0), (x0, y1, z0), (x0, y0, z0)),  # -z
        ((x0, y0, z1), (x0, y1, z1), (x1, y0, z1)),  # +z
    ]
    lines = ["{"]
    for p in planes:
        pts = " ".join("( %d %d %d )" % q for q in p)
        lines.append("%s %s 0 0 0 1 1" % (pts, tex))
    lines.append("}")
    return "\n".join(lines)


# ---- a map -------------------------------------------------------------------


class Map:
    def __init__(self, name, message):
        self.name = name
        self.message = message
        self.airs = []      # (box, floor_tex, wall_tex, ceil_tex)
        self.solids = []    # (box, tex): steps, pillars, ledges
        self.liquids = []   # (box, tex)
        self.points = []    # (classname, origin, dict of keys)
        self.bents = []     # (classname, [boxes], tex, dict of keys)
        self.rooms = []     # (name, probe point): named rooms for the tests
        self.pairs_hidden = []
        self.pairs_seen = []
        self.probes = []    # (name, point, CONTENTS_ name): point checks
        self.spawns = 0

    # spaces
    def air(self, box, floor="floor", wall="wall", ceil="ceiling"):
        assert box[0] < box[3] and box[1] < box[4] and box[2] < box[5], box
        for v in box:
            assert -4000 <= v <= 4000, box
        self.airs.append((tuple(box), floor, wall, ceil))
        return box

    def room(self, name, box, floor, wall, ceil="ceiling", probe=None):
        """A named room: an air box plus a test point (the centre at eye
        height unless given)."""
        self.air(box, floor, wall, ceil)
        if probe is None:
            probe = ((box[0] + box[3]) / 2, (box[1] + box[4]) / 2, box[2] + 48)
        self.rooms.append((name, probe, tuple(box)))
        return box

    def probe(self, name, point, contents):
        self.probes.append((name, tuple(point), contents))

    def solid(self, box, tex):
        self.solids.append((tuple(box), tex))

    def liquid(self, box, tex):
        self.liquids.append((tuple(box), tex))

    def point(self, cls, origin, **keys):
        self.points.append((cls, tuple(origin), keys))

    def spawn(self, x, y, floor_z, angle):
        """A deathmatch spawn point: origin 24 above the floor."""
        self.point("info_player_deathmatch", (x, y, floor_z + 24), angle=angle)
        self.spawns += 1

    def item(self, cls, x, y, floor_z, **keys):
        """Items rest 16 above the floor; QuakeC drops them to it."""
        self.point(cls, (x, y, floor_z + 16), **keys)

    def brush_entity(self, cls, boxes, tex, **keys):
        self.bents.append((cls, [tuple(b) for b in boxes], tex, keys))

    # stairs: n steps of `rise` up from z0, climbing along axis in direction
    def stairs(self, x0, y0, x1, y1, z0, steps, rise, axis, direction, tex):
        """Steps inside the rectangle x0..x1, y0..y1: the first step at the
        low end of the run (by `direction`, +1 or -1 along `axis` 0=x,
        1=y), each `rise` higher and (run / steps) deep."""
        lo, hi = (x0, x1) if axis == 0 else (y0, y1)
        depth = (hi - lo) // steps
        assert depth * steps == hi - lo, (lo, hi, steps)
        for k in range(steps):
            if direction > 0:
                a, b = lo + k * depth, lo + (k + 1) * depth
            else:
                a, b = hi - (k + 1) * depth, hi - k * depth
            top = z0 + rise * (k + 1)
            if axis == 0:
                self.solid((a, y0, z0 - T, b, y1, top), tex)
            else:
                self.solid((x0, a, z0 - T, x1, b, top), tex)

    # ---- output
    def shells(self):
        """The walls: each air box's six slabs minus every air box."""
        out = []
        air_boxes = [a[0] for a in self.airs]
        for box, ftex, wtex, ctex in self.airs:
            x0, y0, z0, x1, y1, z1 = box
            slabs = [
                ((x0 - T, y0 - T, z0 - T, x1 + T, y1 + T, z0), ftex),
                ((x0 - T, y0 - T, z1, x1 + T, y1 + T, z1 + T), ctex),
                ((x0 - T, y0 - T, z0, x0, y1 + T, z1), wtex),
                ((x1, y0 - T, z0, x1 + T, y1 + T, z1), wtex),
                ((x0, y0 - T, z0, x1, y0, z1), wtex),
                ((x0, y1, z0, x1, y1 + T, z1), wtex),
            ]
            for slab, tex in slabs:
                pieces = [slab]
                for a in air_boxes:
                    nxt = []
                    for p in pieces:
                        nxt.extend(subtract(p, a))
                    pieces = nxt
                out.extend((p, tex) for p in pieces)
        return out

    def text(self):
        parts = ["// Game: Quake", "// Format: Standard",
                 "// Generated by maps/gen/mkmaps.py -- edit the generator, "
                 "not this file.",
                 "// %s: %d rooms, %d spawn points" %
                 (self.name, len(self.rooms), self.spawns)]
        parts.append("{")
        parts.append('"classname" "worldspawn"')
        parts.append('"message" "%s"' % self.message)
        parts.append('"wad" "gfx.wad"')
        n = 0
        for box, tex in self.shells() + self.solids + self.liquids:
            parts.append("// brush %d" % n)
            parts.append(brush_text(box, tex))
            n += 1
        parts.append("}")
        for cls, boxes, tex, keys in self.bents:
            parts.append("{")
            parts.append('"classname" "%s"' % cls)
            for k in sorted(keys):
                parts.append('"%s" "%s"' % (k, keys[k]))
            for b in boxes:
                parts.append(brush_text(b, tex))
            parts.append("}")
        for cls, org, keys in self.points:
            parts.append("{")
            parts.append('"classname" "%s"' % cls)
            parts.append('"origin" "%d %d %d"' % tuple(int(v) for v in org))
            for k in sorted(keys):
                parts.append('"%s" "%s"' % (k, keys[k]))
            parts.append("}")
        return "\n".join(parts) + "\n"


# ---- the small map -----------------------------------------------------------

SMALL_SPACING = 832       # room centre to room centre
SMALL_HALF = 288          # rooms are 576 x 576 inside
SMALL_CENTRE_HALF = 320   # the centre room is 640 x 640
SMALL_SPAWN_D = 128       # spawn points stand on a square this far out
SMALL_SPAWN_SET = ((-1, -1, 45), (1, -1, 135), (1, 1, 225), (-1, 1, 315),
                   (0, -1, 90), (1, 0, 180), (0, 1, 270), (-1, 0, 0))


def small_map():
    m = Map("small", "qwd small: nine rooms")
    names = {(0, 0): "sw", (1, 0): "s", (2, 0): "se",
             (0, 1): "w", (1, 1): "centre", (2, 1): "e",
             (0, 2): "nw", (1, 2): "n", (2, 2): "ne"}
    heights = {(0, 0): 192, (1, 0): 160, (2, 0): 192,
               (0, 1): 224, (1, 1): 256, (2, 1): 224,
               (0, 2): 192, (1, 2): 160, (2, 2): 192}
    centres = {}
    rooms = {}
    for j in range(3):
        for i in range(3):
            cx, cy = (i - 1) * SMALL_SPACING, (j - 1) * SMALL_SPACING
            h = SMALL_CENTRE_HALF if (i, j) == (1, 1) else SMALL_HALF
            nm = names[(i, j)]
            box = (cx - h, cy - h, 0, cx + h, cy + h, heights[(i, j)])
            probe = (cx + 272, cy, 48) if (i, j) == (1, 1) else None
            m.room(nm, box, "fl_" + nm, "wa_" + nm, "ce_" + nm, probe)
            centres[(i, j)] = (cx, cy)
            rooms[(i, j)] = box

    # corridors between grid neighbours: 128 wide, 128 high; some with
    # a door half way (func_door, sliding up, touch to open)
    doors = {((0, 0), (1, 0)), ((1, 1), (1, 2)), ((2, 1), (2, 2)),
             ((0, 1), (0, 2))}
    links = []
    for j in range(3):
        for i in range(3):
            if i < 2:
                links.append(((i, j), (i + 1, j)))
            if j < 2:
                links.append(((i, j), (i, j + 1)))
    for a, b in links:
        ra, rb = rooms[a], rooms[b]
        if a[1] == b[1]:   # along x
            cy = centres[a][1]
            box = (ra[3], cy - 64, 0, rb[0], cy + 64, 128)
            mid = (box[0] + box[3]) // 2
            door = (mid - 8, cy - 64, 0, mid + 8, cy + 64, 128)
        else:              # along y
            cx = centres[a][0]
            box = (cx - 64, ra[4], 0, cx + 64, rb[1], 128)
            mid = (box[1] + box[4]) // 2
            door = (cx - 64, mid - 8, 0, cx + 64, mid + 8, 128)
        m.air(box, "fl_corr", "wa_corr", "ce_corr")
        if (a, b) in doors:
            m.brush_entity("func_door", [door], "door1", angle=-1,
                           speed=200, wait=3, lip=8)
        m.pairs_seen.append((names[a], names[b]))

    # the centre room: a dais 64 high with steps on all four sides
    for k, half in enumerate((224, 192, 160, 128)):
        m.solid((-half, -half, -T, half, half, 16 * (k + 1)), "dais")

    m.probe("dais", (0, 0, 32), "CONTENTS_SOLID")
    m.probe("dais top", (0, 0, 112), "CONTENTS_EMPTY")
    m.probe("corridor", (-SMALL_SPACING / 2, 0, 64), "CONTENTS_EMPTY")
    m.probe("wall", (-SMALL_SPACING / 2, 96, 64), "CONTENTS_SOLID")

    # rooms that no straight line joins: a corridor 128 wide and 224 to
    # 256 long passes only lines within 30 degrees of its axis, so a room
    # reached by turning a corner (two grid steps apart, not in a row)
    # stays out of sight
    m.pairs_hidden = [("sw", "ne"), ("nw", "se"), ("sw", "n"), ("sw", "e"),
                      ("se", "nw"), ("ne", "s"), ("ne", "w"), ("se", "n")]

    # spawn points: eight per room, on the corners and edges of a 256
    # square (544 in the centre room, around the dais), facing the centre:
    # 72 spots, so that the spawn rings place 1024 players (four per room
    # place only about 950)
    for (i, j), (cx, cy) in sorted(centres.items()):
        d = 272 if (i, j) == (1, 1) else SMALL_SPAWN_D
        for sx, sy, ang in SMALL_SPAWN_SET:
            m.spawn(cx + sx * d, cy + sy * d, 0, ang)
    m.point("info_player_start", (-SMALL_SPACING - 128, -SMALL_SPACING - 128, 24),
            angle=45)
    m.point("info_intermission", (0, 0, 200), mangle="30 45 0")

    # items: one weapon per room, health and armour around
    weapons = {(0, 0): "weapon_supershotgun", (1, 0): "weapon_nailgun",
               (2, 0): "weapon_grenadelauncher", (0, 1): "weapon_supernailgun",
               (2, 1): "weapon_lightning", (0, 2): "weapon_supershotgun",
               (1, 2): "weapon_nailgun", (2, 2): "weapon_grenadelauncher"}
    ammo = {(0, 0): "item_shells", (1, 0): "item_spikes",
            (2, 0): "item_rockets", (0, 1): "item_spikes",
            (2, 1): "item_cells", (0, 2): "item_shells",
            (1, 2): "item_spikes", (2, 2): "item_rockets"}
    for (i, j), (cx, cy) in sorted(centres.items()):
        if (i, j) in weapons:
            m.item(weapons[(i, j)], cx, cy, 0)
            m.item(ammo[(i, j)], cx + 192, cy, 0)
            m.item("item_health", cx - 192, cy, 0)
    m.item("weapon_rocketlauncher", 0, 0, 64)
    m.item("item_armor1", -256, 0, 0)
    m.item("item_armor1", 256, 0, 0)
    m.item("item_armor2", 0, 256, 0)
    m.item("item_health", 0, -256, 0, spawnflags=2)
    return m


# ---- the large map -----------------------------------------------------------


def alcove_teleporter(m, box, dest_name):
    """A teleporter pad: an alcove (air) with a trigger_teleport inside,
    48 units in from the alcove's sides, 96 high."""
    m.air(box, "telepad", "wa_tele", "ce_tele")
    x0, y0, z0, x1, y1, z1 = box
    trig = (x0 + 16, y0 + 16, z0, x1 - 16, y1 - 16, z0 + 96)
    m.brush_entity("trigger_teleport", [trig], "trigger", target=dest_name)


# the large map's plan: the courtyard is 2 CX by 2 CY; the halls east and
# west of it run from HX0 to HX1 (centre HC); the galleries and the
# basement rooms stand north and south of the halls
CX, CY = 1536, 1152
HX0 = CX + 384
HX1 = HX0 + 896
HC = (HX0 + HX1) // 2


def large_map():
    m = Map("large", "qwd large: courtyard, halls, galleries, lava vault")
    G, UP, DOWN = 0, 256, -256       # floor heights of the three levels

    # -- ground level: the open courtyard (sky) and four rooms around it
    m.room("court", (-CX, -CY, G, CX, CY, 576), "fl_court", "wa_court", "sky1",
           probe=(800, 640, 48))
    # the pool: a pit 176 deep, water up to 16 below the floor
    m.air((-512, -320, G - 176, 512, 320, G), "fl_pool", "wa_pool", "ce_pool")
    m.liquid((-512, -320, G - 176, 512, 320, G - 16), "*water1")
    m.probe("pool", (0, 0, -100), "CONTENTS_WATER")
    m.probe("court sky", (0, 800, 584), "CONTENTS_SKY")
    # four pillars, floor to sky
    for sx in (-1, 1):
        for sy in (-1, 1):
            px, py = sx * 1024, sy * 640
            m.solid((px - 48, py - 48, G - T, px + 48, py + 48, 576), "pillar")
    m.probe("court pillar", (1024, 640, 100), "CONTENTS_SOLID")

    m.room("west", (-HX1, -768, G, -HX0, 768, 256), "fl_west", "wa_west",
           "ce_west")
    m.room("east", (HX0, -768, G, HX1, 768, 256), "fl_east", "wa_east",
           "ce_east")
    m.room("north", (-512, CY + 384, G, 512, CY + 1152, 224), "fl_north",
           "wa_north", "ce_north")
    m.room("south", (-512, -CY - 1152, G, 512, -CY - 384, 224), "fl_south",
           "wa_south", "ce_south")
    # corridors from the courtyard (384 long), each with a door half way
    for box in ((-HX0, -64, G, -CX, 64, 128), (CX, -64, G, HX0, 64, 128),
                (-64, CY, G, 64, CY + 384, 128), (-64, -CY - 384, G, 64, -CY, 128)):
        m.air(box, "fl_corr", "wa_corr", "ce_corr")
        x0, y0, z0, x1, y1, z1 = box
        if x1 - x0 > y1 - y0:
            mid = (x0 + x1) // 2
            door = (mid - 8, y0, z0, mid + 8, y1, z1)
        else:
            mid = (y0 + y1) // 2
            door = (x0, mid - 8, z0, x1, mid + 8, z1)
        m.brush_entity("func_door", [door], "door1", angle=-1, speed=200,
                       wait=3, lip=8)
    m.probe("west door", (-(HX0 + CX) // 2, 0, 64), "CONTENTS_EMPTY")

    # -- upper level (floor 256): two galleries and the bridge between
    m.room("gallery_w", (-HX1, 1280, UP, -HX0, 2176, UP + 192), "fl_galw",
           "wa_galw", "ce_galw")
    m.room("gallery_e", (HX0, 1280, UP, HX1, 2176, UP + 192), "fl_gale",
           "wa_gale", "ce_gale")
    m.room("bridge", (-HX0, 1856, UP, HX0, 2112, UP + 160), "fl_bridge",
           "wa_bridge", "ce_bridge")
    # west hall -> west gallery: 16 steps of 16 up, 32 deep, northwards
    m.air((-HC - 64, 768, G, -HC + 64, 1280, UP + 128), "fl_stair", "wa_stair",
          "ce_stair")
    m.stairs(-HC - 64, 768, -HC + 64, 1280, G, 16, 16, 1, +1, "step")
    m.probe("west stairs", (-HC, 1024, 96), "CONTENTS_SOLID")
    # east hall -> east gallery: a passage north to a lift (func_plat,
    # built at the top; the game lowers it 256 until someone rides it)
    m.air((HC - 64, 768, G, HC + 64, 1152, 128), "fl_corr", "wa_corr", "ce_corr")
    m.air((HC - 64, 1152, G, HC + 64, 1280, UP + 128), "fl_lift", "wa_lift",
          "ce_lift")
    m.brush_entity("func_plat", [(HC - 64, 1152, UP - 16, HC + 64, 1280, UP)],
                   "plat1", height=256, speed=150)
    m.probe("east lift shaft", (HC, 1216, 128), "CONTENTS_EMPTY")

    # -- basement (floor -256): the lava vault, the crypt, a tunnel between
    m.room("lava_vault", (-HX1, -2176, DOWN, -HX0, -1152, DOWN + 320),
           "fl_vault", "wa_vault", "ce_vault", probe=(-HC, -1344, DOWN + 48))
    # a lava channel across the vault, with a bridge over it
    m.air((-HX1, -1728, DOWN - 128, -HX0, -1600, DOWN), "fl_lava", "wa_lava",
          "ce_lava")
    m.liquid((-HX1, -1728, DOWN - 128, -HX0, -1600, DOWN - 32), "*lava1")
    m.solid((-HC - 64, -1728, DOWN - 16, -HC + 64, -1600, DOWN), "bridge")
    m.probe("lava", (-HC - 256, -1664, DOWN - 80), "CONTENTS_LAVA")
    m.probe("lava bridge", (-HC, -1664, DOWN - 8), "CONTENTS_SOLID")
    # west hall -> vault: 16 steps down southwards (24 deep)
    m.air((-HC - 64, -1152, DOWN, -HC + 64, -768, G + 128), "fl_stair",
          "wa_stair", "ce_stair")
    m.stairs(-HC - 64, -1152, -HC + 64, -768, DOWN, 16, 16, 1, +1, "step")
    m.room("crypt", (HX0, -2176, DOWN, HX1, -1152, DOWN + 224), "fl_crypt",
           "wa_crypt", "ce_crypt", probe=(HC, -1856, DOWN + 48))
    # east hall -> crypt: a passage south to a lift down
    m.air((HC - 64, -1024, G, HC + 64, -768, 128), "fl_corr", "wa_corr", "ce_corr")
    m.air((HC - 64, -1152, DOWN, HC + 64, -1024, 128), "fl_lift", "wa_lift",
          "ce_lift")
    m.brush_entity("func_plat", [(HC - 64, -1152, G - 16, HC + 64, -1024, G)],
                   "plat1", height=256, speed=150)
    # the tunnel: vault (south of the lava) to crypt, a door half way
    m.room("tunnel", (-HX0, -1984, DOWN, HX0, -1856, DOWN + 128), "fl_tunnel",
           "wa_tunnel", "ce_tunnel", probe=(-1200, -1920, DOWN + 48))
    m.brush_entity("func_door", [(-8, -1984, DOWN, 8, -1856, DOWN + 128)],
                   "door2", angle=-1, speed=200, wait=3, lip=8)

    # -- teleporters: pads in alcoves; destinations 24 above the floor
    alcove_teleporter(m, (-HX1, 2176, UP, -HX1 + 128, 2304, UP + 128), "crypt_in")
    m.point("info_teleport_destination", (HC, -1600, DOWN + 24),
            targetname="crypt_in", angle=270)
    alcove_teleporter(m, (HX1, -2176, DOWN, HX1 + 128, -2048, DOWN + 128),
                      "bridge_in")
    m.point("info_teleport_destination", (-1000, 1984, UP + 24),
            targetname="bridge_in", angle=0)
    alcove_teleporter(m, (-64, -CY - 1280, G, 64, -CY - 1152, G + 128), "gale_in")
    m.point("info_teleport_destination", (HC, 2048, UP + 24),
            targetname="gale_in", angle=270)
    alcove_teleporter(m, (-HX1 - 128, -2176, DOWN, -HX1, -2048, DOWN + 128),
                      "court_in")
    m.point("info_teleport_destination", (-1000, 0, G + 24),
            targetname="court_in", angle=0)

    # -- which rooms see each other
    m.pairs_seen = [("court", "west"), ("court", "east"), ("court", "north"),
                    ("court", "south"), ("west", "gallery_w"),
                    ("west", "lava_vault"), ("gallery_w", "bridge"),
                    ("bridge", "gallery_e"), ("lava_vault", "tunnel"),
                    ("tunnel", "crypt")]
    m.pairs_hidden = [("gallery_w", "crypt"), ("gallery_w", "south"),
                      ("lava_vault", "north"), ("crypt", "north"),
                      ("bridge", "south"), ("north", "west"),
                      ("north", "east"), ("south", "west"),
                      ("south", "east"), ("lava_vault", "gallery_e"),
                      ("crypt", "gallery_e"), ("bridge", "court"),
                      ("tunnel", "court"), ("lava_vault", "court")]

    # -- spawn points: 68, each at least 200 from the pool and the lava,
    # so the spawn rings (40, 80, 120 units) stay on dry floor
    for x in (-1216, -800, 800, 1216):
        for y in (-864, -432, 432, 864):
            if abs(x) == 800 and abs(y) == 432:
                continue
            m.spawn(x, y, G, 90 if y < 0 else 270)
    for x, y, ang in ((-1216, 0, 0), (1216, 0, 180), (0, -864, 90), (0, 864, 270)):
        m.spawn(x, y, G, ang)
    for cx, ang in ((-HC, 0), (HC, 180)):
        for x in (cx - 256, cx + 256):
            for y in (-512, -170, 170, 512):
                m.spawn(x, y, G, ang)
    for cy in (CY + 768, -CY - 768):
        for x in (-256, 0, 256):
            for y in (cy - 192, cy + 192):
                m.spawn(x, y, G, 270 if cy > 0 else 90)
    for cx in (-HC, HC):
        for x in (cx - 256, cx + 256):
            for y in (1536, 1920):
                m.spawn(x, y, UP, 0 if cx < 0 else 180)
        m.spawn(cx, 1728, UP, 90)
    for x in (-1280, -640, 640, 1280):
        m.spawn(x, 1984, UP, 0 if x < 0 else 180)
    for y in (-1344, -1952):
        for x in (-HC - 256, -HC + 256):
            m.spawn(x, y, DOWN, 90)
    for x in (HC - 192, HC + 192):
        for y in (-1920, -1600, -1376):
            m.spawn(x, y, DOWN, 90)
    m.point("info_player_start", (-1216, -864, G + 24), angle=90)
    m.point("info_intermission", (0, -CY + 128, 400), mangle="20 90 0")

    # -- items and weapons
    it = m.item
    it("weapon_supershotgun", -1216, 224, G)
    it("item_shells", 1216, -224, G)
    it("item_shells", -1216, -224, G)
    for x, y in ((-640, 640), (640, 640), (-640, -640), (640, -640)):
        it("item_health", x, y, G)
    it("weapon_nailgun", -HC, 0, G)
    it("item_spikes", -HC, 320, G)
    it("item_health", -HC, -320, G)
    it("weapon_grenadelauncher", HC, 0, G)
    it("item_rockets", HC, 320, G)
    it("item_health", HC, -320, G)
    it("weapon_supernailgun", 0, CY + 768, G)
    it("item_spikes", 128, CY + 768, G)
    it("item_armor1", -128, CY + 768, G)
    it("weapon_lightning", 0, -CY - 768, G)
    it("item_cells", 128, -CY - 768, G)
    it("item_armor1", -128, -CY - 768, G)
    it("weapon_rocketlauncher", -HC, 1400, UP)
    it("item_rockets", -HC - 128, 1400, UP)
    it("item_rockets", -HC + 128, 1400, UP)
    it("item_armor2", HC, 1400, UP)
    it("item_health", HC + 160, 1400, UP, spawnflags=2)
    it("item_artifact_super_damage", 0, 1984, UP)
    it("item_armorInv", -HC, -2080, DOWN)
    it("item_cells", -HC - 160, -2080, DOWN)
    it("item_health", HC, -1760, DOWN)
    it("item_health", HC + 160, -1760, DOWN)
    it("item_rockets", HC - 160, -1760, DOWN)
    it("item_spikes", 0, -1920, DOWN)
    return m


# ---- the arena ---------------------------------------------------------------

ARENA_HALF = 1024         # the hall is 2048 x 2048 inside, 256 high
ARENA_GRID = 224          # spawn points: 8 x 8, this far apart


def arena_map():
    """One open hall and nothing else: every spot is in view of every other
    (a single convex space), for the tests that need more players in one
    view than the stock protocol's 32 (the small map's rooms show only
    their neighbours)."""
    m = Map("arena", "qwd arena: one open hall")
    h = ARENA_HALF
    m.room("hall", (-h, -h, 0, h, h, 256), "fl_arena", "wa_arena", "ce_arena")
    for j in range(8):
        for i in range(8):
            x = (i - 3.5) * ARENA_GRID
            y = (j - 3.5) * ARENA_GRID
            m.spawn(int(x), int(y), 0, 0 if x < 0 else 180)
    m.point("info_player_start", (-784, -784, 24), angle=45)
    m.point("info_intermission", (0, 0, 200), mangle="30 45 0")
    m.item("weapon_rocketlauncher", 0, 0, 0)
    m.item("item_rockets", 112, 0, 0)
    m.item("item_rockets", -112, 0, 0)
    for x, y in ((-896, 0), (896, 0), (0, -896), (0, 896)):
        m.item("item_health", x, y, 0)
    m.item("item_armor1", 0, 112, 0)
    return m


# ---- the test table ----------------------------------------------------------


def c_points(maps):
    out = ["/*",
           " * tests/maps/map_layout.h -- named test points of maps/small.map and",
           " * maps/large.map, written by maps/gen/mkmaps.py (do not edit: rerun",
           " * the generator after changing the maps).",
           " *",
           " * Design note: each room has its open box and a probe point in it;",
           " * pairs of rooms are listed as joined (a corridor, doorway or stairs",
           " * between them: each sees the other) or hidden (by the layout no",
           " * straight line joins them); probes are points of known contents.",
           " * The tests check each claim against the compiled map.",
           " */",
           "#ifndef QWD_TESTS_MAP_LAYOUT_H",
           "#define QWD_TESTS_MAP_LAYOUT_H",
           "",
           "struct map_room {",
           "\tconst char *name;",
           "\tfloat probe[3];",
           "\tfloat mins[3], maxs[3];\t/* the room's open box */",
           "};",
           "",
           "struct map_pair {",
           "\tconst char *a, *b;",
           "};",
           "",
           "struct map_probe {",
           "\tconst char *name;",
           "\tfloat point[3];",
           "\tint contents;",
           "};",
           ""]
    for m in maps:
        out.append("enum { %s_SPAWNS = %d, %s_ROOMS = %d };" %
                   (m.name.upper(), m.spawns, m.name.upper(), len(m.rooms)))
        out.append("")
        out.append("static const struct map_room %s_rooms[] = {" % m.name)
        for nm, p, b in m.rooms:
            out.append('\t{"%s", {%g, %g, %g}, {%d, %d, %d}, {%d, %d, %d}},' %
                       ((nm,) + tuple(p) + tuple(b)))
        out.append("};")
        out.append("")
        out.append("static const struct map_probe %s_probes[] = {" % m.name)
        for nm, p, c in m.probes:
            out.append('\t{"%s", {%g, %g, %g}, %s},' % (nm, p[0], p[1], p[2], c))
        out.append("};")
        out.append("")
        for kind, pairs in (("seen", m.pairs_seen), ("hidden", m.pairs_hidden)):
            out.append("static const struct map_pair %s_%s[] = {" % (m.name, kind))
            for a, b in pairs:
                out.append('\t{"%s", "%s"},' % (a, b))
            out.append("};")
            out.append("")
    out.append("#endif")
    return "\n".join(out) + "\n"


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    # the arena has no rooms to tell apart: it stays out of the table
    maps = [small_map(), large_map()]
    for m in maps + [arena_map()]:
        if not m.airs:
            continue
        path = os.path.join(root, "maps", m.name + ".map")
        with open(path, "w") as f:
            f.write(m.text())
        print("%s: %d rooms, %d spawn points" % (path, len(m.rooms), m.spawns))
    with open(os.path.join(root, "tests", "maps", "map_layout.h"), "w") as f:
        f.write(c_points([mm for mm in maps if mm.airs]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
