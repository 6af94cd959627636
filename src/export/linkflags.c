/* linkflags.c — see linkflags.h. */
#include "linkflags.h"

#include "git.h"
#include "pathrules.h"

#include <string.h>

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

void linkflags_review(struct export_ctx *x, struct changeset *cs)
{
	if (!x->is_repo || !changeset_included(cs))
		return;
	struct strv args = {0};
	const char *head[] = {"ls-files", "-s", "-z", "--"};
	for (size_t i = 0; i < ARRAY_SIZE(head); i++)
		strv_push(&args, head[i]);
	pathrules_link_specs(&x->rules, &args);
	struct git g = {.cwd = x->project};
	struct strbuf out = {0};
	struct jail_err e;
	int r = git_run(&g, (const char *const *)args.v, NULL, 0, &out, NULL, &e);
	strv_free(&args);
	/* records: "MODE OID STAGE\tPATH\0"; only the links */
	for (size_t i = 0; r == 0 && out.s && i < out.len; i += strlen(out.s + i) + 1) {
		const char *rec = out.s + i, *path = strchr(rec, '\t');
		if (!path || strncmp(rec, "120000 ", 7) != 0)
			continue;
		path++;
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
