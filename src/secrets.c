/* secrets.c — resolve [secrets] on the host side.
 *
 * cmd: runs with the user's own environment (a password manager needs its agent
 * socket and PATH), unlike the hardened git runner of hide.c, but in the home
 * directory: jail starts most often in the project, a repository that is not
 * the user's to trust, and commands look in their cwd (`python3 -m keyring`
 * imports ./keyring.py first).  Its output is wiped from memory once copied. */
#include "secrets.h"
#include "broker.h"
#include "env.h"
#include "log.h"
#include "policy_keys.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

static int read_pipe(int fd, size_t max, char **out, size_t *len, struct jail_err *e)
{
	struct strbuf b = {0};
	char chunk[4096];
	sb_append(&b, "", 0);
	for (;;) {
		ssize_t r = read(fd, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || b.len + (size_t)r > max) {
			int err = r < 0 ? errno : EFBIG;
			explicit_bzero(b.s, b.len);
			sb_free(&b);
			explicit_bzero(chunk, sizeof(chunk));
			return jail_err_set(e, err, "read the output");
		}
		if (r == 0)
			break;
		sb_append(&b, chunk, (size_t)r);
	}
	explicit_bzero(chunk, sizeof(chunk));
	*len = b.len;
	*out = sb_steal(&b);
	return 0;
}

static int spawn_piped(char *const argv[], const char *cwd, int out_fd, pid_t *pid,
                       struct jail_err *e)
{
	posix_spawn_file_actions_t fa;
	if (posix_spawn_file_actions_init(&fa) != 0)
		return jail_err_set(e, ENOMEM, "spawn '%s'", argv[0]);
	int rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	if (!rc)
		rc = posix_spawn_file_actions_addchdir_np(&fa, cwd);
	if (!rc)
		rc = posix_spawnp(pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return jail_err_set(e, rc, "run '%s'", argv[0]);
	return 0;
}

static int run_capture(char *const argv[], size_t max, char **out, size_t *len, int *status,
                       struct jail_err *e)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return jail_err_sys(e, "pipe");
	pid_t pid;
	/* (a home that is not there: the root, never the cwd) */
	const char *cwd = access(home_dir(), X_OK) == 0 ? home_dir() : "/";
	int rc = spawn_piped(argv, cwd, p[1], &pid, e);
	close(p[1]);
	if (rc < 0) {
		close(p[0]);
		return -1;
	}
	rc = read_pipe(p[0], max, out, len, e);
	close(p[0]);
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			if (rc == 0) {
				explicit_bzero(*out, *len);
				free(steal_ptr(out));
			}
			return jail_err_sys(e, "wait for '%s'", argv[0]);
		}
	}
	return rc;
}

static void wipe_free(char *s, size_t n)
{
	if (s)
		explicit_bzero(s, n);
	free(s);
}

/* The value of one source, exactly as it came. */
static int secret_value(const char *name, const char *src, char **val, size_t *len,
                        struct jail_err *e)
{
	if (strncmp(src, "env:", 4) == 0) {
		const char *v = getenv(src + 4);
		if (!v)
			return jail_err_set(e, 0, "secret %s: host variable %s is not set", name, src + 4);
		*val = xstrdup(v);
		*len = strlen(v);
		return 0;
	}
	if (strncmp(src, "file:", 5) == 0) {
		_cleanup_free_ char *path = expand_home(src + 5);
		_cleanup_free_ char *real = realpath(path, NULL);
		struct jail_err fe = {0};
		if (!real || read_file_at(AT_FDCWD, real, SECRET_MAX_SIZE, val, len, &fe) < 0)
			return jail_err_set(e, real ? fe.errnum : errno, "secret %s: read '%s'", name, path);
		return 0;
	}
	_cleanup_free_ char *cmd = xstrdup(src + 4);
	char *argv[] = {(char *)"/bin/sh", (char *)"-c", cmd, NULL};
	int status = 0;
	struct jail_err ce = {0};
	if (run_capture(argv, SECRET_MAX_SIZE, val, len, &status, &ce) < 0)
		return jail_err_set(e, ce.errnum, "secret %s: its command failed to run", name);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		wipe_free(steal_ptr(val), *len);
		return jail_err_set(e, 0, "secret %s: its command failed (%s %d)", name,
		                    WIFEXITED(status) ? "exit status" : "signal",
		                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	}
	return 0;
}

