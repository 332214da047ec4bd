/*
 * internal.h -- what the world's files share and nobody else sees.
 *
 * Design note
 *   One test is asked by two files: does a segment meet a box?  area.c
 *   asks it for every box object a move's trace could reach (a move that
 *   surely misses one skips its trace), changes.c for the speculative
 *   moves' reads (world_segment_meets, the public form).  Its one owner
 *   is here, inline, since the first is on the moves' hottest path.
 */
#ifndef QWD_WORLD_INTERNAL_H
#define QWD_WORLD_INTERNAL_H

#include <stdbool.h>

#include "qwd/world.h"

/* The segment a..b against the box lo..hi (slabs: the part of the
 * segment inside each axis's slab, intersected), within the first `upto`
 * of it (a fraction: 1 is the whole segment).  An axis along which the
 * segment moves by less than `still` (0: not at all) is taken as a
 * point there.  A NaN makes every comparison false: the answer is then
 * "meets", never a wrong "misses". */
static inline bool world_slabs_meet_upto(const float *a, const float *b,
					 const float *lo, const float *hi,
					 float still, float upto)
{
	float t0 = 0, t1 = upto;

	for (int k = 0; k < 3; k++) {
		float d = b[k] - a[k];

		if (d == 0 || (d > -still && d < still)) {
			if (a[k] < lo[k] || a[k] > hi[k])
				return false;
			continue;
		}
		float ta = (lo[k] - a[k]) / d, tb = (hi[k] - a[k]) / d;

		if (ta > tb) {
			float t = ta;

			ta = tb;
			tb = t;
		}
		if (ta > t0)
			t0 = ta;
		if (tb < t1)
			t1 = tb;
		if (t0 > t1)
			return false;
	}
	return true;
}

static inline bool world_slabs_meet(const float *a, const float *b,
				    const float *lo, const float *hi,
				    float still)
{
	return world_slabs_meet_upto(a, b, lo, hi, still, 1);
}

#endif
