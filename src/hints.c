/* hints.c — the hints of hints.h. */
#include "hints.h"

#include "log.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static bool is_program(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

/* "~/x" for paths in the home directory: what the user would type. */
static char *tilde(const char *path)
{
	const char *home = home_dir();
	size_t n = strlen(home);
	_cleanup_free_ char *esc = escape_name(path);
	if (n > 1 && strncmp(esc, home, n) == 0 && esc[n] == '/')
		return xasprintf("~%s", esc + n);
	return xstrdup(esc);
}

static char *find_on_host(const char *cmd)
{
	if (strchr(cmd, '/'))
		return cmd[0] == '/' && is_program(cmd) ? xstrdup(cmd) : NULL;
	const char *path = getenv("PATH");
	_cleanup_free_ char *copy = xstrdup(path ? path : "");
	char *save = NULL;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (d[0] != '/')
			continue;
		char *p = xasprintf("%s/%s", d, cmd);
		if (is_program(p))
			return p;
		free(p);
	}
	return NULL;
}

/* Would the jail's PATH find it there (the system dirs are bound as they are)? */
static bool jail_searches(const char *dir)
{
	_cleanup_free_ char *copy = xstrdup(JAIL_PATH);
	char *save = NULL;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
		if (strcmp(d, dir) == 0)
			return true;
	return false;
}

/* A toolchain's own tree, which a shipped policy binds with all the tool
 * needs besides (rustup's cargo wants ~/.rustup too): that policy is the
 * hint, not a bind of the one directory.  As policies/NAME.ini bind them. */
static const char *policy_for(const char *shown)
{
	static const struct {
		const char *prefix, *policy;
	} trees[] = {
		{"~/.cargo/bin/", "rust"},
		{"~/go/bin/", "go"},
		{"/usr/local/go/bin/", "go"},
		{"~/sdk/", "go"},
		{"~/.nvm/versions/node/", "node"},
		{"~/.nvm/current/", "node"},
		{"~/.sdkman/candidates/", "java"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(trees); i++)
		if (strncmp(shown, trees[i].prefix, strlen(trees[i].prefix)) == 0)
			return trees[i].policy;
	return NULL;
}

char *hint_command_on_host(const char *cmd)
{
	_cleanup_free_ char *host = find_on_host(cmd);
	if (!host)
		return NULL;
	_cleanup_free_ char *dir = xstrdup(host);
	*strrchr(dir, '/') = '\0';
	if (!dir[0] || (!strchr(cmd, '/') && jail_searches(dir)))
		return NULL;
	_cleanup_free_ char *shown = tilde(host), *sdir = tilde(dir);
	const char *policy = policy_for(shown);
	if (policy)
		return xasprintf("; on the host it is %s: add -p %s (the %s policy binds the "
		                 "toolchain read-only and puts it on PATH)", shown, policy, policy);
	struct strbuf b = {0};
	sb_printf(&b, "; on the host it is %s: add --ro %s and run it by that path "
	          "(in a policy: [fs] ro = %s)", shown, sdir, sdir);
	/* pipx, uv and npm leave a link in ~/.local/bin to a tree elsewhere */
	char real[PATH_MAX];
	if (realpath(host, real) && strncmp(real, dir, strlen(dir)) != 0) {
		*strrchr(real, '/') = '\0';
		_cleanup_free_ char *rdir = tilde(real);
		sb_printf(&b, "; it links into %s, which needs --ro too", rdir);
	}
	return sb_steal(&b);
}

/* The nearest directory above project that holds a .git (a directory, or the
 * file of a linked worktree or submodule); NULL when the project has its own
 * or none is above.  A few stat calls: no git process on every run. */
static char *repo_above(const char *project)
{
	struct stat st;
	_cleanup_free_ char *own = xasprintf("%s/.git", project);
	if (lstat(own, &st) == 0)
		return NULL;
	_cleanup_free_ char *dir = xstrdup(project);
	for (char *slash; (slash = strrchr(dir, '/')) && slash != dir;) {
		*slash = '\0';
		_cleanup_free_ char *git = xasprintf("%s/.git", dir);
		if (lstat(git, &st) == 0)
			return steal_ptr(&dir);
	}
	return NULL;
}

/* Nested mounts under the project are not part of the overlay's lower layer. */
void hint_nested_mounts(const char *project)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return;
	char line[8192];
	size_t n = strlen(project);
	while (fgets(line, sizeof(line), f)) {
		char mp[4096];
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
			continue;
		if (strncmp(mp, project, n) == 0 && mp[n] == '/') {
			_cleanup_free_ char *esc = escape_name(mp);
			log_warn("'%s' is a separate mount inside the project; the jail shows the "
			         "directory under it, not the mounted filesystem", esc);
		}
	}
}

