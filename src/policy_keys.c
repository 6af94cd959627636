/* policy_keys.c — the table of policy keys and the checks of their values.
 *
 * Every key a policy file or a flag can set is one row here: section, name, the
 * type of value, the check that validates (and normalizes) one value, and the
 * help text.  policy.c parses; this file decides what a value may be.
 */
#include "policy_keys.h"
#include "broker.h"

#include "allow.h"
#include "pathrules.h"
#include "sysfilter.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#define F(f) offsetof(struct jail_config, f)

static const struct policy_key keys[] = {
	{"fs", "ro", "fs.ro", "--ro", K_LIST, F(ro_binds), check_path, true, "PATH", "host paths bound read-only at the same path"},
	{"fs", "rw", "fs.rw", "--rw", K_LIST, F(rw_binds), check_path, true, "PATH", "host paths bound read-write"},
	{"fs", "cow", "fs.cow", "--cow", K_LIST, F(cow_binds), check_path, true, "PATH", "host directories seen copy-on-write: read from the host, written in the session (caches: ~/.npm)"},
	{"fs", "hide", "fs.hide", "--hide", K_LIST, F(hide), check_glob, true, "PATTERN", "more project paths hidden from the jail"},
	{"fs", "show_ignored", "fs.show_ignored", "--show", K_LIST, F(show_ignored), check_glob, true, "PATTERN", "git-ignored project paths shown anyway"},
	{"fs", "hide_ignored", "fs.hide_ignored", "--hide-ignored", K_HIDE, F(hide_ignored), NULL, false, "all|secrets|none", "which git-ignored project paths are hidden"},
	{"fs", "secret_names", "fs.secret_names", "--secret-name", K_LIST, F(secret_names), check_glob, true, "PATTERN", "secret-shaped names hidden even when ignored paths are shown, and in projects without git"},
	{"fs", "hide_start_only", "fs.hide_start_only", "--hide-start-only", K_BOOL, F(hide_start_only), NULL, false, "BOOL", "hide ignored files as they are at start only: files that appear on the host during the run are visible"},
	{"fs", "tmpfs", "fs.tmpfs", "--tmpfs", K_LIST, F(tmpfs), check_path, true, "PATH", "empty tmpfs mounts"},
	{"home", "mode", "home.mode", "--home", K_HOME, F(home), NULL, false, "fresh|persistent", "a fresh fake home per run, or one kept per session"},
	{"home", "copy", "home.copy", "--copy", K_LIST, F(home_copy), check_home_path, true, "~/PATH", "host files or dirs copied into the fake home at start"},
	{"env", "pass", "env.pass", "--env", K_LIST, F(env_pass), check_env_name, true, "NAME", "host variables passed in when set"},
	{"env", "path", "env.path", "--path", K_LIST, F(env_path), check_path, true, "DIR", "directories put before the default PATH (toolchains in the home: ~/.cargo/bin)"},
	{"env", "set", "env.set", "--setenv", K_LIST, F(env_set), check_env_set, false, "NAME=VALUE", "variables set in the jail"},
	{"secrets", "NAME", "secrets", "--secret", K_SECRETS, F(secrets), check_secret, false, "env:VAR|file:PATH|cmd:COMMAND|broker:SOURCE for HOST", "secrets as variables or files in the fake home, or brokered: a placeholder inside, the real value added on the way to HOST"},
	{"net", "mode", "net.mode", "--net", K_NET, F(net), NULL, false, "none|allow|open", "no network, an allowlist, or unfiltered"},
	{"net", "allow", "net.allow", "--allow", K_LIST, F(allow), check_host_port, true, "HOST:PORT", "destinations allowed with mode = allow"},
	{"net", "dns_upstream", "net.dns_upstream", "--dns-upstream", K_STRING, F(dns_upstream), check_dns, false, "ADDR[:PORT]", "resolver for allowed names"},
	{"net", "publish", "net.publish", "--publish", K_LIST, F(publish), check_publish, true, "PORT[:HOSTPORT]", "ports of the jail reachable from host loopback"},
	{"export", "deny", "export.deny", "--export-deny", K_LIST, F(export_deny), check_glob, true, "PATTERN", "more paths left out of the patch"},
	{"export", "allow", "export.allow", "--export-allow", K_LIST, F(export_allow), check_export_allow, true, "PATTERN", "default left-out paths let through again"},
	{"export", "binary", "export.binary", "--allow-binary", K_BOOL, F(export_binary), NULL, false, "BOOL", "export binary files too"},
	{"export", "max_size", "export.max_size", "--max-size", K_SIZE, F(export_max_size), NULL, false, "SIZE", "largest file exported"},
	{"export", "series", "export.series", "--squash", K_BOOL, F(export_series), NULL, false, "BOOL", "the agent's commits as one patch each (false: one patch)"},
	{"export", "trailer", "export.trailer", "--no-trailer", K_BOOL, F(export_trailer), NULL, false, "BOOL", "a Jail-Session: trailer on each patch"},
	{"syscalls", "allow", "syscalls.allow", "--allow-syscall", K_LIST, F(syscalls_allow), check_syscall, true, "NAME", "refused system calls allowed back"},
	{"limits", "memory", "limits.memory", "--memory", K_SIZE, F(memory), NULL, false, "SIZE|none", "memory limit"},
	{"limits", "pids", "limits.pids", "--pids", K_COUNT, F(pids), NULL, false, "N|none", "process limit"},
	{"limits", "cpus", "limits.cpus", "--cpus", K_CPUS, F(cpus), NULL, false, "N|none", "CPU limit, in CPUs"},
	{"limits", "disk", "limits.disk", "--disk", K_SIZE, F(disk), NULL, false, "SIZE|none", "disk space one run may add to the session"},
	{"limits", "disk_inodes", "limits.disk_inodes", "--disk-inodes", K_COUNT, F(disk_inodes), NULL, false, "N|none", "files one run may add (default with disk: one per KiB of it)"},
};

