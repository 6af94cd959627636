/* Unit tests: caps.c — run in a forked child (the test may run as root). */
#include "t.h"
#include "caps.h"

#include <errno.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>

/* The value of a "Name:\t..." line of /proc/self/status. */
static void status_field(const char *name, char *out, size_t n)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");
	out[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		size_t l = strlen(name);
		if (strncmp(line, name, l) == 0 && line[l] == ':') {
			snprintf(out, n, "%s", line + l + 1 + strspn(line + l + 1, " \t"));
			out[strcspn(out, "\n")] = '\0';
		}
	}
	if (f)
		fclose(f);
}

/* Child: exit 0 when every check holds, else the number of the failed one. */
static int child(void)
{
	struct jail_err e = {0};
	/* as an ordinary user, hold capabilities the way init's child does: in a
	 * user namespace of our own */
	if (geteuid() != 0 && unshare(CLONE_NEWUSER) < 0)
		return 7;
	if (caps_drop_all(&e) < 0) {
		fprintf(stderr, "caps_drop_all: %s\n", e.msg);
		return 1;
	}
	const char *zero_fields[] = {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"};
	char v[128];
	for (size_t i = 0; i < 5; i++) {
		status_field(zero_fields[i], v, sizeof(v));
		if (strcmp(v, "0000000000000000") != 0) {
			fprintf(stderr, "%s = %s\n", zero_fields[i], v);
			return 2;
		}
	}
	status_field("NoNewPrivs", v, sizeof(v));
	if (strcmp(v, "1") != 0)
		return 3;
	if (prctl(PR_SET_SECUREBITS, 0, 0, 0, 0) == 0)
		return 4; /* the securebits could be unlocked */
	if (prctl(PR_GET_SECUREBITS, 0, 0, 0, 0) <= 0)
		return 5;
	if (prctl(PR_SET_NO_NEW_PRIVS, 0, 0, 0, 0) == 0)
		return 6;
	return 0;
}

T(all_sets_empty_securebits_locked_no_new_privs)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(child());
	int st = -1;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st));
	CHECK_INT(WEXITSTATUS(st), 0);
}

/* Init's order: the bounding set emptied first, its effective set kept (its
 * mounts need it); then the command's drop finds the bounding set empty and
 * still ends with every set empty. */
static int child_bounding_first(void)
{
	struct jail_err e = {0};
	if (geteuid() != 0 && unshare(CLONE_NEWUSER) < 0)
		return 7;
	if (caps_drop_bounding(&e) < 0) {
		fprintf(stderr, "caps_drop_bounding: %s\n", e.msg);
		return 1;
	}
	char v[128];
	status_field("CapBnd", v, sizeof(v));
	if (strcmp(v, "0000000000000000") != 0)
		return 2;
	status_field("CapEff", v, sizeof(v));
	if (strcmp(v, "0000000000000000") == 0)
		return 3; /* the effective set must stay */
	if (caps_drop_all(&e) < 0) {
		fprintf(stderr, "caps_drop_all: %s\n", e.msg);
		return 4;
	}
	const char *zero_fields[] = {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"};
	for (size_t i = 0; i < 5; i++) {
		status_field(zero_fields[i], v, sizeof(v));
		if (strcmp(v, "0000000000000000") != 0) {
			fprintf(stderr, "%s = %s\n", zero_fields[i], v);
			return 5;
		}
	}
	return 0;
}

T(bounding_set_first_then_all)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(child_bounding_first());
	int st = -1;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st));
	CHECK_INT(WEXITSTATUS(st), 0);
}
