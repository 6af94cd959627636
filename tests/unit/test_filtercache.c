/* Unit tests: filtercache.c — a start whose key matches loads the program
 * compiled before; any other key, a file others may write or a damaged one
 * is compiled over. */
#include "t.h"
#include "config.h"
#include "filtercache.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/jail-filtercache-XXXXXX";
static char path[sizeof(dir) + 32];

static bool setup(void)
{
	if (!mkdtemp(dir))
		return false;
	snprintf(path, sizeof(path), "%s/filter.cache", dir);
	return true;
}

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

static bool compile(const struct jail_config *cfg, struct sysfilter_prog *p)
{
	struct jail_err e = {0};
	memset(p, 0, sizeof(*p));
	if (filtercache_compile(cfg, dir, p, &e) < 0) {
		fprintf(stderr, "  filtercache_compile: %s\n", e.msg);
		return false;
	}
	return true;
}

static bool same(const struct sysfilter_prog *a, const struct sysfilter_prog *b)
{
	return a->len == b->len && memcmp(a->insns, b->insns, a->len * sizeof(a->insns[0])) == 0;
}

/* Change the last instruction's constant in the file: what a later start
 * loads shows whether it read the cache. */
static void mark_cached_program(void)
{
	int fd = open(path, O_RDWR);
	struct stat st;
	CHECK(fd >= 0 && fstat(fd, &st) == 0);
	unsigned k = 0x5eed;
	CHECK(pwrite(fd, &k, sizeof(k), st.st_size - (off_t)sizeof(k)) == sizeof(k));
	close(fd);
}

T(cache_is_used_only_with_its_key)
{
	CHECK(setup());
	struct jail_config cfg;
	config_init(&cfg);
	struct sysfilter_prog fresh, cached, other;
	struct jail_err e = {0};
	CHECK(sysfilter_compile(&cfg, &fresh, &e) == 0);
	CHECK(compile(&cfg, &cached));
	CHECK(same(&fresh, &cached));
	CHECK(access(path, F_OK) == 0);
	/* the same key: the cache's program, not a new compile */
	mark_cached_program();
	CHECK(compile(&cfg, &cached));
	CHECK(!same(&fresh, &cached));
	CHECK_INT(cached.insns[cached.len - 1].k, 0x5eed);
	/* writable by others: not read (and compiled over) */
	mark_cached_program();
	CHECK(chmod(path, 0620) == 0);
	CHECK(compile(&cfg, &cached));
	CHECK(same(&fresh, &cached));
	/* damaged (cut short): compiled over */
	mark_cached_program();
	CHECK(truncate(path, 200) == 0);
	CHECK(compile(&cfg, &cached));
	CHECK(same(&fresh, &cached));
	/* another policy's syscalls.allow: another key */
	mark_cached_program();
	strv_push(&cfg.syscalls_allow, "keyctl");
	CHECK(compile(&cfg, &other));
	CHECK(!same(&fresh, &other));
	CHECK(sysfilter_compile(&cfg, &cached, &e) == 0);
	CHECK(same(&cached, &other));
	config_free(&cfg);
	cleanup();
}

T(no_state_dir_no_cache)
{
	struct jail_config cfg;
	config_init(&cfg);
	struct sysfilter_prog a, b;
	struct jail_err e = {0};
	CHECK(filtercache_compile(&cfg, NULL, &a, &e) == 0);
	CHECK(sysfilter_compile(&cfg, &b, &e) == 0);
	CHECK(same(&a, &b));
	config_free(&cfg);
}
