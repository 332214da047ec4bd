/*
 * src_metrics.c -- builds tools/qwbots/metrics.c into the test program.
 *
 * Design note: test programs link the .c files of tests/<module>/ with
 * libqwd.a only, so the load generator's sources (all but its main.c) are
 * compiled here, one file each so their static helpers stay apart.
 */
#include "../../tools/qwbots/metrics.c"
