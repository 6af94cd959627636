/* Unit tests: policy.c, policy_keys.c, secrets.c, gitidentity.c. */
#include "t.h"
#include "policy.h"
#include "policy_keys.h"
#include "secrets.h"

#include <fcntl.h>
#include <sys/stat.h>

static struct jail_err err;

/* A policy with the embedded default, then text as "t.ini". */
static int load(struct policy *p, const char *text)
{
	policy_init(p);
	memset(&err, 0, sizeof(err));
	extern const char embedded_default_policy[];
	if (policy_load_text(p, "<embedded default.ini>", embedded_default_policy, &err) < 0)
		return -2;
	return policy_load_text(p, "t.ini", text, &err);
}

/* The error a text alone gives ("" when it loads). */
static const char *error_of(const char *text)
{
	struct policy p;
	int rc = load(&p, text);
	policy_free(&p);
	return rc < 0 ? err.msg : "";
}

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/jail-unit.XXXXXX";
	return xstrdup(mkdtemp(tmpl));
}

/* Remove a temp dir of tmpdir() and free its name. */
static void drop(char *dir)
{
	struct jail_err e;
	if (rm_rf_at(AT_FDCWD, dir, &e) < 0)
		fprintf(stderr, "  %s\n", e.msg);
	free(dir);
}

static void put(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	struct jail_err e;
	if (write_file_at(AT_FDCWD, path, text, strlen(text), 0644, &e) < 0)
		fprintf(stderr, "  write %s: %s\n", path, e.msg);
	free(path);
}

static char *shown(const struct policy *p)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	policy_print(p, f);
	fclose(f);
	return buf;
}

T(embedded_default_loads_closed)
{
	struct policy p;
	CHECK_INT(load(&p, ""), 0);
	CHECK_INT(p.cfg.net, NET_NONE);
	CHECK_INT(p.cfg.home, HOME_FRESH);
	CHECK_INT(p.cfg.allow.n, 0);
	CHECK_INT(p.cfg.ro_binds.n, 0);
	CHECK_INT(p.cfg.export_max_size, 5 * 1024 * 1024);
	CHECK(!p.cfg.export_binary);
	policy_free(&p);
}

T(later_layer_wins_and_lists_replace_or_append)
{
	struct policy p;
	CHECK_INT(load(&p, "[net]\nmode = allow\nallow = a.example:443, b.example:80\n"
	                   "[fs]\nro = /usr/share\n"), 0);
	CHECK_INT(policy_load_text(&p, "u.ini", "[net]\nallow += c.example:443\nmode = open\n"
	                                        "[fs]\nro = /opt\n", &err), 0);
	CHECK_INT(p.cfg.net, NET_OPEN);
	CHECK_INT(p.cfg.allow.n, 3);
	CHECK_STR(p.cfg.allow.v[0], "a.example:443");
	CHECK_STR(p.cfg.allow.v[2], "c.example:443");
	size_t allow_i = (size_t)(policy_key_find("net", "allow") - policy_key(0));
	CHECK_STR(p.item_origin[allow_i].v[2], "u.ini:2");
	CHECK_INT(p.cfg.ro_binds.n, 1);
	CHECK_STR(p.cfg.ro_binds.v[0], "/opt");
	CHECK_STR(p.item_origin[0].v[0], "u.ini:5");
	policy_free(&p);
}

T(byte_order_mark_and_crlf_are_fine)
{
	struct policy p;
	CHECK_INT(load(&p, "\xef\xbb\xbf[net]\r\nmode = allow\r\nallow = a.example:443 ; the API\r\n"), 0);
	CHECK_STR(err.msg, "");
	CHECK_INT(p.cfg.net, NET_ALLOW);
	CHECK_INT(p.cfg.allow.n, 1);
	if (p.cfg.allow.n == 1)
		CHECK_STR(p.cfg.allow.v[0], "a.example:443");
	policy_free(&p);
}

T(empty_value_clears_a_list)
{
	struct policy p;
	CHECK_INT(load(&p, "[env]\npass = A, B\npass =\n"), 0);
	CHECK_INT(p.cfg.env_pass.n, 0);
	policy_free(&p);
}

