/* t.c — runs the registered unit tests in order of registration. */
#include "t.h"

#include <stdlib.h>

static struct t_case *head, **tail = &head;
int t_failed_checks;

void t_register(struct t_case *c)
{
	*tail = c;
	tail = &c->next;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;
	for (struct t_case *c = head; c; c = c->next) {
		if (argc > 1 && strcmp(argv[1], c->name) != 0)
			continue;
		int before = t_failed_checks;
		c->fn();
		if (t_failed_checks == before) {
			passed++;
			printf("ok - %s\n", c->name);
		} else {
			failed++;
			printf("not ok - %s\n", c->name);
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
