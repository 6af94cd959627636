/* t.c — runs the registered unit tests in order of registration. */
#include "t.h"

#include "util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static struct t_case *head, **tail = &head;
int t_failed_checks;
const char *t_skip_reason;

void t_mkdir_under(const char *root, const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	struct jail_err e;
	if (mkdir_p(p, 0755, &e) < 0)
		fprintf(stderr, "  %s\n", e.msg);
	free(p);
}

void t_touch_under(const char *root, const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	free(p);
}

void t_register(struct t_case *c)
{
	*tail = c;
	tail = &c->next;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;
	for (struct t_case *c = head; c; c = c->next) {
		if (argc > 1 && strcmp(argv[1], c->name) != 0)
			continue;
		int before = t_failed_checks;
		t_skip_reason = NULL;
		c->fn();
		/* a check that failed before the skip still fails the test */
		if (t_failed_checks != before) {
			failed++;
			printf("not ok - %s\n", c->name);
		} else if (t_skip_reason) {
			skipped++;
			printf("skip - %s: %s\n", c->name, t_skip_reason);
		} else {
			passed++;
			printf("ok - %s\n", c->name);
		}
	}
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}