T(indented_line_is_not_a_continuation)
{
	struct policy p;
	CHECK_INT(load(&p, "[net]\nallow = a.example:443\n    mode = allow\n"), 0);
	CHECK_INT(p.cfg.allow.n, 1);
	CHECK_INT(p.cfg.net, NET_ALLOW);
	policy_free(&p);
}

/* What a reader of the file would not see as jail reads it is refused: a
 * carriage return inside a line, an escape sequence, a C1 control, a bidi
 * override, a NUL (which ended the file), bytes that are not UTF-8.  A CRLF
 * line end, a BOM, a tab and UTF-8 text load. */
T(text_that_hides_from_a_reader_refused)
{
	static const char *const bad[] = {
		"[net]\nmode = open ;\rmode = none\n", "[net]\nmode = open ;\033[2Kmode = none\n",
		"[fs]\nro = /usr ;\302\233x\n", "[fs]\nro = /usr ;\342\200\256x\n",
		"[fs]\nro = /caf\351\n", "[fs]\nro = /usr\x7f\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK(strstr(error_of(bad[i]), "t.ini:2: ") == error_of(bad[i]));
	CHECK_STR(error_of("[fs]\nro = /usr ;\033x\n"),
	          "t.ini:2: a control, invisible or bidirectional character at column 12, which can hide text from a reader; remove it");
	struct policy p;
	policy_init(&p);
	static const char nul[] = "[fs]\nro = /usr\n\0[net]\nmode = open\n";
	CHECK_INT(policy_load_buf(&p, "n.ini", nul, sizeof(nul) - 1, &err), -1);
	CHECK(strstr(err.msg, "n.ini:3: a control") == err.msg);
	policy_free(&p);
	CHECK_STR(error_of("\357\273\277; caf\303\251\r\n[net]\r\nmode\t= allow\r\n"), "");
}

/* A later layer's ro/rw/cow of a path replaces the earlier way. */
T(later_layer_decides_how_a_path_is_bound)
{
	struct policy p;
	CHECK_INT(load(&p, "[fs]\nrw = /srv/a, /srv/b\nro = /srv/a\ncow = /srv/b\n"), 0);
	CHECK_INT(p.cfg.rw_binds.n, 0);
	CHECK_INT(p.cfg.ro_binds.n, 1);
	CHECK_STR(p.cfg.ro_binds.v[0], "/srv/a");
	CHECK_INT(p.cfg.cow_binds.n, 1);
	CHECK_STR(p.item_origin[0].v[0], "t.ini:3");
	policy_free(&p);
}

T(errors_name_file_and_line)
{
	CHECK_STR(error_of("[fs]\nro = /usr\n[bogus]\n"),
	          "t.ini:3: unknown section [bogus]; sections are fs, home, env, secrets, net, export, syscalls, limits (see jail.ini(5))");
	CHECK_STR(error_of("[net]\n\nmdoe = allow\n"), "t.ini:3: unknown key 'mdoe' in [net] (see jail.ini(5))");
	CHECK_STR(error_of("[net]\nmode = maybe\n"), "t.ini:2: net.mode = maybe: expected none|allow|open");
	CHECK_STR(error_of("[net]\nmode += open\n"),
	          "t.ini:2: net.mode takes one value; use '=' ('+=' is for lists)");
	CHECK_STR(error_of("[fs]\nhide = a[b\n"), "t.ini:2: fs.hide: bad pattern 'a[b': '[' without its ']'");
	CHECK_STR(error_of("[fs]\nro = relative/path\n"),
	          "t.ini:2: fs.ro: 'relative/path': expected an absolute path or ~/PATH");
	CHECK_STR(error_of("[fs]\nro = /a/../etc\n"),
	          "t.ini:2: fs.ro: '/a/../etc': empty, '.' or '..' path components");
	CHECK_STR(error_of("[net]\nallow = example.com\n"),
	          "t.ini:2: net.allow: example.com: expected HOST:PORT (port 1-65535; IPv6 as [ADDR]:PORT)");
	CHECK_STR(error_of("[net]\nallow = example.com:99999\n"),
	          "t.ini:2: net.allow: example.com:99999: expected HOST:PORT (port 1-65535; IPv6 as [ADDR]:PORT)");
	CHECK_STR(error_of("[net]\ndns_upstream = dns.example\n"),
	          "t.ini:2: net.dns_upstream: 'dns.example': not an IP address");
	CHECK_STR(error_of("[limits]\nmemory = lots\n"), "t.ini:2: limits.memory = lots: expected SIZE|none");
	CHECK_STR(error_of("[fs]\njust words\n"), "t.ini:2: expected 'key = value', 'key += value' or '[section]'");
	CHECK(strncmp(error_of("[export]\nallow = *.c\n"),
	              "t.ini:2: export.allow: '*.c' is not one of the default left-out patterns: .envrc .direnv/", 82) == 0);
	CHECK_STR(error_of("[export]\nallow = node_modules/, .vscode/settings.json\n"), "");
	CHECK_STR(error_of("[syscalls]\nallow = perf_event_open, bpff\n"),
	          "t.ini:2: syscalls.allow: 'bpff' is not a system call of this machine");
	CHECK_STR(error_of("[fs\n"), "t.ini:1: expected ']' to close the section name");
	CHECK_STR(error_of("[secrets]\nTOKEN = plain-text\n"),
	          "t.ini:2: secret TOKEN: expected env:VAR, file:PATH, cmd:COMMAND or broker:SOURCE for HOST");
	CHECK_STR(error_of("[secrets]\n~/../x = env:A\n"),
	          "t.ini:2: secret '~/../x': a file must be ~/PATH without '.', '..' or empty parts");
	CHECK_STR(error_of("[env]\nset = 1X=y\n"), "t.ini:2: env.set: '1X=y': expected NAME=VALUE");
	CHECK_STR(error_of("frobnicate = 1\n"),
	          "t.ini:1: unknown key 'frobnicate' before any section (only include and description)");
}

T(error_messages_escape_what_the_file_holds)
{
	/* refused by the line (which echoes none of it), before any key's check */
	CHECK_STR(error_of("[fs]\nhide = \x1b[31m\n"),
	          "t.ini:2: a control, invisible or bidirectional character at column 8, which can hide text from a reader; remove it");
}

T(long_lines_are_refused_not_truncated)
{
	char line[400];
	memset(line, 'a', sizeof(line));
	memcpy(line, "[net]\nallow = ", 14);
	memcpy(line + sizeof(line) - 5, ":443", 5);
	const char *m = error_of(line);
	CHECK(strncmp(m, "t.ini:2: line longer than", 25) == 0);
}

T(values_are_normalized)
{
	struct policy p;
	setenv("HOME", "/home/someone", 1);
	CHECK_STR(error_of("[fs]\nro = /srv//x\n"), "t.ini:2: fs.ro: '/srv//x': empty, '.' or '..' path components");
	CHECK_INT(load(&p, "[fs]\nro = ~/tools/\n[home]\ncopy = ~/.claude.json\n"), 0);
	CHECK_STR(p.cfg.ro_binds.v[0], "/home/someone/tools");
	CHECK_STR(p.cfg.home_copy.v[0], "/home/someone/.claude.json");
	policy_free(&p);
	CHECK_STR(error_of("[home]\ncopy = /etc/passwd\n"),
	          "t.ini:2: home.copy: '/etc/passwd' is not below the home directory; use [fs] ro for other paths");
}

T(sizes_counts_bools)
{
	struct policy p;
	CHECK_INT(load(&p, "[limits]\nmemory = 4G\npids = 512\ncpus = 1.5\n"
	                   "[export]\nbinary = yes\nmax_size = 100k\n"), 0);
	CHECK_INT(p.cfg.memory, 4LL << 30);
	CHECK_INT(p.cfg.pids, 512);
	CHECK(p.cfg.cpus == 1.5);
	CHECK(p.cfg.export_binary);
	CHECK_INT(p.cfg.export_max_size, 100 << 10);
	CHECK_INT(policy_load_text(&p, "u.ini", "[limits]\nmemory = none\n", &err), 0);
	CHECK_INT(p.cfg.memory, 0);
	policy_free(&p);
}

T(brokered_secret_parses_and_shows_redacted)
{
	struct policy p;
	CHECK_INT(load(&p, "[secrets]\nK = broker:cmd:echo sk-live-456 for api.example.com in X-Key\n"), 0);
	CHECK_INT(p.cfg.secrets.n, 1);
	char *s = shown(&p);
	CHECK(strstr(s, "K = broker:cmd:<redacted> for api.example.com in X-Key") != NULL);
	CHECK(strstr(s, "sk-live-456") == NULL);
	free(s);
	policy_free(&p);
	CHECK_INT(load(&p, "[secrets]\n~/k = broker:env:X for api.example.com\n"), -1);
	CHECK(strstr(err.msg, "t.ini:2: secret ~/k: a brokered secret must be a variable") != NULL);
	policy_free(&p);
	CHECK_INT(load(&p, "[secrets]\nK = broker:env:1X for api.example.com\n"), -1);
	policy_free(&p);
}

T(secrets_replace_by_name_and_show_redacted)
{
	struct policy p;
	CHECK_INT(load(&p, "[secrets]\nAPI_KEY = env:HOST_KEY\nTOKEN = cmd:echo sk-live-123\n"
	                   "~/.config/x/auth.json = file:~/auth.json\n"), 0);
	CHECK_INT(policy_load_text(&p, "u.ini", "[secrets]\nAPI_KEY = env:OTHER\n", &err), 0);
	CHECK_INT(p.cfg.secrets.n, 3);
	CHECK_STR(p.cfg.secrets.v[0], "API_KEY=env:OTHER");
	char *s = shown(&p);
	CHECK(strstr(s, "API_KEY = env:OTHER") != NULL);
	CHECK(strstr(s, "u.ini:2") != NULL);
	CHECK(strstr(s, "TOKEN = cmd:<redacted>") != NULL);
	CHECK(strstr(s, "sk-live-123") == NULL);
	free(s);
	policy_free(&p);
}

T(show_names_the_origin_of_each_value)
{
	struct policy p;
	CHECK_INT(load(&p, "[net]\nmode = allow\nallow = a.example:443\n"), 0);
	char *s = shown(&p);
	CHECK(strstr(s, "mode = allow                           ; t.ini:2\n") != NULL);
	CHECK(strstr(s, "allow = a.example:443                  ; t.ini:3\n") != NULL);
	CHECK(strstr(s, "max_size = 5M                          ; <embedded default.ini>:") != NULL);
	free(s);
	policy_free(&p);
}

T(include_reads_named_policies_once_and_refuses_cycles)
{
	char *d = tmpdir();
	setenv("JAIL_POLICY_PATH", d, 1);
	setenv("XDG_CONFIG_HOME", d, 1);  /* no user policies dir in the way */
	put(d, "base.ini", "[fs]\nhide += base-*\n");
	put(d, "a.ini", "include = base\n[fs]\nhide += a\n");
	put(d, "b.ini", "include = base, a\n[fs]\nhide += b\n");
	struct policy p;
	CHECK_INT(load(&p, "include = b\n"), 0);
	CHECK_STR(err.msg, "");
	CHECK_INT(p.cfg.hide.n, 3);  /* base once, a, b */
	if (p.cfg.hide.n == 3) {
		CHECK_STR(p.cfg.hide.v[0], "base-*");
		CHECK_STR(p.cfg.hide.v[2], "b");
	}
	policy_free(&p);
	put(d, "x.ini", "include = y\n");
	put(d, "y.ini", "\ninclude = x\n");
	CHECK_INT(load(&p, "include = x\n"), -1);
	CHECK(strstr(err.msg, "y.ini:2: include cycle: ") != NULL);
	CHECK(strstr(err.msg, "x.ini -> ") != NULL);
	policy_free(&p);
	CHECK(strstr(error_of("include = nosuch\n"), "t.ini:1: include: policy 'nosuch' not found in ") != NULL);
	CHECK_STR(error_of("include = ../etc/passwd\n"),
	          "t.ini:1: include = ../etc/passwd: expected a policy name (see 'jail policy list')");
	put(d, "bad.ini", "[net]\n\nallow = nope\n");
	CHECK(strstr(error_of("include = bad\n"), "bad.ini:3: net.allow: nope: expected HOST:PORT") != NULL);
	unsetenv("JAIL_POLICY_PATH");
	drop(d);
}

T(unreadable_policy_file_is_an_error)
{
	struct policy p;
	policy_init(&p);
	CHECK_INT(policy_load_named(&p, "/nonexistent/x.ini", &err), -1);
	CHECK_STR(err.msg, "policy file '/nonexistent/x.ini': No such file or directory");
	policy_free(&p);
}

T(flags_come_last_lists_append_scalars_replace)
{
	char *d = tmpdir();
	setenv("XDG_CONFIG_HOME", d, 1);
	put(d, "p.ini", "[net]\nmode = allow\nallow = a.example:443\n");
	char *pol = xasprintf("%s/p.ini", d);
	char *argv[] = {"jail", "-p", pol, "--net", "open", "--allow", "b.example:443", "--ro",
	                "/usr/share", "--secret", "K=env:X", "--", "true", NULL};
	struct cli c;
	struct jail_err e = {0};
	CHECK_INT(cli_parse(ARRAY_SIZE(argv) - 1, argv, &c, &e), 0);
	struct jail_config cfg;
	CHECK_INT(policy_resolve(&c, NULL, &cfg, &e), 0);
	CHECK_INT(cfg.net, NET_OPEN);
	CHECK_INT(cfg.allow.n, 2);
	CHECK_STR(cfg.allow.v[1], "b.example:443");
	CHECK_STR(cfg.ro_binds.v[0], "/usr/share");
	CHECK_STR(cfg.secrets.v[0], "K=env:X");
	CHECK_STR(cfg.argv[0], "true");
	config_free(&cfg);
	cli_free(&c);
	char *bad[] = {"jail", "--allow", "nope", "--", "true", NULL};
	CHECK_INT(cli_parse(ARRAY_SIZE(bad) - 1, bad, &c, &e), 0);
	CHECK_INT(policy_resolve(&c, NULL, &cfg, &e), -1);
	CHECK_STR(e.msg, "--allow nope: expected HOST:PORT (port 1-65535; IPv6 as [ADDR]:PORT)");
	cli_free(&c);
	char *bad2[] = {"jail", "--ro", "relative", "--", "true", NULL};
	CHECK_INT(cli_parse(ARRAY_SIZE(bad2) - 1, bad2, &c, &e), 0);
	CHECK_INT(policy_resolve(&c, NULL, &cfg, &e), -1);
	CHECK_STR(e.msg, "--ro: 'relative': expected an absolute path or ~/PATH");
	cli_free(&c);
	free(pol);
	drop(d);
}

T(project_file_only_when_trusted)
{
	char *conf = tmpdir(), *proj = tmpdir();
	setenv("XDG_CONFIG_HOME", conf, 1);
	const char *text = "[net]\nmode = open\n";
	put(proj, ".jail.ini", text);
	char *argv[] = {"jail", "--", "true", NULL};
	struct cli c;
	struct jail_config cfg;
	CHECK_INT(cli_parse(3, argv, &c, &err), 0);
	CHECK_INT(policy_resolve(&c, proj, &cfg, &err), 0);
	CHECK_INT(cfg.net, NET_NONE);  /* ignored: not trusted */
	config_free(&cfg);
	cli_free(&c);
	/* record the digest as `jail trust` does */
	char hex[65];
	sha256_hex(text, strlen(text), hex);
	char *rec = policy_trust_record(proj), *line = xasprintf("sha256:%s %s\n", hex, proj);
	char *tdir = xasprintf("%s/jail/trust", conf);
	CHECK_INT(mkdir_p(tdir, 0700, &err), 0);
	CHECK_INT(write_file_at(AT_FDCWD, rec, line, strlen(line), 0600, &err), 0);
	CHECK_INT(policy_trusted(proj, text, strlen(text)), 1);
	CHECK_INT(cli_parse(3, argv, &c, &err), 0);
	CHECK_INT(policy_resolve(&c, proj, &cfg, &err), 0);
	CHECK_INT(cfg.net, NET_OPEN);
	config_free(&cfg);
	cli_free(&c);
	/* changed after trust: ignored again */
	put(proj, ".jail.ini", "[net]\nmode = open\n[fs]\nrw = /\n");
	CHECK_INT(cli_parse(3, argv, &c, &err), 0);
	CHECK_INT(policy_resolve(&c, proj, &cfg, &err), 0);
	CHECK_INT(cfg.net, NET_NONE);
	CHECK_INT(cfg.rw_binds.n, 0);
	config_free(&cfg);
	cli_free(&c);
	/* a trusted digest does not carry to another project */
	char *other = tmpdir();
	CHECK_INT(policy_trusted(other, text, strlen(text)), 0);
	free(rec), free(line), free(tdir);
	drop(conf), drop(proj), drop(other);
}

T(project_file_must_not_be_a_symlink)
{
	char *proj = tmpdir();
	char *link = xasprintf("%s/.jail.ini", proj);
	CHECK_INT(symlink("/etc/passwd", link), 0);
	char *text = NULL;
	size_t len;
	CHECK_INT(policy_read_project(proj, &text, &len, &err), -1);
	CHECK(strstr(err.msg, "is not a regular file") != NULL);
	free(link);
	drop(proj);
}

T(secrets_resolve_each_source)
{
	char *d = tmpdir();
	put(d, "tok", "file-secret-42\n");
	setenv("UNIT_SECRET", "env-secret-7", 1);
	struct strv in = {0}, env = {0};
	strv_push(&in, "A=env:UNIT_SECRET");
	strv_push_take(&in, xasprintf("B=file:%s/tok", d));
	strv_push(&in, "C=cmd:printf 'cmd-secret-9\\n\\n'");
	strv_push_take(&in, xasprintf("~/.config/tool/auth.json=file:%s/tok", d));
	struct secret_file *files = NULL;
	size_t n = 0;
	CHECK_INT(secrets_resolve(&in, NULL, &env, &files, &n, NULL, &err), 0);
	CHECK_INT(env.n, 3);
	if (env.n == 3) {
		CHECK_STR(env.v[0], "A=env-secret-7");
		CHECK_STR(env.v[1], "B=file-secret-42");
		CHECK_STR(env.v[2], "C=cmd-secret-9");
	}
	CHECK_INT(n, 1);
	if (n == 1) {
		CHECK_STR(files[0].path, ".config/tool/auth.json");
		CHECK_INT(files[0].len, 15);
		CHECK(memcmp(files[0].content, "file-secret-42\n", 15) == 0);
	}
	secret_files_free(files, n);
	strv_free(&in);
	strv_free(&env);
	drop(d);
}

T(secret_errors_never_carry_the_value)
{
	struct strv in = {0}, env = {0};
	struct secret_file *files = NULL;
	size_t n = 0;
	unsetenv("UNIT_NOT_SET");
	strv_push(&in, "A=env:UNIT_NOT_SET");
	CHECK_INT(secrets_resolve(&in, NULL, &env, &files, &n, NULL, &err), -1);
	CHECK_STR(err.msg, "secret A: host variable UNIT_NOT_SET is not set");
	strv_free(&in);
	strv_push(&in, "B=cmd:echo leaked-value; exit 3");
	CHECK_INT(secrets_resolve(&in, NULL, &env, &files, &n, NULL, &err), -1);
	CHECK_STR(err.msg, "secret B: its command failed (exit status 3)");
	strv_free(&in);
	strv_free(&env);
	secret_files_free(files, n);
}

T(git_identity_holds_name_and_email_only)
{
	char *d = tmpdir();
	put(d, ".gitconfig", "[user]\n\tname = Ada \\\"L\\\" Lovelace\n\temail = ada@example.com\n"
	                     "[credential]\n\thelper = store\n[alias]\n\tx = !rm -rf /\n"
	                     "[core]\n\tfsmonitor = /bin/evil\n");
	char *old = xstrdup(getenv("HOME") ? getenv("HOME") : "/");
	setenv("HOME", d, 1);
	setenv("XDG_CONFIG_HOME", d, 1);
	char *g = gitidentity_gitconfig();
	CHECK(g != NULL);
	if (g) {
		CHECK(strstr(g, "\tname = \"Ada \\\"L\\\" Lovelace\"\n") != NULL);
		CHECK(strstr(g, "\temail = \"ada@example.com\"\n") != NULL);
		CHECK(strstr(g, "helper") == NULL);
		CHECK(strstr(g, "alias") == NULL);
		CHECK(strstr(g, "fsmonitor") == NULL);
	}
	free(g);
	put(d, ".gitconfig", "[credential]\n\thelper = store\n");
	CHECK(gitidentity_gitconfig() == NULL);
	setenv("HOME", old, 1);
	free(old);
	drop(d);
}

/* The man page documents every key of the table, in its section. */
T(man_page_documents_every_key)
{
	static const char *const paths[] = {"man/jail.ini.5", "../man/jail.ini.5", "../../man/jail.ini.5"};
	char *text = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(paths) && !text; i++)
		if (read_file_at(AT_FDCWD, paths[i], 1 << 20, &text, NULL, &err) < 0)
			text = NULL;
	CHECK(text != NULL);
	if (!text)
		return;
	for (size_t i = 0; i < policy_key_count(); i++) {
		const char *sec, *name;
		policy_key_at(i, &sec, &name);
		char *head = xasprintf("\n.SS [%s]\n", sec);
		char *entry = xasprintf("\n.B %s\n", name);
		char *s = strstr(text, head);
		char *end = s ? strstr(s + 1, "\n.SS ") : NULL;
		char *at = s ? strstr(s, entry) : NULL;
		if (!at || (end && at > end)) {
			fprintf(stderr, "  jail.ini.5 lacks [%s] %s\n", sec, name);
			t_failed_checks++;
		}
		free(head);
		free(entry);
	}
	free(text);
}

