/*
 * qwmap -- compile a Quake .map of box brushes into a BSP29 map.
 *
 *   qwmap [-q] [-leak] IN.map OUT.bsp
 *
 * Design note: the command line around qm_compile (compile.c).  It reads
 * the whole source, compiles it in memory, and writes OUT.bsp through a
 * temporary file renamed into place, so a failed compile never leaves a
 * half-written map where a server would load it.  On a leak the path is
 * written next to the output as OUT.pts (one "x y z" point per line, the
 * pointfile editors such as TrenchBroom draw).  It prints one line with
 * the counts and the compile time (-q: nothing but errors); the exit
 * status is 0 on success, 1 on any error, with the error on stderr as
 * "qwmap: FILE:LINE: what".
 *
 *   -leak   write a leaking map anyway, unfilled and without vis data
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qwmap.h"

enum { QM_MAX_SOURCE = 64 << 20 };

static void usage(void)
{
	fputs("usage: qwmap [-q] [-leak] IN.map OUT.bsp\n", stderr);
	exit(1);
}

static char *read_source(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f) {
		fprintf(stderr, "qwmap: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "qwmap: %s: cannot find the file size\n", path);
		fclose(f);
		return NULL;
	}
	if (n > QM_MAX_SOURCE) {
		fprintf(stderr, "qwmap: %s: %ld bytes, more than the %d accepted\n", path, n,
			QM_MAX_SOURCE);
		fclose(f);
		return NULL;
	}
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "qwmap: %s: %s\n", path, buf ? "read error" : "out of memory");
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

static int write_file(const char *path, const void *data, size_t size)
{
	char tmp[4096];
	FILE *f;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)) {
		fprintf(stderr, "qwmap: %s: path too long\n", path);
		return -1;
	}
	f = fopen(tmp, "wb");
	if (!f) {
		fprintf(stderr, "qwmap: %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	if (fwrite(data, 1, size, f) != size || fclose(f) != 0) {
		fprintf(stderr, "qwmap: %s: write error\n", tmp);
		remove(tmp);
		return -1;
	}
	if (rename(tmp, path) != 0) {
		fprintf(stderr, "qwmap: %s: %s\n", path, strerror(errno));
		remove(tmp);
		return -1;
	}
	return 0;
}

/* OUT.bsp -> OUT.pts (or OUT + ".pts" without a .bsp ending) */
static void pointfile_path(const char *out, char *buf, size_t len)
{
	size_t n = strlen(out);

	if (n > 4 && strcmp(out + n - 4, ".bsp") == 0)
		snprintf(buf, len, "%.*s.pts", (int)(n - 4), out);
	else
		snprintf(buf, len, "%s.pts", out);
}

int main(int argc, char **argv)
{
	struct qm_options opt = {false};
	struct qm_output out;
	bool quiet = false;
	const char *in = NULL, *outpath = NULL;
	char err[1024], pts[4096];
	struct qm_ctx ctx;
	double t0 = qwd_clock_s(CLOCK_MONOTONIC);
	char *src;
	size_t len;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-q") == 0)
			quiet = true;
		else if (strcmp(argv[i], "-leak") == 0)
			opt.allow_leak = true;
		else if (argv[i][0] == '-' && argv[i][1] != '\0')
			usage();
		else if (!in)
			in = argv[i];
		else if (!outpath)
			outpath = argv[i];
		else
			usage();
	}
	if (!in || !outpath)
		usage();
	src = read_source(in, &len);
	if (!src)
		return 1;
	memset(&ctx, 0, sizeof(ctx));
	ctx.name = in;
	ctx.err = err;
	ctx.errlen = sizeof(err);
	ctx.log = quiet ? NULL : stderr;
	rc = qm_compile(&ctx, src, len, &opt, &out);
	free(src);
	pointfile_path(outpath, pts, sizeof(pts));
	if (out.pointfile) {
		if (write_file(pts, out.pointfile, strlen(out.pointfile)) == 0)
			fprintf(stderr, "qwmap: leak path written to %s\n", pts);
	} else {
		remove(pts);	/* a stale path from an earlier leak */
	}
	if (rc != 0) {
		fprintf(stderr, "qwmap: %s\n", err);
		qm_output_free(&out);
		return 1;
	}
	if (write_file(outpath, out.data, out.size) != 0) {
		qm_output_free(&out);
		return 1;
	}
	if (!quiet) {
		const struct qm_stats *s = &out.stats;

		printf("qwmap: %s -> %s: %d brushes, %d models, %d planes, %d nodes, "
		       "%d leafs, %d clipnodes, %d faces, %d vertexes, %d textures, "
		       "%d portals, vis %zu bytes (%.1f leafs seen on average)%s, "
		       "%zu bytes in %.2f s\n",
		       in, outpath, s->brushes, s->models, s->planes, s->nodes, s->leafs,
		       s->clipnodes, s->faces, s->vertexes, s->miptex, s->portals,
		       s->visdata, s->avg_visible, s->leaked ? " (LEAKED: no vis)" : "",
		       s->file_size, qwd_clock_s(CLOCK_MONOTONIC) - t0);
	}
	qm_output_free(&out);
	return 0;
}