const char *const policy_sections[] = {"fs", "home", "env", "secrets", "net", "export",
                                       "syscalls", "limits", NULL};

size_t policy_key_count(void) { return ARRAY_SIZE(keys); }
const struct policy_key *policy_key(size_t i) { return &keys[i]; }

void policy_key_at(size_t i, const char **section, const char **name)
{
	*section = keys[i].section;
	*name = keys[i].name;
}

const struct policy_key *policy_key_find(const char *section, const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if (strcmp(keys[i].section, section) != 0)
			continue;
		if (keys[i].type == K_SECRETS || strcmp(keys[i].name, name) == 0)
			return &keys[i];
	}
	return NULL;
}

bool policy_section_known(const char *s)
{
	for (size_t i = 0; policy_sections[i]; i++)
		if (strcmp(policy_sections[i], s) == 0)
			return true;
	return false;
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* A '/'-separated relative path with no empty, "." or ".." component. */
static bool clean_relative(const char *s)
{
	if (!*s || *s == '/')
		return false;
	for (const char *c = s; *c;) {
		size_t n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c += n;
		if (*c == '/')
			c++;
		if (*c == '\0' && c[-1] == '/')
			return false;
	}
	return true;
}

int check_path(const char *in, char **out, struct jail_err *e)
{
	if (has_control(in))
		return jail_err_set(e, 0, "control characters in a path");
	_cleanup_free_ char *p = expand_home(in);
	size_t n = strlen(p);
	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	if (p[0] != '/')
		return jail_err_set(e, 0, "'%s': expected an absolute path or ~/PATH", in);
	if (p[1] && !clean_relative(p + 1))
		return jail_err_set(e, 0, "'%s': empty, '.' or '..' path components", in);
	*out = steal_ptr(&p);
	return 0;
}

int check_home_path(const char *in, char **out, struct jail_err *e)
{
	_cleanup_free_ char *p = NULL;
	if (check_path(in, &p, e) < 0)
		return -1;
	const char *home = home_dir();
	size_t hl = strlen(home);
	while (hl > 1 && home[hl - 1] == '/')
		hl--;
	if (strncmp(p, home, hl) != 0 || p[hl] != '/' || !p[hl + 1])
		return jail_err_set(e, 0, "'%s' is not below the home directory; use [fs] ro for other paths", in);
	*out = steal_ptr(&p);
	return 0;
}

/* fnmatch-style: '\' escapes one character, '[' needs its ']'. */
int check_glob(const char *in, char **out, struct jail_err *e)
{
	if (!*in || has_control(in))
		return jail_err_set(e, 0, "'%s': an empty pattern or control characters", in);
	for (const char *c = in; *c; c++) {
		if (*c == '\\') {
			if (!*++c)
				return jail_err_set(e, 0, "bad pattern '%s': ends in a lone '\\'", in);
		} else if (*c == '[') {
			const char *d = c + 1;
			if (*d == '!' || *d == '^')
				d++;
			if (*d == ']')
				d++;
			while (*d && *d != ']')
				d++;
			if (!*d)
				return jail_err_set(e, 0, "bad pattern '%s': '[' without its ']'", in);
			c = d;
		}
	}
	*out = xstrdup(in);
	return 0;
}

/* Only a default left-out pattern can be let through again, named exactly as
 * the exporter's list has it (`jail status` shows them). */
int check_export_allow(const char *in, char **out, struct jail_err *e)
{
	struct strbuf known = {0};
	for (size_t i = 0; i < pathrules_ndefaults; i++) {
		if (strcmp(in, pathrules_defaults[i].pattern) == 0) {
			sb_free(&known);
			*out = xstrdup(in);
			return 0;
		}
		sb_printf(&known, "%s%s", i ? " " : "", pathrules_defaults[i].pattern);
	}
	jail_err_set(e, 0, "'%s' is not one of the default left-out patterns: %s", in,
	             known.s ? known.s : "");
	sb_free(&known);
	return -1;
}

static bool env_name_ok(const char *s, size_t n)
{
	if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

int check_env_name(const char *in, char **out, struct jail_err *e)
{
	/* -e NAME=VALUE: the user meant to set it, which is another option */
	if (strchr(in, '=') && env_name_ok(in, strcspn(in, "=")))
		return jail_err_set(e, 0, "'%s' is not a variable name: this passes a host variable "
		                    "by NAME; set a value with --setenv NAME=VALUE ([env] set)", in);
	if (!env_name_ok(in, strlen(in)))
		return jail_err_set(e, 0, "'%s' is not a variable name (letters, digits, '_')", in);
	*out = xstrdup(in);
	return 0;
}

int check_env_set(const char *in, char **out, struct jail_err *e)
{
	const char *eq = strchr(in, '=');
	if (!eq || !env_name_ok(in, (size_t)(eq - in)))
		return jail_err_set(e, 0, "'%s': expected NAME=VALUE", in);
	*out = xstrdup(in);
	return 0;
}

static int parse_port(const char *s, struct jail_err *e, const char *what)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 65535 || s[0] == '+' || s[0] == '-')
		return jail_err_set(e, 0, "'%s': expected a port 1-65535 in %s", s, what);
	return (int)v;
}

