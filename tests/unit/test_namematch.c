/* Unit tests: namematch.c (hide.c's rules, read once for a walk). */
#include "t.h"
#include "hide.h"
#include "namematch.h"
#include "util.h"

static const char *const secrets[] = {
	".env*", "*.key", "id_rsa*", "*.pem", "credentials*", "*.tfstate*", ".netrc",
	".docker/config.json", ".kube/config", ".ssh", "secrets/", "*.env", "*.p[18]",
};

static void fill(struct jail_config *cfg)
{
	for (size_t i = 0; i < sizeof(secrets) / sizeof(secrets[0]); i++)
		strv_push(&cfg->secret_names, secrets[i]);
}

/* The fast comparisons agree with hide.c's fnmatch on every name. */
T(secret_shaped_names_as_hide_c_judges_them)
{
	struct jail_config cfg = {0};
	fill(&cfg);
	struct namematch *m = namematch_new(&cfg);
	static const char *const paths[] = {
		".env", ".ENV.local", "a/.env.prod", "x.env", "env", "a/SERVER.KEY", "key",
		"id_rsa", "id_rsa.pub", "my_id_rsa", "c/cert.pem", "pem", "Credentials.json",
		"state.tfstate.backup", "tfstate", ".netrc", ".netrc2", "a/.docker/config.json",
		".docker/config.json", "config.json", "docker/config.json", "a/.kube/config",
		"kube/config", ".ssh", "a/.SSH", "secrets", "a/secrets", "secretsx", "k.p8",
		"k.p1", "k.p2", "node_modules/pkg/test/fixtures/server.PEM", "main.c", "",
	};
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		bool want = hide_secret_name(&cfg, paths[i]);
		bool got = namematch_judge(m, paths[i]) == NAME_COVER;
		if (want != got)
			fprintf(stderr, "  %s: hide.c %d, namematch %d\n", paths[i], want, got);
		CHECK(want == got);
	}
	namematch_free(m);
	strv_free(&cfg.secret_names);
}

/* --show wins over a secret-shaped name, fs.hide over --show; with
 * hide_ignored = none, secret-shaped names are not hidden. */
T(show_and_hide_patterns_as_the_view_has_them)
{
	struct jail_config cfg = {0};
	fill(&cfg);
	strv_push(&cfg.show_ignored, "sub/.env");
	strv_push(&cfg.show_ignored, "keep");
	strv_push(&cfg.hide, "*.sqlite");
	strv_push(&cfg.hide, "private/notes");
	struct namematch *m = namematch_new(&cfg);
	CHECK(namematch_judge(m, "sub/.env") == NAME_SHOWN);
	CHECK(namematch_judge(m, "other/.env") == NAME_COVER);
	CHECK(namematch_judge(m, "keep") == NAME_SHOWN);
	CHECK(namematch_judge(m, "a/keep") == NAME_SHOWN);
	CHECK(namematch_judge(m, "keep/x.pem") == NAME_SHOWN); /* below a shown path */
	CHECK(namematch_judge(m, "db.sqlite") == NAME_COVER);
	CHECK(namematch_judge(m, "private/notes") == NAME_COVER);
	CHECK(namematch_judge(m, "private/notes/a") == NAME_COVER);
	CHECK(namematch_judge(m, "private") == NAME_KEEP);
	CHECK(namematch_judge(m, "src/main.c") == NAME_KEEP);
	namematch_free(m);
	cfg.hide_ignored = HIDE_NONE;
	m = namematch_new(&cfg);
	CHECK(namematch_judge(m, "other/.env") == NAME_KEEP);
	CHECK(namematch_judge(m, "db.sqlite") == NAME_COVER);
	namematch_free(m);
	strv_free(&cfg.secret_names);
	strv_free(&cfg.show_ignored);
	strv_free(&cfg.hide);
}
