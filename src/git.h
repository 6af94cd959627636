/* git.h — host-side git, hardened.
 *
 * Every git process jail starts goes through git_run(): an argv array (never a
 * shell string), an environment built from nothing, no system or global config, no
 * hooks, no fsmonitor, no pager, no external diff or textconv, no optional locks.
 * git only ever sees the host's own repository (the real project dir, which the
 * agent cannot write) or a throwaway repository jail made itself; never the .git
 * the agent wrote into the upper dir.
 */
#ifndef JAIL_GIT_H
#define JAIL_GIT_H

#include "util.h"

struct git {
	const char *cwd;         /* working directory of the git process */
	const char *git_dir;     /* GIT_DIR, or NULL to let git discover from cwd */
	const char *work_tree;   /* GIT_WORK_TREE, or NULL */
	const char *index_file;  /* GIT_INDEX_FILE, or NULL */
	bool literal_pathspecs;  /* GIT_LITERAL_PATHSPECS=1 (check-ignore refuses it) */
	const char *config;      /* one more "-c key=value", or NULL */
	const char *config2;     /* and another */
	bool user_config;        /* read the user's config files as the user's git
	                          * does (system, global, XDG, GIT_CONFIG_GLOBAL):
	                          * for `git config --get` of a setting that runs
	                          * nothing, whose value git_run's callers need as
	                          * the user's git sees it (an includeIf's) */
	unsigned cpu_seconds;    /* RLIMIT_CPU of the process (0: none): for a git
	                          * reading what the agent wrote, whose work no size
	                          * bound covers (delta chains through entries no
	                          * index lists) */
};

/* Run `git ARGS...` (args NULL-terminated, without "git").  in/in_len go to its
 * stdin (NULL: /dev/null); its stdout is appended to *out (may be NULL).  A
 * non-zero exit is an error carrying git's first stderr line, escaped.
 * *status gets the exit status when not NULL; then a non-zero exit is not an
 * error (for commands such as check-ignore that use 1 as an answer). */
int git_run(const struct git *g, const char *const *args, const char *in, size_t in_len,
            struct strbuf *out, int *status, struct jail_err *e) WUR;

/* A git process fed in pieces (fast-import's stream), so that the whole input
 * is never held in memory.  Before git_start(), set at most one of out_buf
 * (stdout appended to it) and on_out (stdout handed over as it arrives; a
 * negative return stops the reading with an error); neither: stdout dropped.
 * also: another started process whose output is read while this one is
 * pumped, so that both run at once (a second git that would otherwise stop on
 * a full pipe); its own also is read too (three at most). */
struct git_proc {
	struct strbuf *out_buf;
	int (*on_out)(void *ctx, const char *data, size_t n);
	void *ctx;
	struct git_proc *also;
	/* private */
	pid_t pid;
	int in, out, err;
	char *sub;
	struct strbuf pending, errbuf;
	size_t off;
};
int git_start(const struct git *g, const char *const *args, struct git_proc *p,
              struct jail_err *e) WUR;
/* Queue n bytes for git's stdin; written (while its output is read) once 64 KiB
 * are pending. */
int git_feed(struct git_proc *p, const char *data, size_t n, struct jail_err *e) WUR;
/* Read what git (and its also's) wrote so far, without waiting: a git whose
 * output waits in a full pipe stops, so one that runs beside our own work is
 * drained now and then. */
int git_drain(struct git_proc *p, struct jail_err *e) WUR;
/* Write what is pending and close stdin; git goes on with its output, which is
 * read by git_finish() (or while another process is pumped: also). */
int git_close_input(struct git_proc *p, struct jail_err *e) WUR;
/* Write the rest, close stdin, read to the end, reap; status as for git_run(). */
int git_finish(struct git_proc *p, int *status, struct jail_err *e) WUR;
/* Give up on a started process: close its stdin and reap it. */
void git_abort(struct git_proc *p);
/* Start git with its stdout on out_fd (a file the output goes to unread);
 * git_finish() waits for it. */
int git_start_to_fd(const struct git *g, const char *const *args, int out_fd,
                    struct git_proc *p, struct jail_err *e) WUR;
/* Run git with its stdout on out_fd (a file the output goes to unread). */
int git_run_to_fd(const struct git *g, const char *const *args, int out_fd,
                  struct jail_err *e) WUR;

/* Fill *argv with the hardened prefix: "git", "--no-pager", "-c", ... (exposed
 * for the unit test). */
void git_argv_prefix(struct strv *argv);
/* The environment git runs with (exposed for the unit test). */
void git_env(const struct git *g, struct strv *env);

/* Where the user's own git settings live: ~/.gitconfig, $XDG_CONFIG_HOME/git/config
 * (default ~/.config) and the default ignore file beside it. */
struct git_user_paths {
	char *home_config, *xdg_config, *xdg_ignore;
	char *system_config; /* GIT_CONFIG_SYSTEM or /etc/gitconfig; NULL with
	                      * GIT_CONFIG_NOSYSTEM */
};
void git_user_paths(struct git_user_paths *p);
void git_user_paths_free(struct git_user_paths *p);

/* The user's global ignore file (core.excludesFile of ~/.gitconfig or the XDG git
 * config, or of a file they include, else $XDG_CONFIG_HOME/git/ignore), or
 * NULL, read file by file (`git config --file` only parses; a conditional
 * include does not hold there): for the jail's own git, not for what is
 * hidden or exported, which git_excludes_file says. */
char *git_user_excludes_file(void);
/* The ignore file git goes by in `project`: core.excludesFile as the user's
 * git reads it there (the repository's config wins over the user's, the
 * user's over the system's, a conditional include counts: `includeIf
 * "gitdir:~/work/"`), else the XDG ignore file; "~" expanded, a relative path
 * left relative to the project. */
char *git_excludes_file(const char *project);
/* Whether core.ignoreCase is true as the user's git reads it in `project`
 * (set in ~/.gitconfig, the system's config or a conditional include, which
 * hardened git does not read): `.ENV` is ignored by a `.env` rule then. */
bool git_ignore_case(const char *project);
/* What the host's git reads from files that may be in the project: the
 * repository's config file and what it includes first, then the user's
 * files; values as written ('~' expanded; a relative hooks or attributes path
 * is from the work tree's top, where git runs), includes absolute.  top: the
 * work tree's top, absolute. */
struct git_settings {
	char *hooks_path;       /* core.hooksPath, or NULL */
	char *attributes_file;  /* core.attributesFile, or NULL */
	struct strv includes;   /* include.path and includeIf.*.path of the repository's config */
	struct strv programs;   /* files the commands of settings name (a filter's, fsmonitor's,
	                         * an alias's: git.c's PROGRAM_KEYS), absolute */
	struct strv program_keys; /* the setting that names each */
};
int git_tree_settings(const char *project, const char *top, struct git_settings *s,
                      struct jail_err *e) __attribute__((warn_unused_result));
void git_settings_free(struct git_settings *s);
/* Whether a config file includes others ([include], [includeIf ...]): what it
 * sets then depends on files a cache does not know of.  An unreadable file
 * counts as one that does. */
bool git_config_has_includes(const char *path);
/* Whether a config file may set `word` (a variable's name, any case): its
 * text names it or an include; an unreadable file (not a missing one) may. */
bool git_config_mentions(const char *path, const char *word);
/* The same for a repository's own config files (.git/config and
 * config.worktree); always true when .git is not a directory (a linked
 * worktree's or a submodule's config lives elsewhere). */
bool git_repo_config_mentions(const char *project, const char *word);
#endif
