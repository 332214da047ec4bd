#!/usr/bin/env python3
"""swatches.py IMAGE PALETTE NAME:TOP,BOTTOM... -- is a QuakeWorld
deathmatch scoreboard listing these players on the picture?

Design note: tests/interop/ezquake-duel.sh's proof that its capture at the
intermission is the scoreboard, not merely a drawn frame.  A QuakeWorld
client's deathmatch overlay gives each player a row, and in it a swatch
of the player's colours: a filled rectangle 40 units wide, the shirt's
colour in its upper 4 rows and the pants' in the lower 4, the rows 10
units apart, all swatches in one column (ezQuake's sbar.c draws these
with palette index 16 * colour + 8; the fill is opaque, so its pixels are
the palette's colour exactly when the client applies no gamma).  The
picture is scaled by the client's 2D scale, unknown here: each unit is s
pixels.  So what is looked for, per player, is a rectangle of exactly
its top colour W pixels wide and h high with, right below, one of its
bottom colour as wide and as high, W = 10 h (s = h / 4); and all the
players' swatches share one column, the rows h * 10 / 4 pixels apart.
What else draws the colours does not pass: ezQuake's small frag table
beside the status bar during the game has swatches 3 units over 4, side
by side; a player's model is shaded; a wall of the same colour is not
such a pair.  The palette is the client data's gfx/palette.lmp (768
bytes).  The image is read as PPM from ImageMagick's convert, so any
format it reads will do.
Prints what it found, one line a player, and "scoreboard: yes" or
"scoreboard: no (why)"; exits 0 for yes, 1 for no, 2 on bad arguments or
an unreadable file.
"""
import subprocess
import sys


def read_ppm(path):
    """the picture as (width, height, RGB bytes), through convert"""
    out = subprocess.run(["convert", path, "-depth", "8", "ppm:-"],
                         capture_output=True, check=True).stdout
    fields, pos = [], 0
    while len(fields) < 4:  # magic, width, height, maxval
        while out[pos:pos + 1].isspace():
            pos += 1
        if out[pos:pos + 1] == b"#":
            pos = out.index(b"\n", pos)
            continue
        end = pos
        while not out[end:end + 1].isspace():
            end += 1
        fields.append(out[pos:end])
        pos = end
    if fields[0] != b"P6" or fields[3] != b"255":
        raise ValueError("not an 8-bit PPM")
    w, h = int(fields[1]), int(fields[2])
    data = out[pos + 1:pos + 1 + 3 * w * h]
    if len(data) != 3 * w * h:
        raise ValueError("short PPM")
    return w, h, data


def colour_of(pal, m):
    """the scoreboard's colour for player colour m (sbar's 16 m + 8)"""
    i = 0 if m == 16 else 16 * max(0, min(m, 15)) + 8
    return bytes(pal[3 * i:3 * i + 3])


def swatches(w, h, data, top, bottom):
    """top-over-bottom pairs of the scoreboard's shape: (x0, x1, y0, hh,
    clean columns).  A column is clean where a run of exactly hh pixels of
    TOP stands on one of exactly hh of BOTTOM: the frags (and a player's
    own brackets) are printed over the swatch and spoil the columns under
    their strokes, so half the swatch's 10 hh columns are enough, within
    a span no wider than the swatch"""
    groups = {}
    for x in range(w):
        col = [data[3 * (w * y + x):3 * (w * y + x) + 3] for y in range(h)]
        y = 0
        while y < h:
            if col[y] != top:
                y += 1
                continue
            y0 = y
            while y < h and col[y] == top:
                y += 1
            yb = y
            while y < h and col[y] == bottom:
                y += 1
            if y - yb == yb - y0:
                groups.setdefault((y0, yb - y0), []).append(x)
    found = []
    for (y0, hh), xs in groups.items():
        if hh >= 2 and xs[-1] - xs[0] < 10 * hh and 2 * len(xs) >= 10 * hh:
            found.append((xs[0], xs[-1] + 1, y0, hh, len(xs)))
    return found


def main(argv):
    if len(argv) < 4:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    try:
        w, h, data = read_ppm(argv[1])
        with open(argv[2], "rb") as f:
            pal = f.read()
        if len(pal) != 768:
            raise ValueError("%s: %d bytes, a palette has 768" % (argv[2], len(pal)))
        players = []
        for arg in argv[3:]:
            try:
                name, cols = arg.rsplit(":", 1)
                t, b = (int(c) for c in cols.split(","))
            except ValueError:
                raise ValueError("%r: a player is NAME:TOP,BOTTOM" % arg)
            players.append((name, t, b))
    except subprocess.CalledProcessError as e:
        print("swatches: %s: convert could not read it: %s" % (
            argv[1], e.stderr.decode(errors="replace").strip()), file=sys.stderr)
        return 2
    except (OSError, ValueError) as e:
        print("swatches: %s" % e, file=sys.stderr)
        return 2
    rows = []
    for name, t, b in players:
        top, bottom = colour_of(pal, t), colour_of(pal, b)
        got = swatches(w, h, data, top, bottom)
        where = ", ".join("%d of %d columns at x %d..%d, rows %d..%d" % (
            n, 10 * hh, x0, x1 - 1, y0, y0 + 2 * hh - 1)
            for x0, x1, y0, hh, n in got)
        print("%s (top %d #%s, bottom %d #%s): %s" % (
            name, t, top.hex().upper(), b, bottom.hex().upper(),
            where or "no swatch"))
        rows.append(got)
    if not all(rows):
        print("scoreboard: no (a player without a swatch)")
        return 1
    # one swatch each, in one column, on rows 10 units apart
    hh = rows[0][0][3]
    left = min(r[0][0] for r in rows)
    right = max(r[0][1] for r in rows)
    if any(len(r) != 1 or r[0][3] != hh for r in rows) or right - left > 10 * hh:
        print("scoreboard: no (the swatches are not one column, one each)")
        return 1
    ys = sorted(r[0][2] for r in rows)
    if any(4 * (b - a) != 10 * hh for a, b in zip(ys, ys[1:])):
        print("scoreboard: no (the rows are not 10 units apart)")
        return 1
    print("scoreboard: yes (%d rows, 2D scale %g)" % (len(rows), hh / 4))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