/* Every key has a flag, and the flag sets exactly that key, so that the layering
 * of flags over files finds it. */
T(every_key_has_its_flag)
{
	static const struct { const char *flag, *value; } samples[] = {
		{"--ro", "/usr"}, {"--rw", "/tmp"}, {"--hide", "x"}, {"--show", "x"},
		{"--tmpfs", "/x"}, {"--home", "fresh"}, {"--copy", "~/.x"}, {"--env", "X"},
		{"--setenv", "X=1"}, {"--secret", "X=env:Y"}, {"--net", "none"},
		{"--allow", "a.example:443"}, {"--dns-upstream", "127.0.0.1"}, {"--publish", "80"},
		{"--export-deny", "x"}, {"--allow-binary", NULL}, {"--max-size", "1M"},
		{"--allow-syscall", "bpf"}, {"--memory", "1G"}, {"--pids", "10"}, {"--cpus", "1"},
		{"--disk", "1G"}, {"--export-allow", ".envrc"}, {"--disk-inodes", "1000"},
		{"--hide-ignored", "secrets"}, {"--secret-name", "*.secret"}, {"--path", "~/bin"},
		{"--squash", NULL}, {"--no-trailer", NULL}, {"--hide-start-only", NULL},
		{"--cow", "/tmp"},
	};
	for (size_t i = 0; i < policy_key_count(); i++) {
		const struct policy_key *k = policy_key(i);
		CHECK(k->flag != NULL);
		if (!k->flag)
			continue;
		const char *value = "";
		bool found = false;
		for (size_t j = 0; j < ARRAY_SIZE(samples); j++)
			if (strcmp(samples[j].flag, k->flag) == 0)
				value = samples[j].value, found = true;
		CHECK(found);
		_cleanup_free_ char *f = xstrdup(k->flag), *v = value ? xstrdup(value) : NULL;
		char *argv[] = {"jail", f, v, "--", "true", NULL};
		if (!value)
			memmove(&argv[2], &argv[3], 3 * sizeof(char *));
		struct cli c;
		struct jail_err e = {0};
		int rc = cli_parse(value ? 5 : 4, argv, &c, &e);
		CHECK_INT(rc, 0);
		if (rc == 0 && !cli_sets(&c, k->id))
			fprintf(stderr, "  %s does not set %s\n", k->flag, k->id), t_failed_checks++;
		cli_free(&c);
	}
}
