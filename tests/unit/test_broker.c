/* Unit tests: broker.c (policy syntax, placeholders) and brokerhttp.c (the
 * request rewriter). */
#include "t.h"
#include "broker.h"
#include "brokerhttp.h"
#include "brokerpriv.h"
#include "brokerrules.h"

#include <ctype.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static struct jail_err err;

#define PH "sk-test-PLACEHOLDER0123456789"
#define REAL "sk-test-REALVALUE9876543210xy"

static struct strv hdrs;
static struct broker_cred cred;
static char reports[1024];

static void on_report(void *arg, const char *name, const char *where)
{
	size_t l = strlen(reports);
	snprintf(reports + l, sizeof(reports) - l, "%s@%s;", name, where);
}

/* Feed text in pieces of step bytes; returns reqp_feed's result, the output in *out. */
static int feed(struct reqp *r, const char *text, size_t step, struct strbuf *out)
{
	size_t len = strlen(text);
	for (size_t i = 0; i < len; i += step) {
		size_t n = len - i < step ? len - i : step;
		if (reqp_feed(r, text + i, n, out) < 0)
			return -1;
	}
	return 0;
}

static void setup(struct reqp *r, bool for_this_host)
{
	if (!hdrs.n) {
		strv_push(&hdrs, "Authorization");
		strv_push(&hdrs, "x-api-key");
	}
	cred = (struct broker_cred){"KEY", PH, for_this_host ? REAL : NULL, &hdrs, NULL};
	reports[0] = '\0';
	reqp_init(r, "api.example.com", &cred, 1);
	r->report = on_report;
}

T(reqp_replaces_only_in_credential_headers)
{
	static const size_t steps[] = {1, 3, 7, 4096};
	for (size_t s = 0; s < ARRAY_SIZE(steps); s++) {
		struct reqp r;
		struct strbuf out = {0};
		setup(&r, true);
		CHECK_INT(feed(&r, "POST /v1/" PH " HTTP/1.1\r\nHost: api.example.com\r\nx-api-key: " PH "\r\n"
		                   "authorization:Bearer " PH "\r\nX-Other: " PH "\r\n"
		                   "Content-Length: 37\r\n\r\n{\"k\":\"" PH "\"}GET / HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n",
		               steps[s], &out), 0);
		/* one request per connection: the second is dropped */
		CHECK_STR(out.s, "POST /v1/" PH " HTTP/1.1\r\nHost: api.example.com\r\nx-api-key: " REAL "\r\n"
		                 "authorization: Bearer " REAL "\r\nX-Other: " PH "\r\n"
		                 "Content-Length: 37\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n{\"k\":\"" PH "\"}");
		CHECK_INT(r.carried, 1);
		CHECK_STR(reports, "KEY@the URL;KEY@the header X-Other;KEY@a request body;");
		reqp_free(&r);
		sb_free(&out);
	}
}

T(reqp_other_hosts_secret_is_never_replaced)
{
	struct reqp r;
	struct strbuf out = {0};
	setup(&r, false);
	CHECK_INT(feed(&r, "GET https://api.example.com/x HTTP/1.1\r\nHost: api.example.com\r\n"
	                   "x-api-key: " PH "\r\n\r\n", 5, &out), 0);
	CHECK_STR(out.s, "GET https://api.example.com/x HTTP/1.1\r\nHost: api.example.com\r\n"
	                 "x-api-key: " PH "\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n");
	CHECK_INT(r.carried, 0);
	CHECK_STR(reports, "KEY@the header x-api-key;");
	reqp_free(&r);
	sb_free(&out);
}

T(reqp_chunked_body_passes_and_is_watched)
{
	struct reqp r;
	struct strbuf out = {0};
	setup(&r, true);
	const char *in = "POST / HTTP/1.1\r\nHost: api.example.com\r\nTransfer-Encoding: chunked\r\n\r\n"
	                 "5\r\nsk-te\r\n18;x=y\r\nst-PLACEHOLDER0123456789\r\n0\r\n\r\n"
	                 "GET /next HTTP/1.1\r\nHost: api.example.com\r\nx-api-key: " PH "\r\n\r\n";
	CHECK_INT(feed(&r, in, 2, &out), 0);
	if (r.err[0])
		fprintf(stderr, "  %s\n", r.err);
	/* the body as it came, then nothing: one request per connection */
	CHECK(strstr(out.s, "\r\n\r\n5\r\nsk-te\r\n18;x=y\r\nst-PLACEHOLDER0123456789\r\n0\r\n\r\n") != NULL);
	CHECK(strstr(out.s, "GET /next") == NULL);
	CHECK_STR(reports, "KEY@a request body;");
	CHECK_INT(r.carried, 0);
	reqp_free(&r);
	sb_free(&out);
	/* a trailer field: refused before it goes (a server may merge it into
	 * the head: a Range there, an Accept-Encoding) */
	setup(&r, true);
	CHECK_INT(feed(&r, "POST / HTTP/1.1\r\nHost: api.example.com\r\nTransfer-Encoding: chunked\r\n"
	                   "\r\n0\r\nRange: bytes=0-5\r\n\r\n", 3, &out), -1);
	CHECK(strstr(out.s, "Range") == NULL);
	CHECK_INT(r.status, 400);
	reqp_free(&r);
	sb_free(&out);
}

T(reqp_refuses_ambiguous_framing)
{
	static const char *const bad[] = {
		"POST / HTTP/1.1\r\nHost: api.example.com\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: api.example.com\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: api.example.com\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: api.example.com\r\nx-api-key: a\r\n folded\r\n\r\n",
		"GET / HTTP/1.1\nHost: api.example.com\r\nx-api-key: a\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: api.example.com\r\nBad Name: a\r\n\r\n",
		"CONNECT a:443 HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
		"GET / HTTP/2.0\r\nHost: api.example.com\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: api.example.com\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"POST / HTTP/1.1\r\nHost: api.example.com\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n",
		/* domain fronting: the key would go to another site behind the same front */
		"GET / HTTP/1.1\r\nHost: evil.example.net\r\nx-api-key: " PH "\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: api.example.com.evil.net\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: api.example.com:8443\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: api.example.com\r\nHost: evil.example.net\r\n\r\n",
		"GET https://evil.example.net/ HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
		"GET http://api.example.com/ HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
		"GET / HTTP/1.1\r\nx-api-key: " PH "\r\n\r\n",
		/* TRACE echoes the request, the key included */
		"TRACE / HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
		/* a lenient server may take methods in any case */
		"trace / HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
		"Connect api.example.com:443 HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
		/* framing some servers read otherwise: TE in HTTP/1.0 (RFC 9112
		 * 6.1), a body on GET or HEAD (RFC 9110 9.3.1: a smuggling risk) */
		"POST / HTTP/1.0\r\nHost: api.example.com\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: api.example.com\r\nContent-Length: 5\r\n\r\nhello",
		"HEAD / HTTP/1.1\r\nHost: api.example.com\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		/* HEAD's answer has no body; "head" gets one from a server whose
		 * methods are case-sensitive: its framing would go unread */
		"head / HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
		"Head / HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
		/* one target: a server splitting elsewhere would see another URL */
		"GET /x https://evil.example.net/ HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct reqp r;
		struct strbuf out = {0};
		setup(&r, true);
		int rc = feed(&r, bad[i], 4096, &out);
		if (rc != -1)
			fprintf(stderr, "  accepted: %s\n", bad[i]);
		CHECK_INT(rc, -1);
		CHECK(r.status >= 400);
		reqp_free(&r);
		sb_free(&out);
	}
}

