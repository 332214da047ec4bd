/*
 * src_qwcap_analyze.c -- builds tools/qwcap/analyze.c into the test program.
 *
 * Design note: test programs link the .c files of tests/<module>/ with
 * libqwd.a only, so the capture analyser's sources (all but its main.c)
 * are compiled here, one file each so their static helpers stay apart.
 */
#include "../../tools/qwcap/analyze.c"
