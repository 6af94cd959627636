/* userns.c — why this host (or the sandbox jail runs in) refuses a user
 * namespace, in one line with the fix.  jail is often run inside something
 * else (a CI runner, a container, another sandbox); each layer refuses in its
 * own way, and "not allowed" alone leaves the user guessing. */
#include "userns.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

long sysctl_long(const char *path)
{
	_cleanup_free_ char *s = NULL;
	struct jail_err e;
	if (read_file_at(AT_FDCWD, path, 64, &s, NULL, &e) < 0)
		return -1;
	return atol(s);
}

/* "Seccomp: 2" in /proc/self/status: a filter is on this process (a
 * container's profile, another sandbox). */
static bool under_seccomp_filter(void)
{
	_cleanup_free_ char *s = NULL;
	struct jail_err e;
	if (read_file_at(AT_FDCWD, "/proc/self/status", 65536, &s, NULL, &e) < 0)
		return false;
	const char *p = strstr(s, "\nSeccomp:");
	return p && atoi(p + strlen("\nSeccomp:")) == 2;
}

char *apparmor_label(void)
{
	_cleanup_free_ char *s = NULL;
	struct jail_err e;
	if (read_file_at(AT_FDCWD, "/proc/self/attr/apparmor/current", 4096, &s, NULL, &e) < 0 &&
	    read_file_at(AT_FDCWD, "/proc/self/attr/current", 4096, &s, NULL, &e) < 0)
		return NULL;
	s[strcspn(s, "\n")] = '\0';
	if (!s[0])
		return NULL;
	char *out = s;
	s = NULL;
	return out;
}

static bool apparmor_restricts(void)
{
	if (sysctl_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") != 1)
		return false;
	_cleanup_free_ char *label = apparmor_label();
	return !label || strncmp(label, "jail ", 5) != 0;
}

const char *userns_blocker(int err)
{
	if (sysctl_long("/proc/sys/kernel/unprivileged_userns_clone") == 0)
		return "kernel.unprivileged_userns_clone is 0; fix: sysctl -w "
		       "kernel.unprivileged_userns_clone=1 (and in /etc/sysctl.d/)";
	if (sysctl_long("/proc/sys/user/max_user_namespaces") == 0)
		return "user.max_user_namespaces is 0; fix: sysctl -w user.max_user_namespaces=15000 "
		       "(and in /etc/sysctl.d/)";
	if (err == ENOSPC || err == EUSERS)
		return "no user namespace may be nested here: jail runs inside a sandbox that forbids "
		       "it (bwrap --disable-userns, a container's user.max_user_namespaces) or the "
		       "limit is used up; fix: let the outer layer allow nested user namespaces, or "
		       "run jail outside it";
	if (apparmor_restricts())
		return "AppArmor restricts unprivileged user namespaces (Ubuntu >= 23.10) and jail "
		       "runs without its profile; fix: cp /usr/share/jail/apparmor/jail "
		       "/etc/apparmor.d/ && apparmor_parser -r /etc/apparmor.d/jail (as root)";
	if (err == EPERM && under_seccomp_filter())
		return "a seccomp filter refuses new namespaces (a container's seccomp profile); fix: "
		       "run the container with a profile that allows unshare and clone with "
		       "CLONE_NEWUSER (podman/docker: --security-opt seccomp=unconfined, or "
		       "Kubernetes: a pod with hostUsers: false)";
	if (err == EINVAL)
		return "the kernel has no user namespaces (CONFIG_USER_NS); fix: a kernel built "
		       "with them";
	return "unprivileged user namespaces are not allowed here (a chroot, or a container "
	       "without them); fix: run 'jail doctor' and allow them";
}

/* One mountinfo line's mount point (field 5, octal escapes left as they are). */
static bool mount_point(const char *line, const char **at, size_t *len)
{
	const char *p = line;
	for (int field = 0; field < 4; field++) {
		p = strchr(p, ' ');
		if (!p)
			return false;
		p++;
	}
	*at = p;
	*len = strcspn(p, " \n");
	return true;
}

char *proc_masked_paths(const char *proc)
{
	_cleanup_free_ char *info = NULL;
	struct jail_err e;
	_cleanup_free_ char *path = xasprintf("%s/self/mountinfo", proc);
	if (read_file_at(AT_FDCWD, path, 4 << 20, &info, NULL, &e) < 0)
		return NULL;
	size_t plen = strlen(proc);
	struct strbuf out = {0};
	int found = 0;
	for (const char *line = info; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *at;
		size_t len;
		if (!mount_point(line, &at, &len) || len <= plen + 1 || strncmp(at, proc, plen) ||
		    at[plen] != '/')
			continue;
		const char *rel = at + plen;
		if (!strncmp(rel, "/sys/fs/binfmt_misc", len - plen))
			continue;
		if (found++ < 3)
			sb_printf(&out, "%s/proc%.*s", found > 1 ? ", " : "", (int)(len - plen), rel);
	}
	if (found > 3)
		sb_printf(&out, ", ...");
	return found ? sb_steal(&out) : NULL;
}
