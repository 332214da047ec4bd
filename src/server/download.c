/*
 * download.c -- the files the server hands out, read a chunk at a time.
 *
 * Design note
 *   A download used to read its whole file into memory, once per
 *   "download" command: a packet of a few hundred commands for a 15 MB
 *   file read 5 GB and stalled every player.  Here a file is opened once
 *   and read at an offset, one chunk per reply: the cost of a download
 *   command is an open and a stat, and the bytes read are the bytes sent.
 *   The map being played is served from the copy the loader holds (no
 *   read at all).  The API is three calls (open, read at an offset,
 *   close) so any way of sending a file (the stock one here, chunked
 *   extensions) can share it.
 *
 *   Names have been checked by the caller (relative, no "..", one of the
 *   folders clients fetch from).  A name is looked up in the game folder,
 *   then id1, then (maps/ only) the bundled maps; a demo (a plain file
 *   name) in the demo folder only, sv_demoDir under the game folder, as
 *   MVDSV keeps it.  Only regular files are served: the open does not
 *   block (a FIFO named like a map would hang the frame) and anything
 *   that is not a regular file is refused.
 *   sv->stats.download_read counts the bytes read from disk, so a test
 *   can tell a chunked read from a whole-file one.
 */
#include "demo.h"
#include "downloads.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool open_path(struct sv_file *f, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		return false;
	}
	f->fd = fd;
	f->size = (size_t)st.st_size;
	f->mem = NULL;
	f->open = true;
	return true;
}

bool sv_file_open(struct server *sv, struct sv_file *f, const char *name)
{
	char path[SV_PATH + 200];
	char mapfile[96];

	sv_file_close(f);
	snprintf(mapfile, sizeof(mapfile), "maps/%s.bsp", sv->mapname);
	if (sv->map && strcmp(name, mapfile) == 0) {
		f->mem = sv->map->file;
		f->size = sv->map->file_size;
		f->fd = -1;
		f->open = true;
		return true;
	}
	snprintf(path, sizeof(path), "%s/%s/%s", sv->basedir, sv->gamedir, name);
	if (open_path(f, path))
		return true;
	snprintf(path, sizeof(path), "%s/id1/%s", sv->basedir, name);
	if (open_path(f, path))
		return true;
	/* the item box models (maps/b_*.bsp) ship with the bundled maps */
	if (strncmp(name, "maps/", 5) != 0)
		return false;
	snprintf(path, sizeof(path), "%s/%s", sv_bundled_map_dir(), name + 5);
	return open_path(f, path);
}

bool sv_file_open_demo(struct server *sv, struct sv_file *f, const char *name)
{
	/* the base and game folders, the cvar's 255 bytes, the name */
	char path[SV_PATH + 64 + 256 + 128 + 4];
	int n;

	sv_file_close(f);
	/* the demo module's rule for the folder: inside the game folder */
	if (!sv_demo_dir_ok(sv->downloads->demodir->string))
		return false;
	n = snprintf(path, sizeof(path), "%s/%s/%s/%s", sv->basedir, sv->gamedir,
		     sv->downloads->demodir->string, name);
	/* a cut path would name another file */
	return n > 0 && (size_t)n < sizeof(path) && open_path(f, path);
}

size_t sv_file_read(struct server *sv, struct sv_file *f, size_t offset,
		    void *buf, size_t len)
{
	ssize_t n;

	if (!f->open || offset >= f->size)
		return 0;
	if (len > f->size - offset)
		len = f->size - offset;
	if (f->mem) {
		memcpy(buf, f->mem + offset, len);
		return len;
	}
	n = pread(f->fd, buf, len, (off_t)offset);
	if (n <= 0)
		return 0;
	sv->stats.download_read += (uint64_t)n;
	return (size_t)n;
}

void sv_file_close(struct sv_file *f)
{
	if (f->open && !f->mem && f->fd >= 0)
		close(f->fd);
	f->open = false;
	f->mem = NULL;
	f->fd = -1;
	f->size = 0;
}