/* HOST:PORT through the network module's own parser, so that a policy accepts
 * exactly what the allowlist understands. */
int check_host_port(const char *in, char **out, struct jail_err *e)
{
	struct strv one = {0};
	struct allow_list l = {0};
	strv_push(&one, in);
	int rc = allow_parse(&one, &l, e);
	strv_free(&one);
	allow_free(&l);
	if (rc < 0)
		return -1;  /* its message names the flag: "--allow X: ..." */
	*out = xstrdup(in);
	return 0;
}

/* ADDR or ADDR:PORT, IPv6 as [ADDR]:PORT or bare, as the DNS filter reads it. */
int check_dns(const char *in, char **out, struct jail_err *e)
{
	struct sockaddr_storage ss;
	socklen_t len;
	if (addr_port_parse(in, 53, &ss, &len, e) < 0)
		return -1;
	*out = xstrdup(in);
	return 0;
}

int check_publish(const char *in, char **out, struct jail_err *e)
{
	_cleanup_free_ char *a = xstrdup(in);
	char *colon = strchr(a, ':');
	if (colon)
		*colon = '\0';
	if (parse_port(a, e, "PORT[:HOSTPORT]") < 0 ||
	    (colon && parse_port(colon + 1, e, "PORT[:HOSTPORT]") < 0))
		return -1;
	*out = xstrdup(in);
	return 0;
}

