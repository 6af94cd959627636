/* filtercache.c — the compiled syscall filter, kept between runs (filtercache.h). */
#include "filtercache.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Everything the compiled program depends on, one line each. */
static char *cache_key(const struct jail_config *cfg)
{
	struct stat exe;
	struct utsname u;
	/* without the binary's identity there is no telling whose rules it was */
	if (stat("/proc/self/exe", &exe) < 0 || uname(&u) < 0)
		return NULL;
	char stamp[FILE_STAMP_MAX];
	stat_stamp(&exe, stamp);
	const struct scmp_version *v = seccomp_version();
	struct strbuf b = {0};
	sb_printf(&b, "jail-filter-cache-1\nexe %lu:%s\nlibseccomp %u.%u.%u\n",
	          (unsigned long)exe.st_dev, stamp, v ? v->major : 0, v ? v->minor : 0,
	          v ? v->micro : 0);
	sb_printf(&b, "kernel %s %s %s\nids %u %u\nallow", u.release, u.version, u.machine,
	          (unsigned)getuid(), (unsigned)getgid());
	for (size_t i = 0; cfg && i < cfg->syscalls_allow.n; i++)
		sb_printf(&b, " %s", cfg->syscalls_allow.v[i]);
	sb_puts(&b, "\n");
	return sb_steal(&b);
}

/* The file's whole content when it is the caller's own, written by no one
 * else, and of a size a cache can have; else NULL. */
static char *read_own(const char *path, size_t max, size_t *len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 022) || st.st_size <= 0 || (size_t)st.st_size > max)
		return NULL;
	char *buf = xmalloc((size_t)st.st_size + 1);
	size_t n = 0;
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The key, "len N\n", then N instructions as they are in memory. */
static bool cache_load(const char *path, const char *key, struct sysfilter_prog *out)
{
	size_t kl = strlen(key), n = 0;
	_cleanup_free_ char *buf = read_own(path, kl + 32 + sizeof(out->insns), &n);
	if (!buf || n < kl || memcmp(buf, key, kl) != 0)
		return false;
	/* (not sscanf: its "\n" would skip a program that starts with blanks) */
	const char *at = buf + kl;
	char *end = NULL;
	if (strncmp(at, "len ", 4) != 0)
		return false;
	unsigned long len = strtoul(at + 4, &end, 10);
	if (end == at + 4 || *end != '\n' || len == 0 || len > SYSFILTER_MAX_INSNS ||
	    n - (size_t)(end + 1 - buf) != len * sizeof(out->insns[0]))
		return false;
	memcpy(out->insns, end + 1, len * sizeof(out->insns[0]));
	out->len = (unsigned short)len;
	return true;
}

static void cache_store(const char *path, const char *key, const struct sysfilter_prog *p)
{
	struct strbuf b = {0};
	sb_puts(&b, key);
	sb_printf(&b, "len %u\n", (unsigned)p->len);
	sb_append(&b, (const char *)p->insns, p->len * sizeof(p->insns[0]));
	/* a name of this process's own, renamed over the cache whole */
	_cleanup_free_ char *tmp = xasprintf("%s.%d", path, (int)getpid());
	struct jail_err e = {0};
	if (write_file_at(AT_FDCWD, tmp, b.s, b.len, 0600, &e) < 0 || rename(tmp, path) < 0) {
		log_debug("keep the compiled syscall filter: %s", e.msg[0] ? e.msg : strerror(errno));
		unlink(tmp);
	}
	sb_free(&b);
}

int filtercache_compile(const struct jail_config *cfg, const char *state_root,
                        struct sysfilter_prog *out, struct jail_err *e)
{
	if (sysfilter_check_config(cfg, e) < 0)
		return -1;
	_cleanup_free_ char *key = state_root ? cache_key(cfg) : NULL;
	_cleanup_free_ char *path = key ? xasprintf("%s/filter.cache", state_root) : NULL;
	if (path && cache_load(path, key, out)) {
		log_debug("seccomp: the filter compiled before (%u instructions)", (unsigned)out->len);
		return 0;
	}
	if (sysfilter_compile(cfg, out, e) < 0)
		return -1;
	if (path)
		cache_store(path, key, out);
	return 0;
}