static int secret_as_env(const char *name, char *val, size_t len, struct strv *env,
                         struct jail_err *e)
{
	/* a command's or a file's trailing newline is not part of a token */
	while (len && (val[len - 1] == '\n' || val[len - 1] == '\r'))
		val[--len] = '\0';
	if (strlen(val) != len)
		return jail_err_set(e, 0, "secret %s: a NUL byte in the value; use a file (~/PATH) instead", name);
	env_put(env, name, val);
	return 0;
}

/* NAME's value in a NAME=VALUE list, or NULL. */
static const char *stored_for(const struct strv *stored, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; stored && i < stored->n; i++)
		if (strncmp(stored->v[i], name, n) == 0 && stored->v[i][n] == '=')
			return stored->v[i] + n + 1;
	return NULL;
}

/* broker:SOURCE for HOST: the real value to the broker, its placeholder (the
 * stored one if it still fits) to the jail's environment. */
static int secret_brokered(const char *name, const char *src, const struct strv *stored,
                           struct broker **broker, struct strv *env, struct jail_err *e)
{
	struct broker_spec spec;
	if (name[0] == '~' || !broker)
		return jail_err_set(e, 0, "secret %s: a brokered secret must be a variable", name);
	if (broker_spec_parse(name, src, &spec, e) < 0)
		return -1;
	char *val = NULL;
	size_t len = 0;
	int rc = secret_value(name, spec.source, &val, &len, e);
	while (rc == 0 && len && (val[len - 1] == '\n' || val[len - 1] == '\r'))
		val[--len] = '\0';
	if (rc == 0 && strlen(val) != len)
		rc = jail_err_set(e, 0, "secret %s: a NUL byte in the value", name);
	const char *ph = NULL;
	if (rc == 0) {
		if (!*broker)
			*broker = broker_new();
		rc = broker_add(*broker, name, val, &spec, stored_for(stored, name), &ph, e);
	}
	if (rc == 0)
		env_put(env, name, ph);
	wipe_free(val, len);
	broker_spec_free(&spec);
	return rc;
}

int secrets_resolve(const struct strv *secrets, const struct strv *stored, struct strv *env,
                    struct secret_file **files, size_t *n_files, struct broker **broker,
                    struct jail_err *e)
{
	for (size_t i = 0; i < secrets->n; i++) {
		const char *entry = secrets->v[i];
		_cleanup_free_ char *name = strndup(entry, strcspn(entry, "="));
		const char *src = entry + strlen(name) + (entry[strlen(name)] == '=');
		if (check_secret_name(name, e) < 0)
			return -1;
		if (broker_is_spec(src)) {
			if (secret_brokered(name, src, stored, broker, env, e) < 0)
				return -1;
			continue;
		}
		char *val = NULL;
		size_t len = 0;
		if (secret_value(name, src, &val, &len, e) < 0)
			return -1;
		if (name[0] != '~') {
			int rc = secret_as_env(name, val, len, env, e);
			wipe_free(val, len);
			if (rc < 0)
				return -1;
			continue;
		}
		*files = xrealloc(*files, (*n_files + 1) * sizeof(**files));
		(*files)[(*n_files)++] = (struct secret_file){xstrdup(name + 2), val, len};
	}
	return 0;
}

void secret_files_free(struct secret_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(files[i].path);
		wipe_free(files[i].content, files[i].len);
	}
	free(files);
}

/* Where the jail shows host path real (resolved), as the flag that shows it,
 * or NULL: the project's overlay, a bind, a copy into the fake home. */
static const char *jail_shows(const struct jail_plan *p, const char *real)
{
	const struct jail_config *c = p->cfg;
	const struct { const struct strv *l; const char *flag; } lists[] = {
		{&c->ro_binds, "--ro"}, {&c->rw_binds, "--rw"}, {&c->cow_binds, "--cow"},
		{&c->home_copy, "a copy into the home"},
	};
	if (p->session && path_at_or_below(real, p->session->project))
		return "-D";
	for (size_t k = 0; k < ARRAY_SIZE(lists); k++)
		for (size_t i = 0; i < lists[k].l->n; i++) {
			_cleanup_free_ char *dir = realpath(lists[k].l->v[i], NULL);
			if (dir && path_at_or_below(real, dir))
				return lists[k].flag;
		}
	return NULL;
}

