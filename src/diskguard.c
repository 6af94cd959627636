/* diskguard.c — see diskguard.h. */
#include "diskguard.h"

#include "log.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <sys/statvfs.h>

#define POLL_MS 100
#define MIB (1024ULL * 1024)

struct disk_guard {
	pthread_t thread;
	int wake;                       /* eventfd: stop now */
	char *upper;
	pid_t init_pid;
	unsigned long long limit;       /* bytes the session may add this run, 0: none */
	unsigned long long reserve;     /* bytes the filesystem keeps free */
	unsigned long long start_avail;
	atomic_int tripped;             /* 1: over --disk, 2: down to the reserve */
	unsigned long long seen_avail;
};

unsigned long long disk_reserve(unsigned long long total, unsigned long long avail)
{
	unsigned long long r = total / 20;
	if (r > 1024 * MIB)
		r = 1024 * MIB;
	if (r > avail / 2)
		r = avail / 2;
	return r;
}

static int avail_bytes(const char *path, unsigned long long *avail, unsigned long long *total)
{
	struct statvfs sv;
	if (statvfs(path, &sv) < 0)
		return -1;
	*avail = (unsigned long long)sv.f_bavail * sv.f_frsize;
	if (total)
		*total = (unsigned long long)sv.f_blocks * sv.f_frsize;
	return 0;
}

static void *guard_main(void *arg)
{
	struct disk_guard *g = arg;
	struct pollfd pfd = {g->wake, POLLIN, 0};
	while (poll(&pfd, 1, POLL_MS) == 0 || (pfd.revents == 0 && errno == EINTR)) {
		unsigned long long avail;
		if (avail_bytes(g->upper, &avail, NULL) < 0)
			continue;
		int why = 0;
		if (g->limit && g->start_avail > avail && g->start_avail - avail > g->limit)
			why = 1;
		else if (avail < g->reserve)
			why = 2;
		if (why) {
			g->seen_avail = avail;
			atomic_store(&g->tripped, why);
			kill(g->init_pid, SIGKILL);
			break;
		}
	}
	return NULL;
}

int disk_guard_start(const struct jail_config *cfg, const char *upper, pid_t init_pid,
                     struct disk_guard **out, struct jail_err *e)
{
	struct disk_guard *g = xcalloc(1, sizeof(*g));
	unsigned long long total;
	g->upper = xstrdup(upper);
	g->init_pid = init_pid;
	g->limit = (unsigned long long)cfg->disk;
	if (avail_bytes(upper, &g->start_avail, &total) < 0) {
		free(g->upper);
		free(g);
		return jail_err_sys(e, "statvfs '%s'", upper);
	}
	g->reserve = disk_reserve(total, g->start_avail);
	g->wake = eventfd(0, EFD_CLOEXEC);
	int r = g->wake < 0 ? errno : pthread_create(&g->thread, NULL, guard_main, g);
	if (r != 0) {
		if (g->wake >= 0)
			close(g->wake);
		free(g->upper);
		free(g);
		return jail_err_set(e, r, "start the disk guard");
	}
	*out = g;
	return 0;
}

bool disk_guard_stop(struct disk_guard *g, struct jail_err *e)
{
	if (!g)
		return false;
	uint64_t one = 1;
	if (write(g->wake, &one, sizeof(one)) < 0) {
		/* the thread still ends at its next poll timeout */
	}
	pthread_join(g->thread, NULL);
	int why = atomic_load(&g->tripped);
	if (why == 1)
		jail_err_set(e, 0,
		             "stopped the command: the session wrote more than --disk %llu MiB "
		             "this run; what it wrote is kept in %s (jail reset to discard it)",
		             g->limit / MIB, g->upper);
	else if (why == 2)
		jail_err_set(e, ENOSPC,
		             "stopped the command: it was filling the disk (%llu MiB left on the "
		             "filesystem of %s); free some space or jail reset the session",
		             g->seen_avail / MIB, g->upper);
	close(g->wake);
	free(g->upper);
	free(g);
	return why != 0;
}
