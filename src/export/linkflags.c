/* linkflags.c — see linkflags.h. */
#include "linkflags.h"

#include "git.h"
#include "pathrules.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#define LINK_WHY "a host symlink of a control file's name leads to it"

/* The path a link at `link` with this target names, lexically (".", ".."
 * and "//" resolved within the project), or NULL when it leaves it. */
static char *link_dest(const char *link, const char *target)
{
	if (symlink_leaves_tree(link, target))
		return NULL;
	const char *slash = strrchr(link, '/');
	_cleanup_free_ char *joined = xasprintf("%.*s%s%s", slash ? (int)(slash - link) : 0, link,
	                                        slash ? "/" : "", target);
	struct strbuf out = {0};
	for (const char *p = joined; p;) {
		size_t l = strcspn(p, "/");
		if (l == 2 && p[0] == '.' && p[1] == '.') {
			char *up = out.s ? strrchr(out.s, '/') : NULL;
			out.len = up ? (size_t)(up - out.s) : 0;
			if (out.s)
				out.s[out.len] = '\0';
		} else if (l && !(l == 1 && p[0] == '.')) {
			if (out.len)
				sb_puts(&out, "/");
			sb_append(&out, p, l);
		}
		p = p[l] ? p + l + 1 : NULL;
	}
	return out.len ? sb_steal(&out) : (sb_free(&out), NULL);  /* the root: nothing */
}

static int cmp_change(const void *a, const void *b)
{
	return strcmp(((const struct change *)a)->path, ((const struct change *)b)->path);
}

/* Flag the included changes at dest or below it whose name through the link
 * is flagged or left out by its name. */
static void flag_below(const struct export_ctx *x, struct changeset *cs, const char *dest,
                       const char *link)
{
	size_t dl = strlen(dest);
	for (size_t i = 0; i < cs->n; i++) {
		struct change *c = &cs->v[i];
		if (c->reason || strncmp(c->path, dest, dl) != 0 || (c->path[dl] && c->path[dl] != '/'))
			continue;
		_cleanup_free_ char *as = xasprintf("%s%s", link, c->path + dl);
		const char *why = path_flag_reason(as, false);
		_cleanup_free_ char *denied = why ? NULL : pathrules_denied(&x->rules, as, false);
		if (!why && !denied)
			continue;
		c->flags |= CF_REVIEW;
		if (!c->flag_why)
			c->flag_why = LINK_WHY;
		_cleanup_free_ char *esc = escape_name(as);
		struct strbuf note = {0};
		sb_printf(&note, "%sread as %s through the host's symlink: %s\n",
		          c->note ? c->note : "", esc, why ? why : denied);
		free(c->note);
		c->note = sb_steal(&note);
	}
}

/* "dev ino size mtime" of the index: it is replaced (a new inode) whenever
 * git writes it.  NULL when it cannot be read. */
static char *index_key(const struct export_ctx *x)
{
	struct stat st;
	if (!x->index || stat(x->index, &st) < 0)
		return NULL;
	return xasprintf("%llu %llu %lld %lld.%09ld %s\n", (unsigned long long)st.st_dev,
	                 (unsigned long long)st.st_ino, (long long)st.st_size,
	                 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, x->prefix);
}

/* The host's tracked symlinks below the project, NUL-separated: from the
 * cache in dir when the index is the one it was made of, else from git
 * (one ls-files of the whole index: git's pathspecs of the rules' names
 * cost 0.8 s per status of a 50,000-file repository, the listing 20 ms),
 * then kept there. */
static int host_links(const struct export_ctx *x, const char *dir, struct strbuf *links)
{
	_cleanup_free_ char *key = index_key(x);
	/* one file per repository (a submodule's export has its own index) */
	unsigned long long h = 14695981039346656037ull;  /* FNV-1a of its path */
	for (const char *c = x->index ? x->index : ""; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	_cleanup_free_ char *path = xasprintf("%s/control-links.%016llx", dir, h);
	_cleanup_free_ char *data = NULL;
	size_t len = 0;
	struct jail_err e;
	if (key && read_file_at(AT_FDCWD, path, 64u << 20, &data, &len, &e) == 0 &&
	    len >= strlen(key) && memcmp(data, key, strlen(key)) == 0) {
		sb_append(links, data + strlen(key), len - strlen(key));
		return 0;
	}
	struct git g = {.cwd = x->project};
	struct strbuf out = {0};
	const char *args[] = {"ls-files", "-s", "-z", NULL};
	int r = git_run(&g, args, NULL, 0, &out, NULL, &e);
	/* records: "MODE OID STAGE\tPATH\0"; only the links */
	for (size_t i = 0; r == 0 && out.s && i < out.len; i += strlen(out.s + i) + 1) {
		const char *rec = out.s + i, *tab = strchr(rec, '\t');
		if (tab && strncmp(rec, "120000 ", 7) == 0)
			sb_append(links, tab + 1, strlen(tab + 1) + 1);
	}
	sb_free(&out);
	if (r == 0 && key) {
		struct strbuf file = {0};
		sb_puts(&file, key);
		sb_append(&file, links->s ? links->s : "", links->len);
		if (replace_file(path, file.s, file.len, 0600, &e) < 0) {
			/* the next export asks git again */
		}
		sb_free(&file);
	}
	return r;
}

void linkflags_review(struct export_ctx *x, struct changeset *cs, const char *dir)
{
	if (!x->is_repo || !changeset_included(cs))
		return;
	struct strbuf out = {0};
	struct jail_err e;
	int r = host_links(x, dir, &out);
	for (size_t i = 0; r == 0 && out.s && i < out.len; i += strlen(out.s + i) + 1) {
		const char *path = out.s + i;
		_cleanup_free_ char *copy = xstrdup(path);
		struct change key = {.path = copy};
		if (cs->n && bsearch(&key, cs->v, cs->n, sizeof(*cs->v), cmp_change))
			continue;  /* the session changes the link itself: flagged by its name */
		_cleanup_free_ char *denied = pathrules_denied_link(&x->rules, path);
		if (!path_flag_reason(path, true) && !denied)
			continue;  /* the pathspecs match more than the rules */
		struct strbuf target = {0};
		if (read_entry(x->project_fd, path, FT_SYMLINK, 4096, &target, &e) == 0 &&
		    strlen(target.s) == target.len) {
			_cleanup_free_ char *dest = link_dest(path, target.s);
			if (dest)
				flag_below(x, cs, dest, path);
		}
		sb_free(&target);
	}
	sb_free(&out);
}
