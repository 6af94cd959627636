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
	CHECK(strstr(out, "\turl = \"https://github.com/me/app.git\"\n"));
	CHECK(strstr(out, "\tpushurl = \"https://github.com/me/app.git\"\n"));
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

/* Spellings git reads as the same credential: each must be withheld. */
T(credentials_in_other_spellings_are_taken_out)
{
	static const char *const cases[] = {
		/* a value continued on the next line */
		"[http]\n\textraheader = \\\nAUTHORIZATION: basic SECRETcont==\n",
		/* a key on the section header's line */
		"[http] extraheader = AUTHORIZATION: bearer SECRETsameline\n",
		"[http \"https://x/\"]ExtraHeader=SECRETnospace\n",
		/* a URL split by quotes, escapes or a continuation */
		"[remote \"o\"]\n\turl = \"https://user\":SECRETquote@example.com/a.git\n",
		"[remote \"o\"]\n\turl = https://user:SECRET\"\"split@example.com/a.git\n",
		"[remote \"o\"]\n\turl = https://user:SECRET\\\ncont@example.com/a.git\n",
		/* '#' or ';' inside the userinfo, quoted */
		"[remote \"o\"]\n\turl = \"https://u:SECRET;x@example.com/a.git\"\n",
		/* a subsection with an escaped quote */
		"[url \"https://u:SECRET\\\"q@example.com/\"]\n\tinsteadOf = https://example.com/\n",
		/* the credential section: helpers with the token inline, usernames */
		"[credential]\n\thelper = \"!f() { echo password=SECRETinline; }; f\"\n",
		"[credential \"https://example.com\"]\n\tHelper = store --file=/tmp/SECRETfile\n",
		/* case */
		"[HTTP]\n\tEXTRAHEADER = SECRETupper\n",
		/* escapes: a newline in the userinfo, an escaped letter in a subsection */
		"[remote \"o\"]\n\turl = https://u:SECRET\\nnl@example.com/a.git\n",
		"[url \"https://u:SECRET\\n@example.com/\"]\n\tinsteadOf = x\n",
		/* other tools' passwords and keys */
		"[sendemail]\n\tsmtpPass = SECRETsmtp\n",
		"[tool]\n\tapiKey = SECRETapi\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned n = 0;
		char *out = redact(cases[i], &n);
		if (!out || strstr(out, "SECRET")) {
			fprintf(stderr, "case %zu not withheld: %s\n", i, out ? out : "(nothing)");
			CHECK(0);
		}
		CHECK(n >= 1);
		free(out);
	}
}

T(a_redacted_url_is_one_git_reads_back)
{
	unsigned n = 0;
	char *out = redact("[remote \"o\"]\n\turl = \"https://user\":TOK@example.com/a.git\n"
	                   "\tfetch = +refs/heads/*:refs/remotes/o/*\n", &n);
	CHECK(out != NULL);
	CHECK_INT(n, 1);
	CHECK(strstr(out, "\turl = \"https://example.com/a.git\"\n"));
	CHECK(strstr(out, "\tfetch = +refs/heads/*:refs/remotes/o/*\n"));
	free(out);
}
