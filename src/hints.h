/* hints.h — one line where users get stuck: a command that lives only on the
 * host, a project that is part of a bigger repository, running as root, a
 * keyring call allowed back. */
#ifndef JAIL_HINTS_H
#define JAIL_HINTS_H
#include "config.h"

/* The jail's PATH (env.c sets it; the hint needs to know what it searches). */
#define JAIL_PATH "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

/* When cmd is found on the host's PATH (or is a host path) somewhere the jail
 * does not show or search: " (on the host it is ~/.local/bin/foo: ...)" naming
 * the flag and the policy line that make it visible; NULL otherwise.  Worked
 * out on the host before the clone, printed by the jail only if the exec
 * fails with ENOENT. */
char *hint_command_on_host(const char *cmd);
/* Warn when the project is a subdirectory of a git work tree (git inside the
 * jail would find no repository). */
void hint_project_in_repo(const char *project);
/* A command line to paste: "jail [SUB ]-D PROJECT[ -s SESSION][ REST]" (no -s
 * for the default session; the project quoted for the shell). */
char *hint_jail_line(const char *sub, const char *project, const char *session,
                     const char *rest);
/* For "no such session" lines: when the project (-D, by default the current
 * directory) is a subdirectory of a git work tree, "; ... add -D ROOT",
 * else "".  A run there warns; the session is most likely the root's. */
char *hint_session_in_repo(const char *project);
/* A warning per mount inside the project: the jail shows the directory under
 * it, not the mounted filesystem. */
void hint_nested_mounts(const char *project);
/* Running as root: say the jail is root inside too. */
void hint_root(void);
/* A keyring call allowed back: say what of the host's it reaches. */
void hint_keyring_allowed(const struct jail_config *cfg);
/* A path as the user can paste it into a shell: escaped (escape_name), and in
 * single quotes when it holds anything but [A-Za-z0-9_./:@%+=,-]. */
char *hint_shell_quote(const char *s);
/* 99950 → "99,950" */
struct num_text {
	char s[32];
};
struct num_text thousands(size_t n);
#endif