/* A brokered secret's file that the jail can read hands the agent the real
 * value beside its placeholder.  One inside the project is refused even when
 * git ignores it (and the view hides it): --show, a policy's show list or a
 * later run without git would let it in, and a key file has no place there. */
static int broker_files_unseen(const struct jail_plan *p, struct jail_err *e)
{
	const struct strv *secrets = &p->cfg->secrets;
	for (size_t i = 0; i < secrets->n; i++) {
		const char *entry = secrets->v[i];
		_cleanup_free_ char *name = strndup(entry, strcspn(entry, "="));
		const char *src = entry + strlen(name) + (entry[strlen(name)] == '=');
		struct broker_spec spec;
		if (!broker_is_spec(src) || broker_spec_parse(name, src, &spec, e) < 0)
			continue;  /* (parsed once already: secrets_resolve) */
		_cleanup_free_ char *path = strncmp(spec.source, "file:", 5) == 0
		                            ? expand_home(spec.source + 5) : NULL;
		broker_spec_free(&spec);
		_cleanup_free_ char *real = path ? realpath(path, NULL) : NULL;
		const char *flag = real ? jail_shows(p, real) : NULL;
		if (!flag)
			continue;
		_cleanup_free_ char *esc = escape_name(path);
		return jail_err_set(e, 0, "secret %s: its file %s is where the jail can read it (%s), "
		                    "and the agent the real value: keep it outside the project and "
		                    "what the jail binds or copies in", name, esc, flag);
	}
	return 0;
}

/* The session CA for the brokered hosts, and the variables that make the
 * jail's TLS clients trust it. */
static int broker_plan(struct jail_plan *p, struct jail_err *e)
{
	static const char *const vars[] = {"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
	                                   "GIT_SSL_CAINFO"};
	if (!p->broker)
		return 0;
	if (p->cfg->net == NET_NONE)
		return jail_err_set(e, 0, "brokered secrets need the network: give --net allow "
		                          "(or net = allow in [net])");
	const char *files[p->n_secret_files + 1];
	size_t lens[p->n_secret_files + 1];
	for (size_t i = 0; i < p->n_secret_files; i++) {
		files[i] = p->secret_files[i].content;
		lens[i] = p->secret_files[i].len;
	}
	if (broker_files_unseen(p, e) < 0 ||
	    broker_check_leaks(p->broker, &p->env, files, lens, p->n_secret_files, e) < 0 ||
	    broker_prepare(p->broker, e) < 0)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++)
		env_put(&p->env, vars[i], BROKER_BUNDLE_FILE);
	/* Node adds these to its own built-in list */
	env_put(&p->env, "NODE_EXTRA_CA_CERTS", BROKER_CA_FILE);
	return 0;
}

/* ---- the session's placeholders: PLACEHOLDERS_FILE in its state dir ----
 *
 * One NAME=PLACEHOLDER a line, mode 0600.  It holds only what the jail's
 * environment shows anyway (a placeholder is random but for the prefix it
 * shares with the value), so a client inside that remembers an approved key
 * by its last characters (Claude Code) sees the same key every run.  A line
 * that no longer fits its value is replaced (broker_placeholder_fits). */
#define PLACEHOLDERS_FILE "placeholders"
#define PLACEHOLDERS_MAX (64 * 1024)

/* The stored lines (none if the file is missing or unreadable: new ones then);
 * *raw is the file as read, to write it again only when it changes. */
static void placeholders_load(const struct session *s, struct strv *out, char **raw)
{
	_cleanup_free_ char *path = xasprintf("%s/" PLACEHOLDERS_FILE, s->dir);
	struct jail_err le = {0};
	*raw = NULL;
	if (read_file_at(AT_FDCWD, path, PLACEHOLDERS_MAX, raw, NULL, &le) < 0) {
		if (le.errnum != ENOENT)
			log_debug("%s; new placeholders", le.msg);
		return;
	}
	char *save = NULL, *copy = xstrdup(*raw);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (strchr(l, '=') && l[0] != '=')
			strv_push(out, l);
	free(copy);
}

