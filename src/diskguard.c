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
#include <time.h>

/* statvfs is a microsecond: look often, and more often near a limit, where a
 * shell loop creating empty files eats a 5% inode reserve in well under 100 ms */
#define POLL_MS 50
#define POLL_NEAR_MS 5
#define MIB (1024ULL * 1024)

enum trip { TRIP_NONE, TRIP_BYTES, TRIP_INODES, TRIP_RESERVE, TRIP_RESERVE_INODES };

struct disk_guard {
	pthread_t thread;
	bool threaded;
	int wake;                       /* eventfd: stop now (threaded) */
	int wait_ms;                    /* until the next look; -1: no more */
	struct timespec last;           /* the last look (or the start) */
	char *upper;
	pid_t init_pid;
	unsigned long long limit;       /* bytes the session may add this run, 0: none */
	unsigned long long ilimit;      /* inodes it may add, 0: none */
	unsigned long long reserve, ireserve;  /* what the filesystem keeps free */
	struct fs_room start;
	atomic_int tripped;             /* enum trip */
	struct fs_room seen;
};

unsigned long long disk_reserve(unsigned long long total, unsigned long long avail,
                                unsigned long long cap)
{
	unsigned long long r = total / 20;
	if (r > cap)
		r = cap;
	if (r > avail / 2)
		r = avail / 2;
	return r;
}

unsigned long long disk_inode_limit(const struct jail_config *cfg)
{
	if (cfg->disk_inodes > 0)
		return (unsigned long long)cfg->disk_inodes;
	return cfg->disk > 0 ? (unsigned long long)cfg->disk / 1024 : 0;
}

int fs_room_of(const char *path, struct fs_room *r)
{
	struct statvfs sv;
	if (statvfs(path, &sv) < 0)
		return -1;
	r->bytes_avail = (unsigned long long)sv.f_bavail * sv.f_frsize;
	r->bytes_total = (unsigned long long)sv.f_blocks * sv.f_frsize;
	/* btrfs and others report no inode count: nothing to watch there */
	r->inodes_total = sv.f_files;
	r->inodes_avail = sv.f_files ? sv.f_favail : 0;
	return 0;
}

/* The reserve as the guard keeps it, so capped at half of what is free now: on
 * a large disk already below 5% (1 GiB of 250 free as 287 MiB), a full reserve
 * would refuse every export after runs the guard let go on. */
bool fs_room_fits(const struct fs_room *r, unsigned long long bytes, unsigned long long inodes)
{
	unsigned long long rb = disk_reserve(r->bytes_total, r->bytes_avail, DISK_RESERVE_BYTES_CAP);
	unsigned long long ri =
		disk_reserve(r->inodes_total, r->inodes_avail, DISK_RESERVE_INODES_CAP);
	if (r->bytes_avail - rb < bytes)
		return false;
	return r->inodes_total == 0 || r->inodes_avail - ri >= inodes;
}

static unsigned long long used_since(unsigned long long start, unsigned long long now)
{
	return start > now ? start - now : 0;
}

/* Which limit the filesystem's state now crosses; *near when one is close. */
static enum trip guard_check(const struct disk_guard *g, const struct fs_room *now, bool *near)
{
	unsigned long long db = used_since(g->start.bytes_avail, now->bytes_avail);
	unsigned long long di = used_since(g->start.inodes_avail, now->inodes_avail);
	bool inodes = g->start.inodes_total != 0;
	*near = (g->limit && db > g->limit / 2) || (g->ilimit && inodes && di > g->ilimit / 2) ||
	        now->bytes_avail < 4 * g->reserve || (inodes && now->inodes_avail < 4 * g->ireserve);
	if (g->limit && db > g->limit)
		return TRIP_BYTES;
	if (g->ilimit && inodes && di > g->ilimit)
		return TRIP_INODES;
	if (now->bytes_avail < g->reserve)
		return TRIP_RESERVE;
	if (inodes && now->inodes_avail < g->ireserve)
		return TRIP_RESERVE_INODES;
	return TRIP_NONE;
}

/* One look at the filesystem: the jail is stopped when it crossed a limit.
 * The wait until the next look, -1 once stopped. */
