/* test_gitcreds.c — a git config without its credentials (gitcreds.h). */
#include "gitcreds.h"
#include "t.h"

#include <string.h>

static char *redact(const char *in, unsigned *n)
{
	return gitcreds_redact(in, strlen(in), n);
}

T(tokens_in_urls_and_auth_headers_are_taken_out)
{
	unsigned n = 0;
	char *out = redact("[core]\n\tbare = false\n"
	                   "[remote \"origin\"]\n\turl = https://x-access-token:ghp_SECRET1@github.com/me/app.git\n"
	                   "\tpushurl = https://ghp_SECRET2@github.com/me/app.git\n"
	                   "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic U0VDUkVUMw==\n"
	                   "[url \"https://user:SECRET4@example.com/\"]\n\tinsteadOf = https://example.com/\n"
	                   "[github]\n\tToken = SECRET5\n",
	                   &n);
	CHECK(out != NULL);
	CHECK_INT(n, 5);
	CHECK(!strstr(out, "SECRET") && !strstr(out, "U0VDUkVUMw"));
	CHECK(strstr(out, "\turl = https://github.com/me/app.git\n"));
	CHECK(strstr(out, "\tpushurl = https://github.com/me/app.git\n"));
	CHECK(strstr(out, "[url \"https://example.com/\"]\n"));
	CHECK(strstr(out, "\t# extraheader: withheld by jail\n"));
	CHECK(strstr(out, "\tbare = false\n"));
	free(out);
}

T(a_config_without_credentials_is_left_alone)
{
	unsigned n = 9;
	CHECK(redact("[remote \"origin\"]\n\turl = git@github.com:me/app.git\n"
	             "\turl = https://github.com/me/app.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
	             "[user]\n\temail = me@example.com\n",
	             &n) == NULL);
	CHECK_INT(n, 0);
}
