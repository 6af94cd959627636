/* controlfiles.c — see controlfiles.h. */
#include "controlfiles.h"

#include "git.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#define UNHIDE_LINES 20          /* per .gitignore; then "... and N more" */
#define CANDIDATES_MAX 20000     /* host-ignored paths looked at */
#define IGNORE_FILE_MAX (1u << 20)
#define CHECKS_MAX 1000          /* changed .gitignore files host git is asked about */

/* The scratch tree: the repository's .gitignore files at their paths, the
 * agent's versions in place of the host's for the changed ones. */
struct mirror {
	struct export_ctx *x;
	char *top, *git_dir;   /* the host repository's work tree and git dir */
	char *dir;             /* the scratch tree */
	int top_fd, dir_fd;
	bool cand_cut;         /* host git listed more than CANDIDATES_MAX ignored paths */
};

static bool is_ignore_file(const struct change *c)
{
	const char *base = strrchr(c->path, '/');
	return !c->reason && strcmp(base ? base + 1 : c->path, ".gitignore") == 0;
}

static int mirror_locate(struct mirror *m, struct jail_err *e)
{
	struct git g = {.cwd = m->x->project};
	struct strbuf out = {0};
	const char *args[] = {"rev-parse", "--show-toplevel", "--absolute-git-dir", NULL};
	int r = git_run(&g, args, NULL, 0, &out, NULL, e);
	char *nl = r == 0 && out.s ? strchr(out.s, '\n') : NULL;
	if (r == 0 && !nl)
		r = jail_err_set(e, 0, "git rev-parse: unexpected output");
	if (r == 0) {
		*nl = '\0';
		m->top = xstrdup(out.s);
		m->git_dir = xstrdup(nl + 1);
		m->git_dir[strcspn(m->git_dir, "\n")] = '\0';
		m->top_fd = open(m->top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (m->top_fd < 0)
			r = jail_err_sys(e, "open '%s'", m->top);
	}
	sb_free(&out);
	return r;
}

/* mkdir -p of the directories leading to rel (and rel itself when whole). */
static int mirror_dirs(struct mirror *m, const char *rel, bool whole, struct jail_err *e)
{
	_cleanup_free_ char *p = xstrdup(rel);
	for (char *s = p; (s = strchr(s, '/')) || whole; s++) {
		if (s)
			*s = '\0';
		if (*p && mkdirat(m->dir_fd, p, 0700) < 0 && errno != EEXIST)
			return jail_err_sys(e, "create '%s' in '%s'", p, m->dir);
		if (!s)
			break;
		*s = '/';
	}
	return 0;
}

static int mirror_put(struct mirror *m, const char *rel, const struct strbuf *data,
                      struct jail_err *e)
{
	if (mirror_dirs(m, rel, false, e) < 0)
		return -1;
	return write_file_at(m->dir_fd, rel, data->s ? data->s : "", data->len, 0600, e);
}

/* The host's .gitignore files (tracked or not), as they are. */
static int mirror_host_rules(struct mirror *m, struct jail_err *e)
{
	struct git g = {.cwd = m->top};
	struct strbuf out = {0};
	const char *args[] = {"ls-files", "-z", "-c", "-o", "--exclude-standard", "--",
	                      ":(glob)**/.gitignore", NULL};
	int r = git_run(&g, args, NULL, 0, &out, NULL, e);
	for (size_t i = 0; r == 0 && out.s && i < out.len; i += strlen(out.s + i) + 1) {
		struct strbuf data = {0};
		const char *rel = out.s + i;
		if (read_entry(m->top_fd, rel, FT_FILE, IGNORE_FILE_MAX, &data, e) == 0)
			r = mirror_put(m, rel, &data, e);
		else if (errno != ELOOP && errno != ENOENT)  /* git skips a symlink too */
			r = -1;
		sb_free(&data);
	}
	sb_free(&out);
	return r;
}

/* One changed .gitignore in the scratch tree: the agent's version, or back to
 * the host's. */
static int mirror_swap(struct mirror *m, const struct change *c, bool agent, struct jail_err *e)
{
	_cleanup_free_ char *rel = xasprintf("%s%s", m->x->prefix, c->path);
	struct strbuf data = {0};
	int dirfd = agent ? m->x->upper_fd : m->top_fd;
	const char *from = agent ? c->path : rel;
	int r = agent && c->new_type != FT_FILE ? -1  /* deleted (git skips a symlinked one) */
	        : read_entry(dirfd, from, FT_FILE, IGNORE_FILE_MAX, &data, e);
	if (r == 0)
		r = mirror_put(m, rel, &data, e);
	else if (!agent && errno != ENOENT && errno != ELOOP)
		r = -1;
	else if ((r = unlinkat(m->dir_fd, rel, 0)) < 0 && errno != ENOENT)
		r = jail_err_sys(e, "remove '%s' in '%s'", rel, m->dir);
	else
		r = 0;
	sb_free(&data);
	return r;
}

/* The directory (repository-relative, "" for its root) a changed .gitignore rules. */
static char *rule_dir(const struct mirror *m, const struct change *c)
{
	const char *slash = strrchr(c->path, '/');
	return xasprintf("%s%.*s", m->x->prefix, slash ? (int)(slash - c->path + 1) : 0, c->path);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What the host ignores today below the changed rules' directories: the
 * files that may be un-hidden ("dir/" for a whole ignored directory). */
static int host_ignored_now(struct mirror *m, const struct changeset *cs, struct strv *cand,
                            struct jail_err *e)
{
	struct strv args = {0};
	const char *head[] = {"ls-files", "-z", "-o", "-i", "--exclude-standard", "--directory", "--"};
	for (size_t i = 0; i < ARRAY_SIZE(head); i++)
		strv_push(&args, head[i]);
	bool root = false;
	for (size_t i = 0; i < cs->n; i++)
		if (is_ignore_file(&cs->v[i])) {
			char *d = rule_dir(m, &cs->v[i]);
			root |= !*d;
			strv_push_take(&args, d);
		}
	while (root && args.n > ARRAY_SIZE(head)) {  /* the whole repository, then */
		free(args.v[--args.n]);
		args.v[args.n] = NULL;
	}
	struct git g = {.cwd = m->top, .config = m->x->user_excludes, .literal_pathspecs = true};
	struct strbuf out = {0};
	int r = git_run(&g, (const char *const *)args.v, NULL, 0, &out, NULL, e);
	size_t i = 0;
	for (; r == 0 && out.s && i < out.len && cand->n < CANDIDATES_MAX; i += strlen(out.s + i) + 1)
		strv_push(cand, out.s + i);
	m->cand_cut = r == 0 && out.s && i < out.len;  /* check_each says so */
	if (cand->n)  /* for cand_below() */
		qsort(cand->v, cand->n, sizeof(char *), cmp_str);
	sb_free(&out);
	strv_free(&args);
	return r;
}

/* Which of them the agent's rules still ignore: host git, with the scratch
 * tree as its work tree and the host's git dir (info/exclude, its config). */
static int still_ignored(struct mirror *m, const struct strv *cand, struct strv *ign,
                         struct jail_err *e)
{
	struct strbuf in = {0}, out = {0};
	int r = 0, status = 0;
	for (size_t i = 0; r == 0 && i < cand->n; i++) {
		size_t l = strlen(cand->v[i]);
		bool dir = l > 1 && cand->v[i][l - 1] == '/';
		_cleanup_free_ char *name = strndup(cand->v[i], dir ? l - 1 : l);
		r = mirror_dirs(m, name, dir, e);  /* directory rules need the directories */
		sb_append(&in, name, strlen(name) + 1);
	}
	struct git g = {.cwd = m->dir, .git_dir = m->git_dir, .work_tree = m->dir,
	                .config = m->x->user_excludes};
	const char *args[] = {"check-ignore", "-z", "--stdin", "--no-index", NULL};
	if (r == 0 && in.len)
		r = git_run(&g, args, in.s, in.len, &out, &status, e);
	if (r == 0 && status > 1)
		r = jail_err_set(e, 0, "git check-ignore failed (exit %d)", status);
	for (size_t i = 0; r == 0 && out.s && i < out.len; i += strlen(out.s + i) + 1)
		strv_push(ign, out.s + i);
	if (ign->n)
		qsort(ign->v, ign->n, sizeof(char *), cmp_str);
	sb_free(&in);
	sb_free(&out);
	return r;
}

/* The candidates below c's directory that the rules, with c's change alone,
 * no longer ignore: c->note. */
static void note_unhidden(struct mirror *m, struct change *c, const struct strv *cand,
                          const struct strv *ign)
{
	_cleanup_free_ char *d = rule_dir(m, c);
	size_t dl = strlen(d), pl = strlen(m->x->prefix), count = 0;
	struct strbuf note = {0};
	for (size_t i = 0; i < cand->n; i++) {
		size_t l = strlen(cand->v[i]);
		_cleanup_free_ char *name = strndup(cand->v[i], l > 1 && cand->v[i][l - 1] == '/' ? l - 1 : l);
		char *key = name;
		if (strncmp(cand->v[i], d, dl) != 0 ||
		    (ign->n && bsearch(&key, ign->v, ign->n, sizeof(char *), cmp_str)))
			continue;
		_cleanup_free_ char *esc = escape_name(cand->v[i] + pl);
		if (count++ < UNHIDE_LINES)
			sb_printf(&note, "no longer ignores %s (exists on the host)\n", esc);
	}
	if (count > UNHIDE_LINES)
		sb_printf(&note, "... and %zu more files it no longer ignores\n", count - UNHIDE_LINES);
	free(c->note);
	c->note = note.len ? sb_steal(&note) : NULL;
	sb_free(&note);
}

/* The candidates below dir (repository-relative, "" for its root), into
 * below: a .gitignore rules only there.  cand is sorted, so they are one run. */
static void cand_below(const struct strv *cand, const char *dir, struct strv *below)
{
	size_t dl = strlen(dir), lo = 0, hi = cand->n;
	while (lo < hi) {  /* the first one not before dir */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(cand->v[mid], dir) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < cand->n && strncmp(cand->v[i], dir, dl) == 0; i++)
		strv_push(below, cand->v[i]);
}

/* Each changed .gitignore on its own over the host's rules, asked about the
 * host-ignored paths below its directory only: the agent makes as many
 * .gitignore files as it likes (each a git run, each with every candidate,
 * made 100,000 of them hours of `jail status`), but there are only so many
 * host directories that hold an ignored path.  One with none below it
 * un-hides nothing; past CHECKS_MAX the note says it was not checked. */
static int check_each(struct mirror *m, struct changeset *cs, const struct strv *cand,
                      struct jail_err *e)
{
	size_t checks = 0;
	for (size_t i = 0; i < cs->n; i++) {
		struct change *c = &cs->v[i];
		if (!is_ignore_file(c))
			continue;
		struct strv below = {0}, ign = {0};
		_cleanup_free_ char *d = rule_dir(m, c);
		cand_below(cand, d, &below);
		int r = 0;
		if (below.n && ++checks > CHECKS_MAX) {
			free(c->note);
			c->note = xasprintf("not checked for host files it un-hides (more than %d "
			                    "changed .gitignore files); read it\n", CHECKS_MAX);
		} else if (below.n) {
			r = mirror_swap(m, c, true, e);
			if (r == 0)
				r = still_ignored(m, &below, &ign, e);
			if (r == 0)
				note_unhidden(m, c, &below, &ign);
			if (mirror_swap(m, c, false, e) < 0)
				r = -1;
		}
		/* past the cap, a path below d may have been left out of cand:
		 * say so, never "un-hides nothing" */
		if (r == 0 && m->cand_cut && !(below.n && checks > CHECKS_MAX)) {
			char *n = xasprintf("%snot checked against every host-ignored path (more than "
			                    "%d host-ignored paths); read it\n", c->note ? c->note : "",
			                    CANDIDATES_MAX);
			free(c->note);
			c->note = n;
		}
		strv_free(&ign);
		strv_free(&below);
		if (r < 0)
			return -1;
	}
	return 0;
}

static void note_failure(struct changeset *cs, const struct jail_err *e)
{
	_cleanup_free_ char *esc = escape_name(e->msg);
	for (size_t i = 0; i < cs->n; i++)
		if (is_ignore_file(&cs->v[i]) && !cs->v[i].note)
			cs->v[i].note = xasprintf("could not check which host files it un-hides: %s\n", esc);
}

void controlfiles_review(struct export_ctx *x, struct changeset *cs, const char *workdir)
{
	size_t n = 0;
	for (size_t i = 0; i < cs->n; i++)
		n += is_ignore_file(&cs->v[i]);
	if (!n || !x->is_repo)
		return;
	struct mirror m = {.x = x, .top_fd = -1, .dir_fd = -1};
	struct strv cand = {0};
	struct jail_err e;
	m.dir = xasprintf("%s/.flagcheck.XXXXXX", workdir);
	bool made = mkdtemp(m.dir) != NULL;
	int r = made ? 0 : jail_err_sys(&e, "create a directory in '%s'", workdir);
	if (r == 0 && (m.dir_fd = open(m.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		r = jail_err_sys(&e, "open '%s'", m.dir);
	if (r == 0)
		r = mirror_locate(&m, &e);
	if (r == 0)
		r = mirror_host_rules(&m, &e);
	if (r == 0)
		r = host_ignored_now(&m, cs, &cand, &e);
	if (r == 0)
		r = check_each(&m, cs, &cand, &e);
	if (r < 0)
		note_failure(cs, &e);
	if (made && rm_rf_at(AT_FDCWD, m.dir, &e) < 0) {
		/* a leftover check dir is harmless; jail reset removes it */
	}
	closep(&m.top_fd);
	closep(&m.dir_fd);
	free(m.dir);
	free(m.top);
	free(m.git_dir);
	strv_free(&cand);
}

size_t controlfiles_render(const struct changeset *cs, struct strbuf *out)
{
	size_t n = 0;
	for (size_t i = 0; i < cs->n; i++) {
		const struct change *c = &cs->v[i];
		if (c->reason || !(c->flags & CF_REVIEW))
			continue;
		_cleanup_free_ char *esc = escape_name(c->path);
		sb_printf(out, "%s: %s\n", esc, c->flag_why);
		for (const char *l = c->note, *nl; l && *l; l = nl + 1) {
			if (!(nl = strchr(l, '\n')))
				break;  /* each line ends with one */
			sb_printf(out, "%s: %.*s\n", esc, (int)(nl - l), l);
		}
		n++;
	}
	return n;
}