T(reqp_head_too_long)
{
	struct reqp r;
	struct strbuf out = {0};
	setup(&r, true);
	char *big = malloc(BROKER_HEAD_MAX + 100);
	memset(big, 'a', BROKER_HEAD_MAX + 99);
	big[BROKER_HEAD_MAX + 99] = '\0';
	CHECK_INT(feed(&r, big, 8192, &out), -1);
	CHECK_INT(r.status, 431);
	free(big);
	reqp_free(&r);
	sb_free(&out);
}

T(broker_spec_syntax)
{
	struct broker_spec s;
	CHECK_INT(broker_spec_parse("K", "broker:env:X for API.Example.com,b.example.org", &s, &err), 0);
	CHECK_STR(s.source, "env:X");
	CHECK_INT(s.hosts.n, 2);
	CHECK_STR(s.hosts.v[0], "api.example.com");
	CHECK_INT(s.headers.n, 2);
	CHECK_STR(s.headers.v[0], "Authorization");
	broker_spec_free(&s);
	CHECK_INT(broker_spec_parse("K", "broker:cmd:pass show for x for a.example in X-Token", &s, &err), 0);
	CHECK_STR(s.source, "cmd:pass show for x");
	CHECK_STR(s.hosts.v[0], "a.example");
	CHECK_INT(s.headers.n, 1);
	CHECK_STR(s.headers.v[0], "X-Token");
	broker_spec_free(&s);
	CHECK_INT(broker_spec_parse("K", "broker:env:X", &s, &err), -1);
	CHECK(strstr(err.msg, "expected broker:SOURCE for HOST") != NULL);
	CHECK_INT(broker_spec_parse("K", "broker:env:X for localhost", &s, &err), -1);
	CHECK_INT(broker_spec_parse("K", "broker:env:X for a.example in X:Y", &s, &err), -1);
	CHECK_INT(broker_spec_parse("K", "broker: for a.example", &s, &err), -1);
}

T(broker_placeholder_shape)
{
	char out[BROKER_PH_MAX];
	const char *v = "sk-ant-api03-AbCd0123456789xyzXYZ-_tail";
	CHECK_INT(broker_placeholder(v, out, sizeof(out)), 0);
	CHECK_INT(strlen(out), strlen(v));
	CHECK(strncmp(out, "sk-ant-api03-", 13) == 0);
	CHECK(strcmp(out, v) != 0);
	/* each character of its run's kinds (the run "tail" small letters,
	 * "-_" as they are), not of its own character's: that showed which of
	 * the key's characters were digits, small or capital letters */
	size_t alike = 0;
	for (size_t i = 13; i < 33; i++) {
		char a = v[i], b = out[i];
		CHECK(isalnum((unsigned char)b));
		alike += (isdigit((unsigned char)a) && isdigit((unsigned char)b)) ||
		         (islower((unsigned char)a) && islower((unsigned char)b)) ||
		         (isupper((unsigned char)a) && isupper((unsigned char)b));
	}
	CHECK(alike < 20);  /* all 20 alike: 1 in 3^20 by chance */
	CHECK(strncmp(out + 33, "-_", 2) == 0);
	for (size_t i = 35; i < strlen(v); i++)
		CHECK(islower((unsigned char)out[i]));
	char again[BROKER_PH_MAX];
	CHECK_INT(broker_placeholder(v, again, sizeof(again)), 0);
	CHECK(strcmp(out, again) != 0);
	CHECK_INT(broker_placeholder("ghp_short", out, sizeof(out)), -1);
}

/* The kept prefix is the key's format, never its random characters: a
 * UUID's groups, or an sk-proj- key's characters before a '-' in its random
 * part, went to the jail as they were. */
T(broker_placeholder_keeps_only_format_words)
{
	char out[BROKER_PH_MAX];
	const char *uuid = "123e4567-e89b-12d3-a456-426614174000";
	CHECK_INT(broker_placeholder(uuid, out, sizeof(out)), 0);
	size_t same = 0;
	for (size_t i = 0; i < 13; i++)
		same += out[i] == uuid[i] && uuid[i] != '-';
	CHECK(same < 6);  /* by chance only: each digit 1 in 10 */
	const char *proj = "sk-proj-Ab3_x9ZqLmNoPqRsTuVwXyZ0123456789abc";
	CHECK_INT(broker_placeholder(proj, out, sizeof(out)), 0);
	CHECK(strncmp(out, "sk-proj-", 8) == 0);
	CHECK(strncmp(out + 8, "Ab3", 3) != 0);
	const char *gh = "github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz";
	CHECK_INT(broker_placeholder(gh, out, sizeof(out)), 0);
	CHECK(strncmp(out, "github_pat_", 11) == 0);
	const char *one = "sk-ant-api03-x-Cd0123456789xyzXYZabcd_ta";
	CHECK_INT(broker_placeholder(one, out, sizeof(out)), 0);
	CHECK(strncmp(out, "sk-ant-api03-", 13) == 0 && out[14] == '-');
	CHECK(broker_placeholder_fits(one, "sk-ant-api03-q-9aZb8Yc7Xd6We5Vf4Ug3Th_tb"));
		const char *ant = "sk-ant-admin01-AbCd0123456789xyzXYZ-_ta";
	CHECK_INT(broker_placeholder(ant, out, sizeof(out)), 0);
	CHECK(strncmp(out, "sk-ant-admin01-", 15) == 0);
	/* one stored by an older jail, with the UUID's first groups: not kept */
	CHECK(!broker_placeholder_fits(uuid, "123e4567-e89b-98d7-b123-987654321012"));
	CHECK(broker_placeholder(uuid, out, sizeof(out)) == 0 && broker_placeholder_fits(uuid, out));
}

T(broker_placeholder_fits_only_its_shape)
{
	const char *v = "sk-ant-api03-AbCd0123456789xyzXYZ-_tail";
	char ph[BROKER_PH_MAX];
	CHECK_INT(broker_placeholder(v, ph, sizeof(ph)), 0);
	CHECK(broker_placeholder_fits(v, ph));
	CHECK(broker_placeholder_fits(v, "sk-ant-api03-0aZ9bY8cX7dW6eV5fU4g-_wxyz"));
	/* an older jail's, each character of the value's own kind: replaced */
	CHECK(!broker_placeholder_fits(v, "sk-ant-api03-XyZw9876543210abcABC-_wxyz"));
	CHECK(!broker_placeholder_fits(v, v));                                        /* the value */
	CHECK(!broker_placeholder_fits(v, "sk-ant-api03-XyZw9876543210abcABC-_wxy"));  /* shorter */
	CHECK(!broker_placeholder_fits(v, "sk-ant-api04-XyZw9876543210abcABC-_wxyz")); /* prefix */
	CHECK(!broker_placeholder_fits(v, "sk-ant-api03-0aZ9bY8cX7dW6eV5fU4g-_wxY1")); /* not small */
	CHECK(!broker_placeholder_fits(v, "sk-ant-api03-XyZw9876543210abcABC_-wxyz")); /* - and _ */
	/* the value's shape changed (a longer key, another prefix): no fit */
	CHECK(!broker_placeholder_fits("sk-ant-api03-AbCd0123456789xyzXYZ-_tails", ph));
	CHECK(!broker_placeholder_fits("sk-ant-admin01-AbCd0123456789xyzXYZ-_ta", ph));
	CHECK(!broker_placeholder_fits(v, ""));
}

