/* sessions.c — placeholder */
#include "commands.h"
#include "log.h"
int cmd_reset(struct cli *c) { return EXIT_JAIL_FAIL; }
int cmd_list(struct cli *c) { return EXIT_JAIL_FAIL; }
int cmd_doctor(struct cli *c) { return EXIT_JAIL_FAIL; }
