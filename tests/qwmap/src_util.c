/*
 * src_util.c -- builds tools/qwmap/util.c into the test program.
 *
 * Design note: test programs link the .c files of tests/<module>/ with libqwd.a only, so
 * the compiler's sources (all but its main.c) are compiled here, one file
 * each so their static helpers stay apart.
 */
#include "../../tools/qwmap/util.c"
