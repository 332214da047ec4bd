/*
 * procstat.c -- CPU time of processes and the machine's description,
 * from /proc.
 *
 * Design note
 *   The load generators state the server's CPU time over their
 *   measurement window, read from outside: /proc/PID/stat counts user and
 *   system time in clock ticks (10 ms); /proc/PID/task/<tid>/schedstat
 *   counts time on a CPU in nanoseconds per thread, where the kernel keeps
 *   run-time statistics (it reads 0 where it does not, and the tick count
 *   stands in).  qwbots reports the tick figure, udpecho both (the floor
 *   compares them).  In /proc/PID/stat the command name is in parentheses
 *   and may itself hold blanks and parentheses, so the fields are counted
 *   from the last ')'.  Every read is bounded by its buffer and a file that
 *   does not parse gives -1 ("unknown"), never a made-up number.
 */
#include "qwtools.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

double qwt_proc_cpu_ticks_s(long pid)
{
	char path[64], buf[1024];
	unsigned long long ut, st;
	const char *p;
	FILE *f;
	size_t n;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	/* after ')': state(3) ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt cmajflt utime(14) stime(15) */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

double qwt_proc_cpu_s(long pid)
{
	char path[64];
	struct dirent *de;
	double sum = 0;
	bool any = false;
	DIR *d;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		char spath[300];
		unsigned long long ns;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(spath, sizeof(spath), "/proc/%ld/task/%s/schedstat", pid, de->d_name);
		f = fopen(spath, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &ns) == 1) {
			sum += (double)ns * 1e-9;
			any = true;
		}
		fclose(f);
	}
	closedir(d);
	if (!any || sum <= 0)
		return qwt_proc_cpu_ticks_s(pid);
	return sum;
}

void qwt_self_cpu(double *user_s, double *sys_s)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
	*sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

void qwt_proc_value(const char *file, const char *key, char *out,
		    size_t outsize)
{
	char line[512];
	FILE *f = fopen(file, "r");

	snprintf(out, outsize, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, key, strlen(key)) != 0 || !colon)
			continue;
		colon += 1 + strspn(colon + 1, " \t");
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(out, outsize, "%s", colon);
		break;
	}
	fclose(f);
}

void qwt_machine_read(struct qwt_machine *m)
{
	time_t now = time(NULL);
	struct tm tm;

	qwt_proc_value("/proc/cpuinfo", "model name", m->cpu, sizeof(m->cpu));
	qwt_proc_value("/proc/meminfo", "MemTotal", m->ram, sizeof(m->ram));
	if (!gmtime_r(&now, &tm) ||
	    strftime(m->date, sizeof(m->date), "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		snprintf(m->date, sizeof(m->date), "unknown");
}

void qwt_json_machine(struct json_out *j, const char *tool,
		      const struct qwt_machine *m)
{
	json_break(j, 2);
	json_str(j, "tool", tool);
	json_break(j, 2);
	json_str(j, "date", m->date);
	json_break(j, 2);
	json_str(j, "cpu", m->cpu);
	json_break(j, 2);
	json_str(j, "ram", m->ram);
	json_break(j, 2);
	json_i64(j, "cpus_online", sysconf(_SC_NPROCESSORS_ONLN));
}