static int look(struct disk_guard *g)
{
	struct fs_room now;
	bool near = false;
	if (fs_room_of(g->upper, &now) < 0)
		return POLL_MS;
	enum trip why = guard_check(g, &now, &near);
	if (why == TRIP_NONE)
		return near ? POLL_NEAR_MS : POLL_MS;
	g->seen = now;
	atomic_store(&g->tripped, why);
	kill(g->init_pid, SIGKILL);
	return -1;
}

static void *guard_main(void *arg)
{
	struct disk_guard *g = arg;
	struct pollfd pfd = {g->wake, POLLIN, 0};
	for (int wait = POLL_MS; wait >= 0;) {
		int r = poll(&pfd, 1, wait);
		if (r > 0 || (r < 0 && errno != EINTR))
			break;
		if (r == 0)
			wait = look(g);
	}
	return NULL;
}

static long ms_since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

int disk_guard_timeout(const struct disk_guard *g)
{
	if (!g || g->threaded || g->wait_ms < 0)
		return -1;
	long left = g->wait_ms - ms_since(&g->last);
	return left > 0 ? (int)left : 0;
}

void disk_guard_look(struct disk_guard *g)
{
	if (disk_guard_timeout(g) != 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &g->last);
	g->wait_ms = look(g);
}

static void guard_free(struct disk_guard *g)
{
	if (g->wake >= 0)
		close(g->wake);
	free(g->upper);
	free(g);
}

int disk_guard_start(const struct jail_config *cfg, const char *upper, pid_t init_pid,
                     bool threaded, struct disk_guard **out, struct jail_err *e)
{
	struct disk_guard *g = xcalloc(1, sizeof(*g));
	g->wake = -1;
	g->threaded = threaded;
	g->wait_ms = POLL_MS;
	g->upper = xstrdup(upper);
	g->init_pid = init_pid;
	g->limit = (unsigned long long)cfg->disk;
	g->ilimit = disk_inode_limit(cfg);
	if (fs_room_of(upper, &g->start) < 0) {
		guard_free(g);
		return jail_err_sys(e, "statvfs '%s'", upper);
	}
	g->reserve = disk_reserve(g->start.bytes_total, g->start.bytes_avail, DISK_RESERVE_BYTES_CAP);
	g->ireserve = disk_reserve(g->start.inodes_total, g->start.inodes_avail,
	                           DISK_RESERVE_INODES_CAP);
	clock_gettime(CLOCK_MONOTONIC, &g->last);
	if (threaded) {
		g->wake = eventfd(0, EFD_CLOEXEC);
		int r = g->wake < 0 ? errno : pthread_create(&g->thread, NULL, guard_main, g);
		if (r != 0) {
			guard_free(g);
			return jail_err_set(e, r, "start the disk guard");
		}
	}
	*out = g;
	return 0;
}

static void guard_reason(const struct disk_guard *g, int why, struct jail_err *e)
{
	if (why == TRIP_BYTES)
		jail_err_set(e, 0,
		             "stopped the command: the session wrote more than --disk %llu MiB "
		             "this run; what it wrote is kept in %s (jail reset to discard it)",
		             g->limit / MIB, g->upper);
	else if (why == TRIP_INODES)
		jail_err_set(e, 0,
		             "stopped the command: the session created more than %llu files this "
		             "run (--disk-inodes); what it wrote is kept in %s (jail reset to "
		             "discard it)", g->ilimit, g->upper);
	else if (why == TRIP_RESERVE)
		jail_err_set(e, ENOSPC,
		             "stopped the command: it was filling the disk (%llu MiB left on the "
		             "filesystem of %s); free some space or jail reset the session",
		             g->seen.bytes_avail / MIB, g->upper);
	else
		jail_err_set(e, ENOSPC,
		             "stopped the command: it was filling the disk (%llu inodes left on "
		             "the filesystem of %s); free some or jail reset the session",
		             g->seen.inodes_avail, g->upper);
}

bool disk_guard_stop(struct disk_guard *g, struct jail_err *e)
{
	if (!g)
		return false;
	uint64_t one = 1;
	if (g->threaded && write(g->wake, &one, sizeof(one)) < 0) {
		/* the thread still ends at its next poll timeout */
	}
	if (g->threaded)
		pthread_join(g->thread, NULL);
	int why = atomic_load(&g->tripped);
	if (why != TRIP_NONE)
		guard_reason(g, why, e);
	guard_free(g);
	return why != TRIP_NONE;
}