/* This run's placeholders, then the stored ones of secrets it did not
 * broker (a secret left out of one run keeps its placeholder). */
static int placeholders_save(const struct session *s, const struct broker *b,
                             const struct strv *stored, const char *raw, struct jail_err *e)
{
	struct strv now = {0};
	struct strbuf out = {0};
	broker_placeholders(b, &now);
	sb_append(&out, "", 0);
	for (size_t i = 0; i < now.n; i++)
		sb_printf(&out, "%s\n", now.v[i]);
	for (size_t i = 0; i < stored->n; i++) {
		_cleanup_free_ char *name = strndup(stored->v[i], strcspn(stored->v[i], "="));
		if (!stored_for(&now, name) && out.len + strlen(stored->v[i]) < PLACEHOLDERS_MAX - 1)
			sb_printf(&out, "%s\n", stored->v[i]);
	}
	int rc = 0;
	if (!raw || strcmp(raw, out.s) != 0) {
		_cleanup_free_ char *path = xasprintf("%s/" PLACEHOLDERS_FILE, s->dir);
		rc = replace_file(path, out.s, out.len, 0600, e);
	}
	sb_free(&out);
	strv_free(&now);
	return rc;
}

#define GIT_IGNORE_IN_HOME ".config/git/ignore"

static bool has_secret_file(const struct jail_plan *p, const char *path)
{
	for (size_t i = 0; i < p->n_secret_files; i++)
		if (strcmp(p->secret_files[i].path, path) == 0)
			return true;
	return false;
}

/* A file jail writes into the fake home (content taken). */
static void add_home_file(struct jail_plan *p, const char *path, char *content, size_t len)
{
	p->secret_files = xrealloc(p->secret_files, (p->n_secret_files + 1) * sizeof(*p->secret_files));
	p->secret_files[p->n_secret_files++] = (struct secret_file){xstrdup(path), content, len};
}

/* The --rw bind that holds path, as named or resolved (real), or NULL. */
static const char *rw_holds(const struct jail_plan *p, const char *path, const char *real)
{
	const char *bind = plan_rw_bind_holding(p, path);
	return bind ? bind : plan_rw_bind_holding(p, real);
}

/* What a `cmd:` source runs must not be the agent's either: the shell looks
 * its programs up in the user's PATH and starts it in the home, so a --rw
 * bind that holds a PATH directory (~/.local/bin), the home, or a path the
 * command names lets the agent plant what the next start runs on the host.
 * The bind that holds one, or NULL. */
static const char *cmd_place_writable(const struct jail_plan *p, const char *cmd,
                                      const char **what)
{
	const char *path_env = getenv("PATH");
	_cleanup_free_ char *dirs = xstrdup(path_env ? path_env : "");
	char *save = NULL;
	/* (a relative entry, "." or an empty one, is looked up from the home) */
	for (char *d = dirs, *colon; d; d = colon ? colon + 1 : NULL) {
		colon = strchr(d, ':');
		if (colon)
			*colon = '\0';
		_cleanup_free_ char *dir = d[0] == '/' ? xstrdup(d) : xasprintf("%s/%s", home_dir(), d);
		_cleanup_free_ char *real = realpath(dir, NULL);
		const char *bind = rw_holds(p, dir, real);
		if (bind) {
			*what = "a directory of your PATH";
			return bind;
		}
	}
	_cleanup_free_ char *home = realpath(home_dir(), NULL);
	const char *bind = rw_holds(p, home_dir(), home);
	if (bind) {
		*what = "your home, where it runs";
		return bind;
	}
	_cleanup_free_ char *words = xstrdup(cmd);
	for (char *w = strtok_r(words, " \t\"'=;&|<>()", &save); w;
	     w = strtok_r(NULL, " \t\"'=;&|<>()", &save)) {
		/* a path from the root or the home ($HOME in any spelling) */
		const char *rest = strncmp(w, "$HOME/", 6) == 0     ? w + 5
		                   : strncmp(w, "${HOME}/", 8) == 0 ? w + 7
		                                                    : NULL;
		if (w[0] != '/' && strncmp(w, "~/", 2) != 0 && !rest)
			continue;
		_cleanup_free_ char *path = rest ? xasprintf("%s%s", home_dir(), rest) : expand_home(w);
		_cleanup_free_ char *real = realpath(path, NULL);
		if ((bind = rw_holds(p, path, real))) {
			*what = "a path it names";
			return bind;
		}
	}
	return NULL;
}