int check_syscall(const char *in, char **out, struct jail_err *e)
{
	size_t n = strlen(in);
	if (n == 0 || n > 63 || strspn(in, "abcdefghijklmnopqrstuvwxyz0123456789_") != n)
		return jail_err_set(e, 0, "'%s' is not a system call name", in);
	/* the filter's own lookup (libseccomp), so that a typo fails here with file:line */
	struct jail_config one = {0};
	strv_push(&one.syscalls_allow, in);
	struct jail_err se = {0};
	int rc = sysfilter_check_config(&one, &se);
	strv_free(&one.syscalls_allow);
	if (rc < 0)
		return jail_err_set(e, 0, "'%s' is not a system call of this machine", in);
	*out = xstrdup(in);
	return 0;
}

/* NAME is a variable name or ~/PATH (a file in the fake home). */
int check_secret_name(const char *name, struct jail_err *e)
{
	if (name[0] == '~') {
		if (name[1] != '/' || has_control(name) || !clean_relative(name + 2))
			return jail_err_set(e, 0, "secret '%s': a file must be ~/PATH without '.', '..' or empty parts", name);
		return 0;
	}
	if (!env_name_ok(name, strlen(name)))
		return jail_err_set(e, 0, "secret '%s': expected a variable name or ~/PATH", name);
	return 0;
}

static int check_source(const char *name, const char *src, struct jail_err *e);

/* broker:SOURCE for HOST[,HOST] [in HEADER[,HEADER]], for a variable. */
static int check_brokered(const char *name, const char *src, struct jail_err *e)
{
	struct broker_spec spec;
	if (name[0] == '~')
		return jail_err_set(e, 0, "secret %s: a brokered secret must be a variable", name);
	if (broker_spec_parse(name, src, &spec, e) < 0)
		return -1;
	int r = check_source(name, spec.source, e);
	broker_spec_free(&spec);
	return r;
}

/* NAME=SOURCE, SOURCE env:VAR, file:PATH, cmd:COMMAND or broker:... */
int check_secret(const char *in, char **out, struct jail_err *e)
{
	const char *eq = strchr(in, '=');
	if (!eq)
		return jail_err_set(e, 0, "secret '%s': expected NAME=SOURCE", in);
	_cleanup_free_ char *name = strndup(in, (size_t)(eq - in));
	if (check_secret_name(name, e) < 0)
		return -1;
	const char *src = eq + 1;
	if ((broker_is_spec(src) ? check_brokered(name, src, e) : check_source(name, src, e)) < 0)
		return -1;
	*out = xstrdup(in);
	return 0;
}

static int check_source(const char *name, const char *src, struct jail_err *e)
{
	_cleanup_free_ char *tmp = NULL;
	if (strncmp(src, "env:", 4) == 0) {
		if (check_env_name(src + 4, &tmp, e) < 0)
			return jail_err_wrap(e, "secret %s", name);
	} else if (strncmp(src, "file:", 5) == 0) {
		if (check_path(src + 5, &tmp, e) < 0)
			return jail_err_wrap(e, "secret %s", name);
	} else if (strncmp(src, "cmd:", 4) == 0) {
		if (!src[4] || has_control(src + 4))
			return jail_err_set(e, 0, "secret %s: an empty command or control characters", name);
	} else {
		return jail_err_set(e, 0, "secret %s: expected env:VAR, file:PATH, cmd:COMMAND or "
		                          "broker:SOURCE for HOST", name);
	}
	return 0;
}

/* "4G", "512M", "100k", "1000", with an optional B; "none" → 0 when allowed. */
int policy_parse_size(const char *s, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || v < 0 || s[0] == '-' || s[0] == '+' || s[0] == ' ')
		return -1;
	long long mul = 1;
	switch (*end) {
	case 'k': case 'K': mul = 1LL << 10; end++; break;
	case 'm': case 'M': mul = 1LL << 20; end++; break;
	case 'g': case 'G': mul = 1LL << 30; end++; break;
	case 't': case 'T': mul = 1LL << 40; end++; break;
	default: break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v > (1LL << 62) / mul)
		return -1;
	*out = v * mul;
	return 0;
}

int policy_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1"}, *const no[] = {"false", "no", "off", "0"};
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return *out = true, 0;
		if (strcasecmp(s, no[i]) == 0)
			return *out = false, 0;
	}
	return -1;
}
