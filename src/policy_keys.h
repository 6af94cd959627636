/* policy_keys.h — the table of policy keys (internal to policy*.c). */
#ifndef JAIL_POLICY_KEYS_H
#define JAIL_POLICY_KEYS_H
#include "policy.h"

enum key_type {
	K_LIST,     /* struct strv: `=` replaces, `+=` appends */
	K_SECRETS,  /* struct strv of NAME=SOURCE, one entry per NAME */
	K_STRING,   /* char * */
	K_BOOL,     /* bool */
	K_SIZE,     /* long long, bytes */
	K_COUNT,    /* long long */
	K_CPUS,     /* double */
	K_NET,      /* enum net_mode */
	K_HOME,     /* enum home_mode */
	K_HIDE,     /* enum hide_mode */
};

/* Validate one value; on success *out is its normalized copy. */
typedef int (*check_fn)(const char *in, char **out, struct jail_err *e);

struct policy_key {
	const char *section, *name;
	const char *id;      /* the name cli_sets() knows it by */
	const char *flag;    /* the command-line flag that sets it (NULL: none) */
	enum key_type type;
	size_t off;          /* of the field in struct jail_config */
	check_fn check;
	bool split;          /* a list value may hold several items, comma-separated */
	const char *arg, *help;
};

extern const char *const policy_sections[];
const struct policy_key *policy_key(size_t i);
const struct policy_key *policy_key_find(const char *section, const char *name);
bool policy_section_known(const char *section);

int check_path(const char *in, char **out, struct jail_err *e) WUR;
int check_home_path(const char *in, char **out, struct jail_err *e) WUR;
int check_glob(const char *in, char **out, struct jail_err *e) WUR;
int check_export_allow(const char *in, char **out, struct jail_err *e) WUR;
int check_env_name(const char *in, char **out, struct jail_err *e) WUR;
int check_env_set(const char *in, char **out, struct jail_err *e) WUR;
int check_host_port(const char *in, char **out, struct jail_err *e) WUR;
int check_dns(const char *in, char **out, struct jail_err *e) WUR;
int check_publish(const char *in, char **out, struct jail_err *e) WUR;
int check_syscall(const char *in, char **out, struct jail_err *e) WUR;
int check_secret(const char *in, char **out, struct jail_err *e) WUR;
int check_secret_name(const char *name, struct jail_err *e) WUR;
int policy_parse_size(const char *s, long long *out) WUR;
int policy_parse_bool(const char *s, bool *out) WUR;

#endif