/* A `file:` source below a --rw bind is the agent's to replace, with a link
 * to any file of the user's (an ssh key) that the next start reads into the
 * jail as the secret; and what a `cmd:` source runs (cmd_place_writable).
 * Checked before anything is read or run. */
static int file_sources_unwritable(const struct jail_plan *p, struct jail_err *e)
{
	const struct strv *secrets = &p->cfg->secrets;
	for (size_t i = 0; p->cfg->rw_binds.n && i < secrets->n; i++) {
		const char *entry = secrets->v[i];
		_cleanup_free_ char *name = strndup(entry, strcspn(entry, "="));
		const char *src = entry + strlen(name) + (entry[strlen(name)] == '=');
		_cleanup_free_ char *path = NULL, *cmd = NULL;
		struct broker_spec spec;
		struct jail_err pe = {0};  /* (secrets_resolve reports a bad one) */
		const char *source = src;
		if (broker_is_spec(src) && broker_spec_parse(name, src, &spec, &pe) == 0) {
			path = strncmp(spec.source, "file:", 5) == 0 ? expand_home(spec.source + 5) : NULL;
			cmd = strncmp(spec.source, "cmd:", 4) == 0 ? xstrdup(spec.source + 4) : NULL;
			broker_spec_free(&spec);
		} else if (!broker_is_spec(source)) {
			path = strncmp(src, "file:", 5) == 0 ? expand_home(src + 5) : NULL;
			cmd = strncmp(src, "cmd:", 4) == 0 ? xstrdup(src + 4) : NULL;
		}
		const char *what = NULL;
		const char *cbind = cmd ? cmd_place_writable(p, cmd, &what) : NULL;
		if (cbind) {
			_cleanup_free_ char *eb = escape_name(cbind);
			return jail_err_set(e, 0, "secret %s: its command runs on the host, and --rw %s "
			                    "holds %s, where the agent could plant what it runs; keep "
			                    "such places out of what the jail binds writable", name, eb,
			                    what);
		}
		_cleanup_free_ char *real = path ? realpath(path, NULL) : NULL;
		const char *bind = path ? rw_holds(p, path, real) : NULL;
		if (!bind)
			continue;
		_cleanup_free_ char *ep = escape_name(path), *eb = escape_name(bind);
		return jail_err_set(e, 0, "secret %s: its file %s is below --rw %s, where the agent "
		                    "could make it a link to another file of yours; keep it outside "
		                    "what the jail binds writable", name, ep, eb);
	}
	return 0;
}

int secrets_plan(struct jail_plan *p, struct jail_err *e)
{
	if (file_sources_unwritable(p, e) < 0)
		return -1;
	struct strv stored = {0};
	_cleanup_free_ char *raw = NULL;
	placeholders_load(p->session, &stored, &raw);
	int rc = secrets_resolve(&p->cfg->secrets, &stored, &p->env, &p->secret_files,
	                         &p->n_secret_files, &p->broker, e);
	if (rc == 0 && p->broker)
		rc = placeholders_save(p->session, p->broker, &stored, raw, e);
	strv_free(&stored);
	if (rc < 0 || broker_plan(p, e) < 0)
		return -1;
	if (!has_secret_file(p, ".gitconfig")) {
		char *git = gitidentity_gitconfig();
		if (git)
			add_home_file(p, ".gitconfig", git, strlen(git));
	}
	/* the host's global ignore rules, where git inside reads them when no
	 * core.excludesFile is set: without them `git status` inside lists what
	 * git ignores on the host (a .venv the agent made), and `git add -A`
	 * commits it */
	size_t n = 0;
	char *ignore = has_secret_file(p, GIT_IGNORE_IN_HOME) ? NULL : gitidentity_user_ignore(&n);
	if (ignore)
		add_home_file(p, GIT_IGNORE_IN_HOME, ignore, n);
	return 0;
}