T(broker_add_keeps_a_stored_placeholder_that_fits)
{
	struct broker *b = broker_new();
	struct broker_spec spec;
	const char *ph = NULL;
	const char *kept = "sk-test-w1XyA2vB3uC4tD5sE6rp8";
	CHECK_INT(broker_spec_parse("K", "broker:env:X for api.example.com", &spec, &err), 0);
	int rc = broker_add(b, "K", REAL, &spec, kept, &ph, &err);
	broker_spec_free(&spec);
	if (rc < 0 && strstr(err.msg, "MADV_WIPEONFORK"))
		T_SKIP("the kernel has no MADV_WIPEONFORK");
	CHECK_INT(rc, 0);
	CHECK_STR(ph, kept);
	/* another secret given the same stored one, or one of another shape: new */
	CHECK_INT(broker_spec_parse("L", "broker:env:X for api.example.com", &spec, &err), 0);
	CHECK_INT(broker_add(b, "L", REAL, &spec, kept, &ph, &err), 0);
	broker_spec_free(&spec);
	CHECK(strcmp(ph, kept) != 0 && broker_placeholder_fits(REAL, ph));
	CHECK_INT(broker_spec_parse("M", "broker:env:X for api.example.com", &spec, &err), 0);
	CHECK_INT(broker_add(b, "M", REAL, &spec, "sk-test-short", &ph, &err), 0);
	broker_spec_free(&spec);
	CHECK(broker_placeholder_fits(REAL, ph));
	struct strv l = {0};
	broker_placeholders(b, &l);
	CHECK_INT(l.n, 3);
	if (l.n == 3)
		CHECK_STR(l.v[0], "K=sk-test-w1XyA2vB3uC4tD5sE6rp8");
	strv_free(&l);
	broker_free(b);
}

