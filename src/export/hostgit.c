/* hostgit.c — see hostgit.h. */
#include "hostgit.h"

#include "git.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

/* The first leading component of dir (a directory path) that is a symlink on
 * the host, as "the host has ...", or NULL. */
static char *dir_refused(int project_fd, const char *dir)
{
	_cleanup_free_ char *copy = xstrdup(dir);
	for (char *slash = copy;; slash++) {
		slash = strchr(slash, '/');
		if (slash)
			*slash = '\0';
		struct stat st;
		if (fstatat(project_fd, copy, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return NULL;  /* missing on the host: new, nothing to refuse */
		if (S_ISLNK(st.st_mode)) {
			_cleanup_free_ char *esc = escape_name(copy);
			return xasprintf("the host has a symlink at '%s': git does not look "
			                 "beyond it", esc);
		}
		if (!S_ISDIR(st.st_mode) || !slash)  /* a file the agent made a directory */
			return NULL;
		*slash = '/';
	}
}

char *host_path_refused(int project_fd, const char *path, struct strbuf *memo)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return NULL;
	size_t n = (size_t)(slash - path);
	/* memo: "DIR\0REASON" of the last directory checked */
	if (memo->s && memo->len > n && memo->s[n] == '\0' && memcmp(memo->s, path, n) == 0)
		return memo->s[n + 1] ? xstrdup(memo->s + n + 1) : NULL;
	_cleanup_free_ char *dir = strndup(path, n);
	if (!dir)
		abort();
	char *why = dir_refused(project_fd, dir);
	memo->len = 0;
	sb_append(memo, dir, n + 1);
	sb_puts(memo, why ? why : "");
	return why;
}

static void split_nul_into(const struct strbuf *out, struct strv *l)
{
	for (size_t i = 0; out->s && i < out->len;) {
		size_t n = strlen(out->s + i);
		if (n)
			strv_push(l, out->s + i);
		i += n + 1;
	}
}

/* A repository where git refuses everything would take two runs per path:
 * past this many refused batches it is an error of the repository instead. */
#define REFUSED_RUNS_MAX 256

static int check_batch(const struct export_ctx *x, char *const *paths, size_t n,
                       struct strv *ignored, struct strv *refused, int *budget,
                       struct jail_err *e)
{
	if (n == 0)
		return 0;
	struct strbuf in = {0}, out = {0};
	for (size_t i = 0; i < n; i++)
		sb_append(&in, paths[i], strlen(paths[i]) + 1);
	struct git g = {.cwd = x->project, .config = x->user_excludes};
	int status = 0;
	/* the paths are known untracked: --no-index spares reading the whole index */
	const char *args[] = {"check-ignore", "-z", "--stdin", "--no-index", NULL};
	int r = git_run(&g, args, in.s, in.len, &out, &status, e);
	sb_free(&in);
	if (r == 0 && status <= 1)
		split_nul_into(&out, ignored);
	sb_free(&out);
	if (r < 0 || status <= 1)
		return r;
	if (status != 128 || --*budget < 0)
		return jail_err_set(e, 0, "git check-ignore failed (exit %d) in '%s'", status,
		                    x->project);
	if (n == 1) {
		strv_push(refused, paths[0]);
		return 0;
	}
	if (check_batch(x, paths, n / 2, ignored, refused, budget, e) < 0)
		return -1;
	return check_batch(x, paths + n / 2, n - n / 2, ignored, refused, budget, e);
}

int host_check_ignore(const struct export_ctx *x, char *const *paths, size_t n,
                      struct strv *ignored, struct strv *refused, struct jail_err *e)
{
	int budget = REFUSED_RUNS_MAX;
	return check_batch(x, paths, n, ignored, refused, &budget, e);
}
