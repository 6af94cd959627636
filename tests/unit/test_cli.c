/* Unit tests: cli.c, session name and path checks, env.c. */
#include "cli.h"
#include "env.h"
#include "session.h"
#include "t.h"

static int parse(struct cli *c, struct jail_err *e, char **argv)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	return cli_parse(argc, argv, c, e);
}

T(run_is_the_default_and_dashdash_ends_options)
{
	struct cli c;
	struct jail_err e;
	char *argv[] = {"jail", "-D", "/p", "-s", "s1", "--", "ls", "-l", NULL};
	CHECK_INT(parse(&c, &e, argv), 0);
	CHECK_INT(c.cmd, CMD_RUN);
	CHECK_STR(c.cfg.project, "/p");
	CHECK_STR(c.cfg.session, "s1");
	CHECK_STR(c.cfg.argv[0], "ls");
	CHECK_STR(c.cfg.argv[1], "-l");
	cli_free(&c);
}

T(a_command_named_like_a_subcommand_after_dashdash)
{
	struct cli c;
	struct jail_err e;
	char *argv[] = {"jail", "--", "list", NULL};
	CHECK_INT(parse(&c, &e, argv), 0);
	CHECK_INT(c.cmd, CMD_RUN);
	CHECK_STR(c.cfg.argv[0], "list");
	cli_free(&c);
}

T(subcommand_flags_are_checked)
{
	struct cli c;
	struct jail_err e;
	char *bad[] = {"jail", "list", "--stat", NULL};
	CHECK_INT(parse(&c, &e, bad), -1);
	CHECK(strstr(e.msg, "does not apply to 'jail list'") != NULL);
	cli_free(&c);
	char *good[] = {"jail", "diff", "--stat", "-s", "x", NULL};
	CHECK_INT(parse(&c, &e, good), 0);
	CHECK_INT(c.cmd, CMD_DIFF);
	CHECK(c.stat);
	cli_free(&c);
}

T(values_are_validated)
{
	struct cli c;
	struct jail_err e;
	char *mem[] = {"jail", "--memory", "4G", "--pids", "100", "--cpus", "1.5", "--", "true", NULL};
	CHECK_INT(parse(&c, &e, mem), 0);
	CHECK_INT(c.cfg.memory, 4LL << 30);
	CHECK_INT(c.cfg.pids, 100);
	CHECK(c.cfg.cpus > 1.49 && c.cfg.cpus < 1.51);
	CHECK(cli_sets(&c, "limits.memory"));
	CHECK(!cli_sets(&c, "net.mode"));
	cli_free(&c);
	char *bad[] = {"jail", "--pids", "-3", "--", "true", NULL};
	CHECK_INT(parse(&c, &e, bad), -1);
	cli_free(&c);
	char *net[] = {"jail", "--net", "wide", "--", "true", NULL};
	CHECK_INT(parse(&c, &e, net), -1);
	CHECK(strstr(e.msg, "none, allow or open") != NULL);
	cli_free(&c);
	char *noarg[] = {"jail", "-D", NULL};
	CHECK_INT(parse(&c, &e, noarg), -1);
	CHECK(strstr(e.msg, "needs a value") != NULL);
	cli_free(&c);
}

T(session_names)
{
	struct jail_err e;
	CHECK_INT(session_name_check("default", &e), 0);
	CHECK_INT(session_name_check("try-2.b_c", &e), 0);
	CHECK_INT(session_name_check("", &e), -1);
	CHECK_INT(session_name_check(".hidden", &e), -1);
	CHECK_INT(session_name_check("a/b", &e), -1);
	CHECK_INT(session_name_check("..", &e), -1);
	CHECK_INT(session_name_check("x\n", &e), -1);
	CHECK(strstr(e.msg, "\\x0a") != NULL); /* never printed raw */
}

T(env_put_replaces)
{
	struct strv env = {0};
	env_put(&env, "A", "1");
	env_put(&env, "AB", "2");
	env_put(&env, "A", "3");
	CHECK_INT(env.n, 2);
	CHECK_STR(env.v[0], "A=3");
	CHECK_STR(env.v[1], "AB=2");
	strv_free(&env);
}

T(subcommand_typos_are_suggested)
{
	CHECK_STR(cli_suggest("stauts"), "status");
	CHECK_STR(cli_suggest("lsit"), "list");
	CHECK_STR(cli_suggest("expotr"), "export");
	CHECK(cli_suggest("aider") == NULL);
	CHECK(cli_suggest("./status") == NULL);
	CHECK(cli_suggest("x") == NULL);
}

T(values_that_look_like_options_are_refused)
{
	struct cli c;
	struct jail_err e;
	char *dd[] = {"jail", "--hide", "--", "true", NULL};
	CHECK_INT(parse(&c, &e, dd), -1);
	CHECK(strstr(e.msg, "got '--'") != NULL);
	cli_free(&c);
	char *attached[] = {"jail", "--hide=-x", "--", "true", NULL};
	CHECK_INT(parse(&c, &e, attached), 0);
	CHECK_STR(c.cfg.hide.v[0], "-x");
	cli_free(&c);
	char *extra[] = {"jail", "status", "-s", "x", "README", NULL};
	CHECK_INT(parse(&c, &e, extra), 0);
	CHECK_STR(c.args[0], "README");
	cli_free(&c);
	char *none[] = {"jail", "list", "x", NULL};
	CHECK_INT(parse(&c, &e, none), -1);
	cli_free(&c);
}