T(broker_real_values_are_not_in_a_forked_child)
{
	struct broker *b = broker_new();
	struct broker_spec spec;
	const char *ph = NULL;
	CHECK_INT(broker_spec_parse("K", "broker:env:X for api.example.com", &spec, &err), 0);
	int rc = broker_add(b, "K", REAL, &spec, NULL, &ph, &err);
	broker_spec_free(&spec);
	if (rc < 0 && strstr(err.msg, "MADV_WIPEONFORK"))
		T_SKIP("the kernel has no MADV_WIPEONFORK");
	CHECK_INT(rc, 0);
	CHECK(ph && strcmp(ph, REAL) != 0 && strlen(ph) == strlen(REAL));
	/* the parent holds it; a fork-like child (the jail's init) gets zeros */
	struct broker_cred c[BROKER_MAX_SECRETS];
	CHECK_INT(broker_creds(b, "api.example.com", c), 1);
	CHECK_STR(c[0].real, REAL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(c[0].real[0] == '\0' && memcmp(c[0].real, REAL, 4) != 0 ? 0 : 1);
	int status = -1;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_INT(broker_creds(b, "other.example.com", c), 1);
	CHECK(c[0].real == NULL);
	broker_free(b);
}

T(reqp_basic_credentials_are_rewritten_inside_base64)
{
	struct reqp r;
	struct strbuf out = {0};
	setup(&r, true);
	/* git: Authorization: Basic base64("x-access-token:" TOKEN) */
	CHECK_INT(feed(&r, "GET /r.git/info/refs HTTP/1.1\r\nHost: api.example.com\r\n"
	                   "Authorization: Basic eC1hY2Nlc3MtdG9rZW46c2stdGVzdC1QTEFDRUhPTERFUjAxMjM0NTY3ODk=\r\n"
	                   "X-Plain: Basic dXNlcjpwbGFpbg==\r\n\r\n", 9, &out), 0);
	CHECK(strstr(out.s, "Authorization: Basic eC1hY2Nlc3MtdG9rZW46c2stdGVzdC1SRUFMVkFMVUU5ODc2NTQzMjEweHk=\r\n"));
	CHECK(strstr(out.s, "X-Plain: Basic dXNlcjpwbGFpbg==\r\n"));
	CHECK_INT(r.carried, 1);
	CHECK_STR(reports, "");
	reqp_free(&r);
	sb_free(&out);
	/* not for this host: the encoding goes out as it came, reported */
	setup(&r, false);
	CHECK_INT(feed(&r, "GET / HTTP/1.1\r\nHost: api.example.com\r\n"
	                   "Authorization: Basic eC1hY2Nlc3MtdG9rZW46c2stdGVzdC1QTEFDRUhPTERFUjAxMjM0NTY3ODk=\r\n\r\n",
	               4096, &out), 0);
	CHECK(strstr(out.s, "Authorization: Basic eC1hY2Nlc3MtdG9rZW46c2stdGVzdC1QTEFDRUhPTERFUjAxMjM0NTY3ODk=\r\n"));
	CHECK_STR(reports, "KEY@the header Authorization;");
	reqp_free(&r);
	sb_free(&out);
}

/* The real value goes out only as the whole credential: a placeholder glued
 * to other text would make an invalid key that an upstream's error message
 * may quote back (with the real value) into the jail. */
T(reqp_replaces_only_a_whole_credential)
{
	static const char *const glued[] = {
		"x-api-key: " PH "x\r\n",
		"x-api-key: x" PH "\r\n",
		"Authorization: Bearer " PH " " PH "\r\n",
		"Authorization: Bearer " PH ",x\r\n",
		"Authorization: Bearer x" PH "\r\n",
		"Authorization: a b " PH "\r\n",
		/* Basic "user:" PH "x" */
		"Authorization: Basic dXNlcjpzay10ZXN0LVBMQUNFSE9MREVSMDEyMzQ1Njc4OXg=\r\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(glued); i++) {
		struct reqp r;
		struct strbuf out = {0};
		setup(&r, true);
		_cleanup_free_ char *req = xasprintf("GET / HTTP/1.1\r\nHost: api.example.com\r\n%s\r\n", glued[i]);
		CHECK_INT(feed(&r, req, 4096, &out), 0);
		if (strstr(out.s, "REAL"))
			fprintf(stderr, "  replaced: %s", glued[i]);
		CHECK(strstr(out.s, "REAL") == NULL);
		CHECK_INT(r.carried, 0);
		CHECK(strstr(reports, "KEY@the header") != NULL);
		reqp_free(&r);
		sb_free(&out);
	}
	static const char *const whole[] = {
		"x-api-key: " PH "\r\n",
		"x-api-key:\t" PH " \r\n",
		"Authorization: Bearer " PH "\r\n",
		"Authorization: token " PH "\r\n",
		/* Basic PH ":x-oauth-basic" */
		"Authorization: Basic c2stdGVzdC1QTEFDRUhPTERFUjAxMjM0NTY3ODk6eC1vYXV0aC1iYXNpYw==\r\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(whole); i++) {
		struct reqp r;
		struct strbuf out = {0};
		setup(&r, true);
		_cleanup_free_ char *req = xasprintf("GET / HTTP/1.1\r\nHost: api.example.com\r\n%s\r\n", whole[i]);
		CHECK_INT(feed(&r, req, 4096, &out), 0);
		if (r.carried != 1)
			fprintf(stderr, "  not replaced: %s", whole[i]);
		CHECK_INT(r.carried, 1);
		CHECK_STR(reports, "");
		reqp_free(&r);
		sb_free(&out);
	}
}

/* One report per request, secret and place, however often the placeholder
 * is repeated there: the agent must not flood the user's terminal. */
T(reqp_reports_once_per_request_and_place)
{
	struct reqp r;
	struct strbuf out = {0};
	setup(&r, true);
	struct strbuf req = {0};
	for (int k = 0; k < 2; k++) {
		sb_puts(&req, "GET /" PH PH " HTTP/1.1\r\nHost: api.example.com\r\nX-A: " PH " " PH " " PH "\r\n");
		sb_puts(&req, "X-B: " PH "\r\nX-C: " PH "\r\n\r\n");
	}
	CHECK_INT(feed(&r, req.s, 4096, &out), 0);
	CHECK_STR(reports, "KEY@the URL;KEY@the header X-A;");
	reqp_free(&r);
	sb_free(&out);
	sb_free(&req);
}

/* CRLF only in chunk lines and trailers too: an upstream that ended a line
 * at a bare CR would frame the body differently from the broker. */
T(reqp_refuses_control_bytes_in_chunk_lines)
{
	static const char *const bad[] = {
		"5;\r\r\nhello\r\n0\r\n\r\n",
		"5;a\rb\r\nhello\r\n0\r\n\r\n",
		"5;a\001\r\nhello\r\n0\r\n\r\n",
		"5\r\nhello\r\n0\r\nT: a\rb\r\n\r\n",
		"5\r\nhello\r\n0\r\nT: a\177\r\n\r\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct reqp r;
		struct strbuf out = {0};
		setup(&r, true);
		_cleanup_free_ char *req = xasprintf("POST / HTTP/1.1\r\nHost: api.example.com\r\n"
		                                     "Transfer-Encoding: chunked\r\n\r\n%s", bad[i]);
		int rc = feed(&r, req, 4096, &out);
		if (rc != -1)
			fprintf(stderr, "  accepted: %s\n", bad[i]);
		CHECK_INT(rc, -1);
		CHECK_INT(r.status, 400);
		reqp_free(&r);
		sb_free(&out);
	}
}

/* The first 20 warnings are shown, the rest counted: a loop of requests
 * with the placeholder does not bury the user's terminal. */
T(broker_reports_are_capped)
{
	struct broker *b = broker_new();
	FILE *cap = tmpfile();
	CHECK(cap != NULL);
	fflush(stderr);
	int saved = dup(2);
	CHECK(saved >= 0 && dup2(fileno(cap), 2) == 2);
	for (int i = 0; i < 1000; i++)
		broker_report(b, "api.example.com", "KEY", "the URL");
	fflush(stderr);
	CHECK(dup2(saved, 2) == 2);
	close(saved);
	rewind(cap);
	char line[512];
	int shown = 0, further = 0;
	while (fgets(line, sizeof(line), cap)) {
		shown += strstr(line, "the placeholder of KEY") != NULL;
		further += strstr(line, "further warnings are only counted") != NULL;
	}
	fclose(cap);
	CHECK_INT(shown, 20);
	CHECK_INT(further, 1);
	CHECK_INT(b->reports, 1000);
	broker_free(b);
}

/* The real value once per credential header and request: a second field of
 * the same name (which a server joins as "REAL, PH" or "junk, REAL", an
 * invalid key an error message may quote) refuses the request; a second
 * placeholder in one Basic pair keeps its placeholder. */
T(reqp_replaces_once_per_header_name)
{
	static const char *const twice[] = {
		"x-api-key: " PH "\r\nX-API-KEY: " PH "\r\n",
		"Authorization: Bearer " PH "\r\nauthorization: " PH "\r\n",
		"x-api-key: junk\r\nx-api-key: " PH "\r\n",
		"Authorization: Bearer " PH "\r\nauthorization: x\r\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(twice); i++) {
		struct reqp r;
		struct strbuf out = {0};
		setup(&r, true);
		_cleanup_free_ char *req = xasprintf("GET / HTTP/1.1\r\nHost: api.example.com\r\n%s"
		                                     "x-other: 1\r\n\r\n", twice[i]);
		CHECK_INT(feed(&r, req, 4096, &out), -1);
		CHECK_INT(r.status, 400);
		CHECK(strstr(r.err, "given twice") != NULL);
		CHECK_INT(r.carried, 0);
		reqp_free(&r);
		sb_free(&out);
	}
	static const char *const once[] = {
		/* Basic PH ":" PH */
		"Authorization: Basic c2stdGVzdC1QTEFDRUhPTERFUjAxMjM0NTY3ODk6c2stdGVzdC1QTEFDRUhPTERFUjAxMjM0NTY3ODk=\r\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(once); i++) {
		struct reqp r;
		struct strbuf out = {0};
		setup(&r, true);
		_cleanup_free_ char *req = xasprintf("GET / HTTP/1.1\r\nHost: api.example.com\r\n%s"
		                                     "x-other: 1\r\n\r\n", once[i]);
		CHECK_INT(feed(&r, req, 4096, &out), 0);
		const char *first = strstr(out.s, "REAL");
		const char *b64 = strstr(out.s, "c2stdGVzdC1SRUFM"); /* base64 of "sk-test-REAL" */
		CHECK((first != NULL) != (b64 != NULL));
		CHECK(!first || !strstr(first + 1, "REAL"));
		CHECK(!b64 || !strstr(b64 + 1, "c2stdGVzdC1SRUFM"));  /* fields are 30 bytes: aligned */
		CHECK_INT(r.carried, 1);
		CHECK(strstr(reports, "KEY@the header") != NULL);
		reqp_free(&r);
		sb_free(&out);
	}
}

/* One request per connection: a server that misreads a body as a request
 * (CL.0: it ignores the Content-Length) lets that request's own
 * Content-Length swallow what follows as its body.  Nothing follows: the
 * upstream gets "Connection: close" and the jail's next head is dropped, so
 * no real value can become body text a model would echo. */
T(reqp_one_request_per_connection)
{
	static const char smuggled[] = "POST /v1/echo HTTP/1.1\r\nHost: api.example.com\r\nContent-Length: 300\r\n\r\n";
	struct reqp r;
	struct strbuf out = {0};
	setup(&r, true);
	_cleanup_free_ char *req = xasprintf(
		"POST /static HTTP/1.1\r\nHost: api.example.com\r\nConnection: keep-alive\r\n"
		"Keep-Alive: timeout=5\r\nContent-Length: %zu\r\n\r\n%s"
		"GET / HTTP/1.1\r\nHost: api.example.com\r\nx-api-key: " PH "\r\n\r\n",
		strlen(smuggled), smuggled);
	CHECK_INT(feed(&r, req, 7, &out), 0);
	CHECK(strstr(out.s, "REAL") == NULL);
	CHECK_INT(r.carried, 0);
	CHECK(strstr(out.s, "keep-alive") == NULL && strstr(out.s, "Keep-Alive") == NULL);
	CHECK(strstr(out.s, "Content-Length: 70\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\nPOST /v1/echo") != NULL);
	CHECK(strstr(out.s, "GET /") == NULL);
	reqp_free(&r);
	sb_free(&out);
	/* an upgrade goes with "Connection: Upgrade" (and no close); what
	 * follows waits for the answer, and goes on after a 101 */
	setup(&r, true);
	CHECK_INT(feed(&r, "GET /ws HTTP/1.1\r\nConnection: Upgrade\r\nHost: api.example.com\r\n"
	                   "Upgrade: websocket\r\n\r\nframes", 4096, &out), 0);
	CHECK_STR(out.s, "GET /ws HTTP/1.1\r\nHost: api.example.com\r\nUpgrade: websocket\r\n"
	                 "Accept-Encoding: identity\r\nConnection: Upgrade\r\n\r\n");
	reqp_answered(&r, true, &out);
	CHECK_INT(feed(&r, " more", 4096, &out), 0);
	CHECK_STR(out.s, "GET /ws HTTP/1.1\r\nHost: api.example.com\r\nUpgrade: websocket\r\n"
	                 "Accept-Encoding: identity\r\nConnection: Upgrade\r\n\r\nframes more");
	reqp_free(&r);
	sb_free(&out);
	/* an upgrade not taken: what follows (another site's request) goes nowhere */
	setup(&r, true);
	CHECK_INT(feed(&r, "GET /ws HTTP/1.1\r\nConnection: Upgrade\r\nHost: api.example.com\r\n"
	                   "Upgrade: websocket\r\n\r\nGET / HTTP/1.1\r\nHost: other.example\r\n", 4096, &out), 0);
	reqp_answered(&r, false, &out);
	CHECK_INT(feed(&r, "\r\n", 4096, &out), 0);
	CHECK(strstr(out.s, "other.example") == NULL);
	reqp_free(&r);
	sb_free(&out);
	/* nor does an Upgrade request take a body (it would wait with them) */
	setup(&r, true);
	CHECK_INT(feed(&r, "POST /ws HTTP/1.1\r\nConnection: Upgrade\r\nHost: api.example.com\r\n"
	                   "Upgrade: websocket\r\nContent-Length: 3\r\n\r\nabc", 4096, &out), -1);
	reqp_free(&r);
	sb_free(&out);
	/* an upgrade to a protocol the broker does not read (h2c: the host would
	 * answer this request in HPACK) stays back: a plain request */
	setup(&r, true);
	CHECK_INT(feed(&r, "GET / HTTP/1.1\r\nConnection: Upgrade, HTTP2-Settings\r\nHost: api.example.com\r\n"
	                   "Upgrade: h2c\r\n\r\n", 4096, &out), 0);
	CHECK_STR(out.s, "GET / HTTP/1.1\r\nHost: api.example.com\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n");
	CHECK(r.st == RQ_HEAD);
	reqp_free(&r);
	sb_free(&out);
}
/* A client's WebSocket frame (masked) holding TEXT, 16-bit length form when
 * long: appended to *b. */
static void ws_frame(struct strbuf *b, const char *text, bool fin, int opcode)
{
	static const unsigned char mask[4] = {0x5a, 0x00, 0xc3, 0x7e};
	size_t n = strlen(text);
	unsigned char h[8] = {(unsigned char)((fin ? 0x80 : 0) | opcode)};
	size_t nh = 2;
	if (n < 126) {
		h[1] = (unsigned char)(0x80 | n);
	} else {
		h[1] = 0x80 | 126;
		h[2] = (unsigned char)(n >> 8);
		h[3] = (unsigned char)n;
		nh = 4;
	}
	memcpy(h + nh, mask, 4);
	sb_append(b, (const char *)h, nh + 4);
	for (size_t i = 0; i < n; i++) {
		char c = (char)(text[i] ^ mask[i & 3]);
		sb_append(b, &c, 1);
	}
}

T(reqp_websocket_messages_are_watched_unmasked)
{
	static const size_t steps[] = {1, 5, 4096};
	char pad[300];
	memset(pad, 'x', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	for (size_t s = 0; s < ARRAY_SIZE(steps); s++) {
		struct reqp r;
		struct strbuf out = {0}, in = {0};
		setup(&r, true);
		const char *head = "GET /v1/responses HTTP/1.1\r\nHost: api.example.com\r\n"
		                   "Upgrade: websocket\r\nConnection: Upgrade\r\n"
		                   "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
		                   "Authorization: Bearer " PH "\r\n\r\n";
		sb_append(&in, head, strlen(head));
		ws_frame(&in, "{\"input\":\"clean\"}", true, 1);
		ws_frame(&in, "", true, 9); /* a ping between the messages */
		ws_frame(&in, pad, false, 1);
		/* the placeholder split between a fragment and its continuation */
		ws_frame(&in, "env: KEY=sk-test-PLACE", false, 0);
		ws_frame(&in, "HOLDER0123456789 done", true, 0);
		for (size_t i = 0; i < in.len; i += steps[s]) {
			size_t n = in.len - i < steps[s] ? in.len - i : steps[s];
			CHECK_INT(reqp_feed(&r, in.s + i, n, &out), 0);
		}
		reqp_answered(&r, true, &out);  /* the upstream's 101 */
		/* no compression asked for, the key in the head, the frames as sent */
		CHECK(!strstr(out.s, "permessage-deflate"));
		CHECK(strstr(out.s, "Authorization: Bearer " REAL "\r\n"));
		CHECK(strstr(out.s, "Connection: Upgrade\r\n\r\n"));
		size_t hl = (size_t)(strstr(out.s, "\r\n\r\n") + 4 - out.s);
		size_t inhl = strlen(head);
		CHECK_INT(out.len - hl, in.len - inhl);
		CHECK(memcmp(out.s + hl, in.s + inhl, in.len - inhl) == 0);
		CHECK_STR(reports, "KEY@a WebSocket message;");
		reqp_free(&r);
		sb_free(&out);
		sb_free(&in);
	}
}

/* ---- rules per method and path (only METHOD PATH, ...) ---- */

static struct strv git_rules;
static char withheld[512];

static void on_withhold(void *arg, const char *name, const char *request)
{
	size_t l = strlen(withheld);
	snprintf(withheld + l, sizeof(withheld) - l, "%s@%s;", name, request);
}

/* fetch anything, push only to /me/app.git */
static void setup_rules(struct reqp *r)
{
	if (!git_rules.n) {
		strv_push(&git_rules, "GET *");
		strv_push(&git_rules, "POST */git-upload-pack");
		strv_push(&git_rules, "POST /me/app.git/git-receive-pack");
	}
	setup(r, true);
	cred.rules = &git_rules;
	withheld[0] = '\0';
	reqp_init(r, "api.example.com", &cred, 1);
	r->report = on_report;
	r->withhold = on_withhold;
}

static bool allows(const char *method, const char *target)
{
	const char *path, *why;
	size_t plen;
	if (brokerrules_path(target, target + strlen(target), &path, &plen, &why) < 0)
		return false;
	return brokerrules_allow(&git_rules, method, strlen(method), path, plen);
}

static bool refused(const char *target)
{
	const char *path, *why = NULL;
	size_t plen;
	return brokerrules_path(target, target + strlen(target), &path, &plen, &why) < 0 && why;
}

T(brokerrules_match_method_and_path)
{
	struct reqp r;
	setup_rules(&r);  /* fills git_rules */
	reqp_free(&r);
	CHECK(allows("GET", "/other/repo.git/info/refs?service=git-receive-pack"));
	CHECK(allows("POST", "/other/repo.git/git-upload-pack"));
	CHECK(allows("POST", "/me/app.git/git-receive-pack"));
	CHECK(allows("POST", "https://api.example.com/me/app.git/git-receive-pack"));
	CHECK(allows("POST", "HTTPS://api.example.com:443/me/app.git/git-receive-pack?x=1"));
	CHECK(!allows("POST", "/other/repo.git/git-receive-pack"));
	/* the query never counts */
	CHECK(!allows("POST", "/other/repo.git/git-receive-pack?x=/me/app.git/git-receive-pack"));
	CHECK(!allows("POST", "/other/repo.git/git-receive-pack?/git-upload-pack"));
	CHECK(!allows("POST", "https://api.example.com?/me/app.git/git-receive-pack"));
	/* methods are exact: a lenient server's "post" is not an allowed POST */
	CHECK(!allows("post", "/me/app.git/git-receive-pack"));
	CHECK(!allows("PUT", "/me/app.git/git-receive-pack"));
	CHECK(!allows("DELETE", "/other/repo.git/git-upload-pack"));
	/* a longer or shorter path is another path */
	CHECK(!allows("POST", "/me/app.git/git-receive-pack/x"));
	CHECK(!allows("POST", "/me/app.git/git-receive-pac"));
	CHECK(!allows("POST", "/ME/app.git/git-receive-pack"));
	/* '*' takes any run, '/' included, and backtracks */
	CHECK(allows("POST", "/a/git-upload-pack/b/git-upload-pack"));
	CHECK(!allows("POST", "/a/git-upload-pack/b"));
}

/* Spellings a server may decode or resolve into another path: refused,
 * not guessed at. */
T(brokerrules_refuse_ambiguous_paths)
{
	static const char *const bad[] = {
		"/me/app.git/..%2F..%2Fother/repo.git/git-receive-pack",
		"/me/app.git%2fgit-receive-pack",
		"/me/app.git/%2e%2e/%2E%2E/other/repo.git/git-receive-pack",
		"/me/app.git/../../other/repo.git/git-receive-pack",
		"/other/repo.git/git-receive-pack/../../../me/app.git/git-receive-pack",
		"/me/./app.git/git-receive-pack",
		"/me/app.git/git-receive-pack/..",
		"/me/app.git/git-receive-pack/.",
		"//other/repo.git/git-receive-pack",
		"/other//repo.git/git-upload-pack",
		"/other/repo.git/git-receive-pack#/git-upload-pack",
		"/other/repo.git/git-receive-pack%23/git-upload-pack",
		"/other/repo.git/git-receive-pack%3F/git-upload-pack",
		"/me/app.git/%252e%252e/x",
		"/me/app.git/..\\other\\git-receive-pack",
		"/me/app.git/..;/..;/other/repo.git/git-receive-pack",
		"/x/%2",
		"/x/%zz",
		"/x/%00",
		"https://api.example.com/a/../b",
		"other/repo.git/git-upload-pack",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (!refused(bad[i]))
			fprintf(stderr, "not refused: %s\n", bad[i]);
		CHECK(refused(bad[i]));
	}
	/* one spelling: letters may be escaped, names may be UTF-8, dots inside names */
	CHECK(!refused("/me/app.git/git-receive-pack"));
	CHECK(!refused("/me/%61pp.git/%C3%A9/x..y/.git/a./"));
	CHECK(!refused("/x?a=%2F../%2e"));
	CHECK(!refused("*"));
	CHECK(!refused("https://api.example.com"));
}

T(brokerrules_syntax)
{
	struct broker_spec s;
	CHECK_INT(broker_spec_parse("GITHUB_TOKEN", "broker:env:GH for github.com only GET *, "
	                            "POST  */git-upload-pack ,POST /me/app.git/git-receive-pack",
	                            &s, &err), 0);
	CHECK_STR(s.source, "env:GH");
	CHECK_INT(s.hosts.n, 1);
	CHECK_INT(s.headers.n, 2);
	CHECK_INT(s.rules.n, 3);
	CHECK_STR(s.rules.v[1], "POST */git-upload-pack");
	CHECK_STR(s.rules.v[2], "POST /me/app.git/git-receive-pack");
	broker_spec_free(&s);
	CHECK_INT(broker_spec_parse("K", "broker:env:X for a.example in Authorization only * /v1/*",
	                            &s, &err), 0);
	CHECK_INT(s.headers.n, 1);
	CHECK_STR(s.rules.v[0], "* /v1/*");
	broker_spec_free(&s);
	CHECK_INT(broker_spec_parse("K", "broker:env:X for a.example", &s, &err), 0);
	CHECK_INT(s.rules.n, 0);
	broker_spec_free(&s);
	static const char *const bad[] = {
		"broker:env:X for a.example only get *",
		"broker:env:X for a.example only GET",
		"broker:env:X for a.example only GET x/y",
		"broker:env:X for a.example only GET /x?service=git-receive-pack",
		"broker:env:X for a.example only GET /x#y",
		"broker:env:X for a.example only GET /x y",
		"broker:env:X for a.example only ",
		"broker:env:X for a.example only GET *, ",
		"broker:env:X for a.example only GET * in Authorization",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK_INT(broker_spec_parse("K", bad[i], &s, &err), -1);
	CHECK_INT(broker_spec_parse("K", bad[0], &s, &err), -1);
	CHECK(strstr(err.msg, "is not a rule") != NULL);
}

/* The rewrite decision: the real value for an allowed request, the
 * placeholder (and one notice, no exfiltration report) for another. */
T(reqp_rules_decide_the_rewrite)
{
	static const char *const auth = "Authorization: Basic eC1hY2Nlc3MtdG9rZW46c2stdGVzdC1QTEFDRUhPTERFUjAxMjM0NTY3ODk=\r\n";
	static const char *const real_b64 = "eC1hY2Nlc3MtdG9rZW46c2stdGVzdC1SRUFMVkFMVUU5ODc2NTQzMjEweHk=";
	static const struct { const char *line; bool carries; } cases[] = {
		{"GET /other/repo.git/info/refs?service=git-receive-pack HTTP/1.1", true},
		{"POST /other/repo.git/git-upload-pack HTTP/1.1", true},
		{"POST /me/app.git/git-receive-pack HTTP/1.1", true},
		{"POST https://api.example.com/me/app.git/git-receive-pack HTTP/1.1", true},
		{"POST /other/repo.git/git-receive-pack HTTP/1.1", false},
		{"POST /other/repo.git/git-receive-pack?x=/me/app.git/git-receive-pack HTTP/1.1", false},
		{"post /me/app.git/git-receive-pack HTTP/1.1", false},
		{"PUT /me/app.git/git-receive-pack HTTP/1.1", false},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct reqp r;
		struct strbuf out = {0}, in = {0};
		setup_rules(&r);
		sb_printf(&in, "%s\r\nHost: api.example.com\r\n%sx-other: " PH "\r\n\r\n", cases[i].line,
		          auth);
		CHECK_INT(feed(&r, in.s, 5, &out), 0);
		CHECK_INT(r.carried, cases[i].carries);
		CHECK(cases[i].carries == (strstr(out.s, real_b64) != NULL));
		CHECK(strstr(out.s, "REAL") == NULL || cases[i].carries);
		/* a placeholder elsewhere is reported either way; a withheld one
		 * is the credential's place: no report */
		CHECK_STR(reports, "KEY@the header x-other;");
		if (!cases[i].carries)
			CHECK(strncmp(withheld, "KEY@", 4) == 0 && strchr(withheld, ';') == strrchr(withheld, ';'));
		else
			CHECK_STR(withheld, "");
		reqp_free(&r);
		sb_free(&out);
		sb_free(&in);
	}
	/* the notice names the method and path, without the query */
	struct reqp r;
	struct strbuf out = {0};
	setup_rules(&r);
	CHECK_INT(feed(&r, "POST /other/repo.git/git-receive-pack?x=1 HTTP/1.1\r\nHost: api.example.com\r\n"
	                   "x-api-key: " PH "\r\n\r\n", 4096, &out), 0);
	CHECK_STR(withheld, "KEY@POST /other/repo.git/git-receive-pack;");
	CHECK(strstr(out.s, "x-api-key: " PH "\r\n"));
	CHECK_STR(reports, "");
	reqp_free(&r);
	sb_free(&out);
}

/* With rules in force the broker refuses (400) what it cannot read one way,
 * and method overrides; a host whose secrets have no rules is unchanged. */
T(reqp_rules_refuse_ambiguous_targets_and_overrides)
{
	static const char *const heads[] = {
		"POST /me/app.git/%2e%2e/%2e%2e/other/repo.git/git-receive-pack HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
		"POST /me/app.git/../../other/repo.git/git-receive-pack HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
		"POST /me%2Fapp.git/git-receive-pack HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
		"POST //me/app.git/git-receive-pack HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
		"POST /other/repo.git/git-receive-pack#/git-upload-pack HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
		"POST /me/app.git/git-receive-pack HTTP/1.1\r\nHost: api.example.com\r\nX-HTTP-Method-Override: DELETE\r\n\r\n",
		"GET /x HTTP/1.1\r\nHost: api.example.com\r\nx-method-override: POST\r\n\r\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(heads); i++) {
		struct reqp r;
		struct strbuf out = {0};
		setup_rules(&r);
		CHECK_INT(feed(&r, heads[i], 4096, &out), -1);
		CHECK_INT(r.status, 400);
		reqp_free(&r);
		sb_free(&out);
		/* no rules: as before */
		setup(&r, true);
		CHECK_INT(feed(&r, heads[i], 4096, &out), 0);
		reqp_free(&r);
		sb_free(&out);
	}
}

/* ---- HTTP/2 header lists (reqp_pairs) ---- */

#define MAXP 16

/* Pairs from "name: value" strings; the rewritten values joined as
 * "name=value;" in *got, '!' after a sensitive one. */
static int pairs(struct reqp *r, const char *const *list, size_t n, struct strbuf *got)
{
	struct broker_pair p[MAXP] = {{0}};
	size_t off[MAXP], len[MAXP];
	bool sens[MAXP];
	struct strbuf out = {0};
	for (size_t i = 0; i < n; i++) {
		const char *colon = strchr(list[i] + 1, ':');  /* past a pseudo-header's own ':' */
		p[i] = (struct broker_pair){list[i], colon + 2, (size_t)(colon - list[i]), strlen(colon + 2)};
	}
	int rc = reqp_pairs(r, p, n, &out, off, len, sens);
	for (size_t i = 0; rc == 0 && i < n; i++)
		sb_printf(got, "%.*s=%.*s%s;", (int)p[i].nlen, p[i].name, (int)len[i], out.s + off[i],
		          sens[i] ? "!" : "");
	sb_free(&out);
	return rc;
}

T(reqp_pairs_rewrite_like_a_head)
{
	static const char *const req[] = {
		":method: POST", ":scheme: https", ":authority: api.example.com", ":path: /v1/" PH,
		"x-api-key: " PH, "authorization: Bearer " PH, "x-other: " PH,
	};
	struct reqp r;
	struct strbuf got = {0};
	setup(&r, true);
	CHECK_INT(pairs(&r, req, ARRAY_SIZE(req), &got), 0);
	CHECK_STR(got.s, ":method=POST;:scheme=https;:authority=api.example.com;:path=/v1/" PH ";"
	                 "x-api-key=" REAL "!;authorization=Bearer " REAL "!;x-other=" PH ";");
	CHECK_INT(r.carried, 1);
	CHECK_STR(reports, "KEY@the URL;KEY@the header x-other;");
	reqp_data(&r, "{\"k\":\"" PH "\"}", strlen(PH) + 8);
	CHECK(strstr(reports, "KEY@a request body;") != NULL);
	reqp_free(&r);
	sb_free(&got);
	/* another host's secret: nothing replaced */
	setup(&r, false);
	CHECK_INT(pairs(&r, req, 5, &got), 0);
	CHECK(strstr(got.s, "REAL") == NULL);
	CHECK_INT(r.carried, 0);
	reqp_free(&r);
	sb_free(&got);
}

T(reqp_pairs_refuse)
{
	static const struct { const char *const p[6]; size_t n; int status; bool rules; } cases[] = {
		{{":method: GET", ":scheme: https", ":authority: evil.example.net", ":path: /"}, 4, 421, false},
		{{":method: GET", ":scheme: https", ":authority: api.example.com", ":path: /", "host: evil.example.net"}, 5, 421, false},
		{{":method: GET", ":scheme: https", ":path: /"}, 3, 400, false},
		{{":method: CONNECT", ":authority: api.example.com"}, 2, 405, false},
		{{":method: CONNECT", ":scheme: https", ":authority: api.example.com", ":path: /", ":protocol: websocket"}, 5, 405, false},
		{{":method: TRACE", ":scheme: https", ":authority: api.example.com", ":path: /"}, 4, 405, false},
		{{":method: GET", ":scheme: http", ":authority: api.example.com", ":path: /"}, 4, 400, false},
		{{":method: POST", ":scheme: https", ":authority: api.example.com", ":path: /me/app.git/git-receive-pack", "x-http-method-override: DELETE"}, 5, 400, true},
		{{":method: POST", ":scheme: https", ":authority: api.example.com", ":path: /me/app.git/../../x/git-receive-pack"}, 4, 400, true},
		/* a credential header twice: joined, the real value would be glued */
		{{":method: GET", ":scheme: https", ":authority: api.example.com", ":path: /", "x-api-key: junk", "x-api-key: " PH}, 6, 400, false},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct reqp r;
		struct strbuf got = {0};
		if (cases[i].rules)
			setup_rules(&r);
		else
			setup(&r, true);
		CHECK_INT(pairs(&r, cases[i].p, cases[i].n, &got), -1);
		CHECK_INT(r.status, cases[i].status);
		reqp_free(&r);
		sb_free(&got);
	}
}

T(reqp_pairs_rules_read_method_and_path)
{
	const char *req[] = {":method: POST", ":scheme: https", ":authority: api.example.com:443",
	                     ":path: /other/repo.git/git-receive-pack?x=/me/app.git/git-receive-pack",
	                     "x-api-key: " PH};
	struct reqp r;
	struct strbuf got = {0};
	setup_rules(&r);
	CHECK_INT(pairs(&r, req, 5, &got), 0);
	CHECK(strstr(got.s, "x-api-key=" PH ";") != NULL);
	CHECK_STR(withheld, "KEY@POST /other/repo.git/git-receive-pack;");
	reqp_free(&r);
	sb_free(&got);
	req[3] = ":path: /me/app.git/git-receive-pack";
	setup_rules(&r);
	CHECK_INT(pairs(&r, req, 5, &got), 0);
	CHECK(strstr(got.s, "x-api-key=" REAL "!;") != NULL);
	CHECK_STR(withheld, "");
	reqp_free(&r);
	sb_free(&got);
}

/* A client's second ClientHello (after a HelloRetryRequest) naming another
 * brokered host than its first, whose ALPN callback opened the upstream:
 * the handshake fails, so host B's credentials never go to host A's
 * upstream.  The broker's context is made to prefer P-256 alone here, so
 * that a client offering an X25519 share first is asked to retry. */
static void switch_sni_on_retry(int write_p, int version, int type, const void *buf, size_t len,
                                SSL *ssl, void *arg)
{
	static const unsigned char hrr_random[8] = {0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11};
	const unsigned char *m = buf;
	if (!write_p && type == SSL3_RT_HANDSHAKE && len > 14 && m[0] == SSL3_MT_SERVER_HELLO &&
	    memcmp(m + 6, hrr_random, sizeof(hrr_random)) == 0) {
		*(bool *)arg = true;
		SSL_set_tlsext_host_name(ssl, "b.example.com");
	}
}

T(broker_sni_cannot_change_after_the_upstream_is_chosen)
{
	if (tlslib_load(&err) < 0)
		T_SKIP("no OpenSSL");
	struct broker *b = broker_new();
	struct broker_spec spec;
	const char *ph = NULL;
	CHECK_INT(broker_spec_parse("A", "broker:env:X for a.example.com", &spec, &err), 0);
	int rc = broker_add(b, "A", REAL, &spec, NULL, &ph, &err);
	broker_spec_free(&spec);
	if (rc < 0 && strstr(err.msg, "MADV_WIPEONFORK"))
		T_SKIP("the kernel has no MADV_WIPEONFORK");
	CHECK_INT(broker_spec_parse("B", "broker:env:X for b.example.com", &spec, &err), 0);
	CHECK_INT(broker_add(b, "B", REAL, &spec, NULL, &ph, &err), 0);
	broker_spec_free(&spec);
	setenv("JAIL_TEST_BROKER_UPSTREAM", "127.0.0.1:1", 1);  /* refused: no upstream needed */
	CHECK_INT(broker_prepare(b, &err), 0);
	CHECK_INT(SSL_CTX_set1_groups_list(b->server, "P-256"), 1);
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	CHECK(lfd >= 0 && bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) == 0 && listen(lfd, 4) == 0 &&
	      getsockname(lfd, (struct sockaddr *)&sa, &sl) == 0);
	CHECK_INT(broker_start(b, lfd, &err), 0);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	bool retried = false;
	CHECK_INT(SSL_CTX_set1_groups_list(ctx, "X25519:P-256"), 1);
	/* SSL_CTX_set_msg_callback, by the ctrl that tlslib has */
	SSL_CTX_callback_ctrl(ctx, SSL_CTRL_SET_MSG_CALLBACK, (void (*)(void))switch_sni_on_retry);
	SSL_CTX_set_msg_callback_arg(ctx, &retried);
	SSL *ssl = SSL_new(ctx);
	CHECK(SSL_set_fd(ssl, fd) == 1 && SSL_set_tlsext_host_name(ssl, "a.example.com") == 1 &&
	      SSL_set_alpn_protos(ssl, (const unsigned char *)"\x08http/1.1", 9) == 0);
	CHECK(SSL_connect(ssl) != 1);
	CHECK(retried);
	ERR_clear_error();
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	close(fd);
	unsetenv("JAIL_TEST_BROKER_UPSTREAM");
	broker_stop(b, true);
	broker_free(b);
}

/* Responses come uncompressed, for brokerscrub.c to read: Accept-Encoding
 * goes as "identity", in a head and in a header list. */
T(reqp_asks_for_uncompressed_responses)
{
	struct reqp r;
	struct strbuf out = {0};
	setup(&r, true);
	CHECK_INT(feed(&r, "GET / HTTP/1.1\r\nHost: api.example.com\r\nAccept-Encoding: gzip, br\r\n"
	                   "x-api-key: " PH "\r\n\r\n", 5, &out), 0);
	CHECK_STR(out.s, "GET / HTTP/1.1\r\nHost: api.example.com\r\nAccept-Encoding: identity\r\n"
	                 "x-api-key: " REAL "\r\nConnection: close\r\n\r\n");
	reqp_free(&r);
	sb_free(&out);
	/* none given lets a server choose any (RFC 9110 12.5.3): identity added */
	setup(&r, true);
	CHECK_INT(feed(&r, "GET / HTTP/1.1\r\nHost: api.example.com\r\nx-api-key: " PH "\r\n\r\n", 5,
	               &out), 0);
	CHECK(strstr(out.s, "\r\nAccept-Encoding: identity\r\n") != NULL);
	reqp_free(&r);
	sb_free(&out);
	/* an upgrade goes with the broker's Connection, naming no header of the
	 * request for a front end to drop as hop-by-hop */
	setup(&r, true);
	CHECK_INT(feed(&r, "GET /ws HTTP/1.1\r\nHost: api.example.com\r\nUpgrade: websocket\r\n"
	                   "Connection: Upgrade, Accept-Encoding\r\nx-api-key: " PH "\r\n\r\n", 5,
	               &out), 0);
	CHECK(strstr(out.s, "\r\nConnection: Upgrade\r\n\r\n") != NULL);
	CHECK(strstr(out.s, "Upgrade, Accept-Encoding") == NULL);
	reqp_free(&r);
	sb_free(&out);
	/* nor a transfer coding (TE: gzip); "trailers" is no coding */
	setup(&r, true);
	CHECK_INT(feed(&r, "GET / HTTP/1.1\r\nHost: api.example.com\r\nTE: gzip, chunked\r\n"
	                   "te: trailers\r\nx-api-key: " PH "\r\n\r\n", 5, &out), 0);
	CHECK_STR(out.s, "GET / HTTP/1.1\r\nHost: api.example.com\r\nte: trailers\r\n"
	                 "x-api-key: " REAL "\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n");
	reqp_free(&r);
	sb_free(&out);
	static const char *const req[] = {":method: GET", ":authority: api.example.com", ":path: /",
	                                  "accept-encoding: gzip, deflate"};
	setup(&r, true);
	CHECK_INT(pairs(&r, req, ARRAY_SIZE(req), &out), 0);
	CHECK(strstr(out.s, "accept-encoding=identity;") != NULL);
	reqp_free(&r);
	sb_free(&out);
}
