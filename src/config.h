/* config.h — the one validated configuration a jail runs with.
 *
 * Filled from the layered policy files (policy.c) and then the command line
 * (cli.c); everything else only reads it.  No global option flags.
 */
#ifndef JAIL_CONFIG_H
#define JAIL_CONFIG_H

#include "util.h"

enum net_mode { NET_NONE = 0, NET_ALLOW, NET_OPEN };
enum home_mode { HOME_FRESH = 0, HOME_PERSISTENT };
/* which git-ignored paths are hidden: every one, the secret-shaped ones, none */
enum hide_mode { HIDE_ALL = 0, HIDE_SECRETS, HIDE_NONE };

struct jail_config {
	/* invocation */
	char *project;         /* -D, as given (default ".") */
	char *session;         /* -s, default "default" */
	char **argv;           /* the command (borrowed from main's argv) */
	struct strv policies;  /* -p NAME, in order */
	bool quiet;            /* --quiet */
	bool no_export;        /* --no-export: leave patches for `jail export` */

	/* [fs] */
	struct strv ro_binds;       /* host paths bound read-only at the same path */
	struct strv rw_binds;       /* host paths bound read-write */
	struct strv cow_binds;      /* host dirs overlaid: writes kept in the session */
	struct strv cow_lowers;     /* the same as the host resolves them (cow_prepare) */
	struct strv hide;           /* extra patterns hidden in the project */
	struct strv show_ignored;   /* git-ignored paths shown anyway */
	enum hide_mode hide_ignored;
	struct strv secret_names;   /* secret-shaped names: hidden in every mode */
	bool hide_start_only;       /* hiding as at start only: no FUSE view (hidefs.h) */
	struct strv tmpfs;          /* extra tmpfs mounts */

	/* [home] */
	enum home_mode home;
	struct strv home_copy;      /* host files copied into the fake home */

	/* [env] */
	struct strv env_pass;       /* names passed from the host */
	struct strv env_set;        /* NAME=VALUE */
	struct strv env_path;       /* directories put before the default PATH */

	/* [secrets]: NAME=SOURCE (env:VAR, file:PATH, cmd:...) */
	struct strv secrets;

	/* [net] */
	enum net_mode net;
	struct strv allow;          /* HOST:PORT */
	char *dns_upstream;         /* ADDR[:PORT] */
	struct strv publish;        /* PORT[:HOSTPORT] */

	/* [export] */
	struct strv export_deny;    /* extra left-out patterns */
	struct strv export_allow;   /* default left-out patterns let through again */
	bool export_binary;
	long long export_max_size;  /* bytes */
	bool export_series;         /* the agent's commits as a series (false: one patch) */
	bool export_trailer;        /* "Jail-Session: project/session" on each patch */

	/* [syscalls] */
	struct strv syscalls_allow;

	/* [limits] (0 = none) */
	long long memory;           /* bytes */
	long long pids;
	double cpus;
	long long disk;             /* bytes the session may add to the disk per run */
	long long disk_inodes;      /* files (inodes) it may add per run; 0: disk/1024 */
};

void config_init(struct jail_config *c);
void config_free(struct jail_config *c);

#endif
