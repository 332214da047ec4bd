/*
 * src_qwmap_parse.c -- builds tools/qwmap/parse.c into the game tests.
 *
 * Design note: the game's scenario maps are .map text compiled in memory
 * by the project's own map compiler (qm_compile); test programs link only
 * libqwd.a, so the compiler's sources (all but its main.c) come in here,
 * one file each so their static helpers stay apart.
 */
#include "../../tools/qwmap/parse.c"