void hint_project_in_repo(const char *project)
{
	_cleanup_free_ char *root = repo_above(project);
	if (!root)
		return;
	_cleanup_free_ char *pe = escape_name(project), *re = escape_name(root);
	log_warn("%s is inside the git repository %s, which the jail does not show: git inside "
	         "finds no repository; use -D %s to work on the whole repository", pe, re, re);
}

char *hint_jail_line(const char *sub, const char *project, const char *session,
                     const char *rest)
{
	_cleanup_free_ char *q = hint_shell_quote(project);
	bool named = session && strcmp(session, "default") != 0;
	return xasprintf("jail %s%s-D %s%s%s%s%s", sub ? sub : "", sub ? " " : "", q,
	                 named ? " -s " : "", named ? session : "", rest[0] ? " " : "", rest);
}

char *hint_session_in_repo(const char *project)
{
	_cleanup_free_ char *root = repo_above(project);
	if (!root)
		return xstrdup("");
	_cleanup_free_ char *re = escape_name(root), *q = hint_shell_quote(root);
	return xasprintf("; the project is a subdirectory of the git repository %s: "
	                 "for its sessions add -D %s", re, q);
}

/* Root of the host, not uid 0 of a user namespace (unshare -r): the first
 * line of uid_map maps 0 to 0 over the whole range only in the initial one. */
static bool host_root(void)
{
	if (getuid() != 0)
		return false;
	_cleanup_fclose_ FILE *f = fopen("/proc/self/uid_map", "re");
	unsigned long inside, outside, count;
	return f && fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3 && inside == 0 &&
	       outside == 0 && count == 4294967295UL;
}

void hint_root(void)
{
	if (host_root())
		log_warn("running as root: the jail runs as root inside too (uid 0 mapped to "
		         "itself); run jail as your own user");
}

/* What a keyring call allowed back reaches of the host's.  The jail has a
 * session keyring of its own (keyring.c), but a key's permissions are checked
 * against the uid, which is yours inside as outside: your user keyring gives
 * its owner everything (the kernel makes it so), and a key's serial is the
 * only thing that names it.  With keyctl back, the agent finds the user
 * keyring's serial by trying them all (2^31: minutes; the masked /proc/keys
 * would have listed it), links it into its own keyring and reads, adds or
 * clears its keys; add_key alone adds keys there.  request_key of a key that
 * does not exist makes the kernel run /sbin/request-key as root in the host's
 * namespaces, with the agent's type, description and callout (keyutils maps
 * dns_resolver keys to a DNS lookup from the host's network).  Nothing per
 * namespace stops either, and a filter cannot tell the jail's serials from
 * the host's. */
void hint_keyring_allowed(const struct jail_config *cfg)
{
	static const struct {
		const char *call, *reach;
	} calls[] = {
		{"keyctl", "can read and change the keys of your user keyring"},
		{"add_key", "can add keys to your user keyring"},
		{"request_key", "makes the host run /sbin/request-key as root with its words"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(calls); i++)
		if (strv_contains(&cfg->syscalls_allow, calls[i].call))
			log_warn("%s is allowed back: the agent %s (README, Limitations)",
			         calls[i].call, calls[i].reach);
}

char *hint_shell_quote(const char *s)
{
	_cleanup_free_ char *esc = escape_name(s);
	if (*esc && strspn(esc, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	                        "0123456789_./:@%+=,-") == strlen(esc))
		return steal_ptr(&esc);
	struct strbuf b = {0};
	sb_puts(&b, "'");
	for (const char *p = esc; *p; p++)
		if (*p == '\'')
			sb_puts(&b, "'\\''");
		else
			sb_append(&b, p, 1);
	sb_puts(&b, "'");
	return sb_steal(&b);
}

struct num_text thousands(size_t n)
{
	struct num_text t;
	char raw[24];
	int len = snprintf(raw, sizeof(raw), "%zu", n);
	size_t o = 0;
	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			t.s[o++] = ',';
		t.s[o++] = raw[i];
	}
	t.s[o] = '\0';
	return t;
}
