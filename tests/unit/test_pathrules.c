/* Unit tests: pathrules.c — the export filter's pure rules. */
#include "t.h"
#include "pathrules.h"

static struct pathrules rules_with(const char *allow, const char *deny)
{
	struct jail_config cfg;
	config_init(&cfg);
	if (allow)
		strv_push(&cfg.export_allow, allow);
	if (deny)
		strv_push(&cfg.export_deny, deny);
	struct pathrules r;
	pathrules_init(&r, &cfg);
	config_free(&cfg);
	return r;
}

static bool denied(const struct pathrules *r, const char *path)
{
	char *why = pathrules_denied(r, path, false);
	free(why);
	return why != NULL;
}

T(patterns_match_like_gitignore)
{
	CHECK(pattern_match("*.pyc", "a.pyc", false));
	CHECK(pattern_match("*.pyc", "src/deep/a.pyc", false));
	CHECK(!pattern_match("*.pyc", "a.pyc.txt", false));
	CHECK(pattern_match("node_modules/", "node_modules/x/y.js", false));
	CHECK(pattern_match("node_modules/", "web/node_modules/y.js", false));
	CHECK(!pattern_match("node_modules/", "node_modules", false)); /* a file of that name */
	CHECK(pattern_match("node_modules/", "node_modules", true));
	CHECK(pattern_match(".vscode/tasks.json", ".vscode/tasks.json", false));
	CHECK(pattern_match(".vscode/tasks.json", "sub/.vscode/tasks.json", false));
	CHECK(!pattern_match(".vscode/tasks.json", ".vscode/extensions.json", false));
	CHECK(pattern_match("/build", "build/x", false));
	CHECK(!pattern_match("/build", "src/build/x", false));
	CHECK(pattern_match("*.c", "dir.c/x.h", false)); /* dir.c is a directory above */
	CHECK(!pattern_match("venv/", "myvenv/x", false));
	CHECK(!pattern_match("", "x", false));
	/* the spans tried are as many components as the pattern has: the
	 * matches are the same, deep in a path too */
	CHECK(pattern_match("a/b/c", "x/y/a/b/c/z", false));
	CHECK(!pattern_match("a/*/c", "a/b/b/c", false));
	CHECK(pattern_match("a/*/c", "q/a/b/c", false));
	CHECK(pattern_match("a\\/b", "x/a/b", false));
	{
		char deep[4096] = "";
		for (int i = 0; i < 1000; i++)
			strcat(deep, "a/");
		strcat(deep, ".vscode/tasks.json/f");
		/* a pattern of two components is tried on spans of at most two:
		 * about two a component (every span from each to each later one
		 * was half a million here) */
		pathrules_spans_tried = 0;
		CHECK(pattern_match(".vscode/tasks.json", deep, false));
		CHECK(!pattern_match(".vscode/launch.json", deep, false));
		CHECK(pathrules_spans_tried <= 4 * 1003);
	}
	/* '?', brackets and escapes: the quick test of may_match() keeps to
	 * what fnmatch would say */
	CHECK(pattern_match("f?o.c", "a/fxo.c", false));
	CHECK(!pattern_match("f?o.c", "a/fo.c", false));
	CHECK(pattern_match("*.[ch]", "x/y.h", false));
	CHECK(!pattern_match("*.[ch]", "x/y.s", false));
	CHECK(pattern_match("a\\*b", "a*b", false));
	CHECK(!pattern_match("a\\*b", "axb", false));
	CHECK(pattern_match("*secret*", "d/my-secret.txt", false));
	CHECK(!pattern_match("*secret*", "d/my-secre.txt", false));
	CHECK(!pattern_match("Secret*", "secret.txt", false));
}

T(defaults_leave_out_what_tools_run)
{
	struct pathrules r = rules_with(NULL, NULL);
	const char *out[] = {".envrc", ".venv/bin/python", "venv/lib/x.py", "a/__pycache__/m.cpython-311.pyc",
	                     "m.pyc", "node_modules/left-pad/index.js", ".vscode/tasks.json",
	                     ".vscode/settings.json", ".idea/workspace.xml", ".direnv/x",
	                     ".claude/settings.json", ".husky/pre-commit", ".npmrc",
	                     /* agent CLIs and editors that start commands from project config */
	                     "opencode.json", "sub/opencode.jsonc", ".opencode/plugin/x.js",
	                     ".vscode/mcp.json", ".zed/settings.json", ".kiro/settings/mcp.json",
	                     ".continue/mcpServers/x.yaml", "crush.json", ".crush.json",
	                     /* vim's exrc reads .vimrc too; Helix starts what .helix/ names */
	                     ".vimrc", "sub/.gvimrc", "_vimrc", "_exrc", ".helix/languages.toml",
	                     /* other version control tools' repositories: their config runs */
	                     "sub/.hg/hgrc", "_darcs/prefs/defaults", "x/.pijul/config",
	                     ".jj/repo/config.toml", "sub/.HG/hgrc",
	                     /* lefthook's scripts, run by the hook it installed */
	                     ".lefthook/pre-commit/fmt.sh", ".lefthook-local/pre-push/x"};
	for (size_t i = 0; i < ARRAY_SIZE(out); i++) {
		if (!denied(&r, out[i]))
			fprintf(stderr, "  not denied: %s\n", out[i]);
		CHECK(denied(&r, out[i]));
	}
	const char *in[] = {"README", "src/main.c", ".vscode/extensions.json", "envrc.md",
	                    "docs/venv.md", "CLAUDE.md", ".gitignore", "AGENTS.md",
	                    "docs/opencode.md", "opencode.json.md"};
	for (size_t i = 0; i < ARRAY_SIZE(in); i++)
		CHECK(!denied(&r, in[i]));
	char *why = pathrules_denied(&r, ".venv/bin/activate", false);
	CHECK(why && strstr(why, "'.venv/'"));
	free(why);
	pathrules_free(&r);
}

T(policy_allow_and_deny_change_the_defaults)
{
	struct pathrules r = rules_with("node_modules/", "*.secret");
	CHECK(!denied(&r, "node_modules/x.js"));
	CHECK(denied(&r, ".envrc"));
	CHECK(denied(&r, "keys/a.secret"));
	char *why = pathrules_denied(&r, "a.secret", false);
	CHECK(why && strstr(why, "export.deny"));
	free(why);
	CHECK_INT(r.max_size, 5LL * 1024 * 1024);
	CHECK(!r.binary_ok);
	pathrules_free(&r);
}

T(git_dirs_anywhere)
{
	CHECK(path_in_git_dir(".git/config"));
	CHECK(path_in_git_dir(".git"));
	CHECK(path_in_git_dir("vendor/lib/.git/hooks/post-checkout"));
	CHECK(!path_in_git_dir(".gitignore"));
	CHECK(!path_in_git_dir("a.git/x"));
	CHECK(!path_in_git_dir("x/.github/workflows/ci.yml"));
}

/* The names git's verify_path() refuses as ".git" (a patch holding one does
 * not apply at all), and their neighbours that it takes. */
T(names_git_takes_for_dot_git)
{
	const char *refused[] = {".GIT/hooks/post-checkout", "sub/.Git/config", ".git./x", ".git  ",
	                         "a/.git. .", "git~1/config", "GIT~1", ".git:stream", ".gIt::$DATA"};
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
		CHECK(path_git_refuses(refused[i], false) != NULL);
	const char *taken[] = {".gitignore", ".github/workflows/ci.yml", "a.git/x", ".git~1", "git~10",
	                       "x.GIT", ".gitmodules", "git~1x", ".git-x", "_git"};
	for (size_t i = 0; i < ARRAY_SIZE(taken); i++)
		CHECK(path_git_refuses(taken[i], false) == NULL);
	CHECK(path_git_refuses(".gitmodules", true) != NULL);
	CHECK(path_git_refuses("sub/.GITMODULES", true) != NULL);
	CHECK(path_git_refuses(".gitmodules/x", true) == NULL);
	/* NTFS's short names of .gitmodules: git refuses a symlink under them too */
	static const char *const shorts[] = {"gitmod~1", "GITMOD~4", "sub/gitmod~2. ", "gi7eba~1",
	                                     "GI7EB~12", "gi~12345", "~1234567", "gitmod~1:x"};
	for (size_t i = 0; i < sizeof(shorts) / sizeof(*shorts); i++) {
		CHECK(path_git_refuses(shorts[i], true) != NULL);
		CHECK(path_git_refuses(shorts[i], false) == NULL);
	}
	static const char *const not_shorts[] = {"gitmod~5", "gitmod~1x", "gi7eba~0", "gi7ebx~1",
	                                         "gi7eba~1a", "gitmod", "~123456"};
	for (size_t i = 0; i < sizeof(not_shorts) / sizeof(*not_shorts); i++)
		CHECK(path_git_refuses(not_shorts[i], true) == NULL);
}

T(names_with_controls_or_bad_utf8)
{
	CHECK(path_name_problem("ok name with spaces.txt") == NULL);
	CHECK(path_name_problem("caf\xc3\xa9/\xe2\x82\xac.txt") == NULL);
	CHECK(path_name_problem("a\nb") != NULL);
	CHECK(path_name_problem("a\x1b[31mred") != NULL);
	CHECK(path_name_problem("tab\there") != NULL);
	CHECK(path_name_problem("del\x7f") != NULL);
	CHECK(path_name_problem("bad\xff") != NULL);
	CHECK(path_name_problem("c1\xc2\x9b" "x") != NULL);
	/* invisible and bidi format characters: a name that reads as another */
	CHECK(path_name_problem(".git\xe2\x80\x8c/hooks/x") != NULL);  /* ZWNJ */
	CHECK(path_name_problem("ok\xe2\x80\xaetxt.sh") != NULL);      /* RLO */
	CHECK(path_name_problem("a\xe2\x81\xa6" "b") != NULL);          /* LRI */
	CHECK(path_name_problem("\xef\xbb\xbf" "bom") != NULL);         /* BOM */
	CHECK(path_name_problem("tag\xf3\xa0\x81\x81") != NULL);       /* U+E0041 */
	CHECK(path_name_problem("\xe2\x80\x90" "dash \xe2\x80\x94") == NULL); /* hyphen, em dash */
}

T(symlinks_must_stay_inside)
{
	CHECK(!symlink_leaves_tree("link", "README"));
	CHECK(!symlink_leaves_tree("a/b/link", "../c"));
	CHECK(!symlink_leaves_tree("a/link", "../x/./y"));
	CHECK(symlink_leaves_tree("link", "/etc/passwd"));
	CHECK(symlink_leaves_tree("link", "../outside"));
	CHECK(symlink_leaves_tree("a/link", "../../outside"));
	CHECK(symlink_leaves_tree("a/link", "x/../../../y"));
	CHECK(symlink_leaves_tree("link", ""));
}

T(binary_is_a_nul_in_the_first_8000_bytes)
{
	CHECK(!content_is_binary("text\n", 5));
	CHECK(content_is_binary("a\0b", 3));
	static char big[9000];
	memset(big, 'x', sizeof(big));
	big[8500] = '\0';
	CHECK(!content_is_binary(big, sizeof(big)));
	big[7999] = '\0';
	CHECK(content_is_binary(big, sizeof(big)));
}

T(flagged_files)
{
	CHECK(path_flag_reason(".gitattributes", false) != NULL);
	CHECK(path_flag_reason("sub/.gitattributes", false) != NULL);
	CHECK(path_flag_reason(".gitmodules", false) != NULL);
	CHECK(path_flag_reason(".pre-commit-config.yaml", false) != NULL);
	CHECK(path_flag_reason("README", false) == NULL);
	/* a name above that ends like the directory does not hide it */
	CHECK(path_flag_reason("x.devcontainer/app/.devcontainer/devcontainer.json", false) != NULL);
	CHECK(path_flag_reason("a.github/workflows/.github/workflows/ci.yml", false) != NULL);
	CHECK(path_flag_reason("x.devcontainer/app/devcontainer.json", false) == NULL);
	CHECK(path_flag_reason(".gitignore", false) != NULL);
	CHECK(path_flag_reason("deep/sub/.gitignore", false) != NULL);
	CHECK(path_flag_reason(".lfsconfig", false) != NULL);
	CHECK(path_flag_reason(".github/workflows/ci.yml", false) != NULL);
	CHECK(path_flag_reason("sub/.github/workflows/ci.yml", false) != NULL);
	CHECK(path_flag_reason("x.github/workflows/ci.yml", false) == NULL);
	CHECK(path_flag_reason(".github/dependabot.yml", false) == NULL);
	CHECK(path_flag_reason(".editorconfig", false) == NULL);
	/* other hook managers' command lists: they run on commit like pre-commit's */
	CHECK(path_flag_reason("lefthook.yml", false) != NULL);
	CHECK(path_flag_reason(".lefthook-local.yaml", false) != NULL);
	CHECK(path_flag_reason(".overcommit.yml", false) != NULL);
	CHECK(path_flag_reason(".lintstagedrc.json", false) != NULL);
	CHECK(path_flag_reason("lint-staged.config.mjs", false) != NULL);
	CHECK(path_flag_reason("lefthook.md", false) == NULL);
	/* husky 4's config and commitlint's, which a commit-msg hook loads */
	CHECK(path_flag_reason(".huskyrc", false) != NULL);
	CHECK(path_flag_reason("husky.config.js", false) != NULL);
	CHECK(path_flag_reason("commitlint.config.js", false) != NULL);
	CHECK(path_flag_reason(".commitlintrc.yml", false) != NULL);
	CHECK(path_flag_reason("commitlint.md", false) == NULL);
	/* version pins that can name a directory of programs (path:) */
	CHECK(path_flag_reason(".tool-versions", false) != NULL);
	CHECK(path_flag_reason("sub/rust-toolchain.toml", false) != NULL);
	CHECK(path_flag_reason("rust-toolchain", false) != NULL);
	CHECK(path_flag_reason(".nvmrc", false) == NULL);
	CHECK(path_flag_reason(".python-version", false) == NULL);
}

T(flagged_files_as_other_file_systems_read_them)
{
	/* any case (macOS, Windows), NTFS trailing dots and spaces, a stream */
	CHECK(path_flag_reason(".GitAttributes", false) != NULL);
	CHECK(path_flag_reason("sub/.GITIGNORE", false) != NULL);
	CHECK(path_flag_reason(".gitattributes. .", false) != NULL);
	CHECK(path_flag_reason(".gitmodules::$DATA", false) != NULL);
	CHECK(path_flag_reason(".LfsConfig", false) != NULL);
	CHECK(path_flag_reason(".DevContainer/devcontainer.json", false) != NULL);
	CHECK(path_flag_reason(".devcontainer. /x.json", false) != NULL);
	CHECK(path_flag_reason(".gitattributes.txt", false) == NULL);
	CHECK(path_flag_reason("gitattributes", false) == NULL);
	CHECK(path_flag_reason("...", false) == NULL);
	const char *why = path_git_refuses("sub/.GitModules.", true);
	CHECK(why != NULL);
	struct pathrules r = rules_with(NULL, NULL);
	CHECK(denied(&r, ".ENVRC"));
	CHECK(denied(&r, ".envrc."));
	CHECK(denied(&r, ".VSCode/Tasks.json"));
	CHECK(denied(&r, ".husky. /pre-commit"));
	CHECK(!denied(&r, "envrc.md"));
	pathrules_free(&r);
	/* a policy's pattern in any case meets the folded path */
	r = rules_with(NULL, "Secret?/*.KEY");
	CHECK(denied(&r, "a/SECRETS/id.key"));
	CHECK(denied(&r, "secrets/x.Key"));
	CHECK(denied(&r, "a/secrets/x.key"));  /* folding leaves it as it is */
	CHECK(!denied(&r, "secret/x.key"));
	pathrules_free(&r);
}

/* Characters other file systems take for ASCII letters: the Kelvin sign is
 * 'K' to macOS (normalised), the long s 's' to Unicode case folding (APFS,
 * casefold ext4), the dotless and dotted i 'i' to some case mappings. */
T(names_with_characters_other_file_systems_take_for_ascii)
{
	CHECK(path_flag_reason(".gitattribute\xc5\xbf", false) != NULL);
	CHECK(path_flag_reason("lefthoo\xe2\x84\xaa.yml", false) != NULL);
	CHECK(path_flag_reason(".github/wor\xe2\x84\xaa" "flows/ci.yml", false) != NULL);
	CHECK(path_flag_reason(".g\xc4\xb1tignore", false) != NULL);
	CHECK(path_flag_reason("\xe2\x84\xaa" "elvin.txt", false) == NULL);
	CHECK(path_git_refuses(".g\xc4\xb1t/hooks/pre-commit", false) != NULL);
	CHECK(path_git_refuses("sub/.G\xc4\xb0T", false) != NULL);
	CHECK(path_git_refuses(".gitmodule\xc5\xbf", true) != NULL);
	CHECK(path_git_refuses(".gitmodule\xc5\xbf", false) == NULL);
	CHECK(path_git_refuses(".g\xc4\xb1thub/x", false) == NULL);
	/* full case folding: the sharp s and the Latin ligatures */
	CHECK(path_flag_reason(".lfscon\xef\xac\x81g", false) != NULL);
	CHECK(path_flag_reason("lint-\xef\xac\x86" "aged.config.js", false) != NULL);
	CHECK(path_flag_reason("Jenkins\xef\xac\x81le", false) != NULL);
	CHECK(path_flag_reason("cla\xc3\x9f.txt", false) == NULL);
	struct pathrules r = rules_with(NULL, NULL);
	CHECK(denied(&r, ".hu\xc5\xbfky/pre-commit"));
	CHECK(denied(&r, ".vscode/ta\xc5\xbfks.json"));
	CHECK(denied(&r, ".claude/\xc5\xbf" "ettings.json"));
	CHECK(denied(&r, "node_module\xc5\xbf/x/index.js"));
	CHECK(!denied(&r, "\xc5\xbfrc/main.c"));
	pathrules_free(&r);
}

static bool link_denied(const struct pathrules *r, const char *path)
{
	char *why = pathrules_denied_link(r, path);
	free(why);
	return why != NULL;
}

/* A symlink names every path below it: `.claude -> cl` is where Claude Code
 * reads .claude/settings.json, `node_modules -> nm` where node finds packages. */
T(symlink_where_a_left_out_directory_would_be)
{
	struct pathrules r = rules_with(NULL, NULL);
	CHECK(link_denied(&r, ".claude"));
	CHECK(link_denied(&r, "sub/.claude"));
	CHECK(link_denied(&r, ".vscode"));
	CHECK(link_denied(&r, "node_modules"));
	CHECK(link_denied(&r, "a/node_modules"));
	CHECK(link_denied(&r, ".husky"));
	CHECK(link_denied(&r, ".Claude"));
	CHECK(link_denied(&r, ".envrc"));        /* the name itself, as before */
	CHECK(!link_denied(&r, "claude"));
	CHECK(!link_denied(&r, ".claude-notes"));
	CHECK(!link_denied(&r, "docs"));
	CHECK(!link_denied(&r, ".claude/agents"));  /* not a directory any rule names */
	pathrules_free(&r);
	r = rules_with(NULL, "/conf/secrets/*.key");  /* anchored: only at the root */
	CHECK(link_denied(&r, "conf"));
	CHECK(link_denied(&r, "conf/secrets"));
	CHECK(!link_denied(&r, "a/conf"));
	pathrules_free(&r);
	CHECK(path_flag_reason(".github", true) != NULL);
	CHECK(path_flag_reason(".github/workflows", true) != NULL);
	CHECK(path_flag_reason("sub/.GitHub", true) != NULL);
	CHECK(path_flag_reason(".devcontainer", true) != NULL);
	CHECK(path_flag_reason(".github", false) == NULL);
	CHECK(path_flag_reason("github", true) == NULL);
	CHECK(path_flag_reason(".github/ISSUE_TEMPLATE", true) == NULL);
}

/* Every CI service reads its commands from the pushed tree and runs them with
 * the repository's secrets, not GitHub's and GitLab's only. */
T(flagged_ci_files_of_other_services)
{
	CHECK(path_flag_reason(".circleci/config.yml", false) != NULL);
	CHECK(path_flag_reason("Jenkinsfile", false) != NULL);
	CHECK(path_flag_reason(".travis.yml", false) != NULL);
	CHECK(path_flag_reason("azure-pipelines.yml", false) != NULL);
	CHECK(path_flag_reason("bitbucket-pipelines.yml", false) != NULL);
	CHECK(path_flag_reason(".buildkite/pipeline.yml", false) != NULL);
	CHECK(path_flag_reason(".gitea/workflows/ci.yml", false) != NULL);
	CHECK(path_flag_reason(".forgejo/workflows/ci.yml", false) != NULL);
	CHECK(path_flag_reason(".woodpecker/build.yml", false) != NULL);
	CHECK(path_flag_reason(".drone.yml", false) != NULL);
	CHECK(path_flag_reason(".circleci", true) != NULL);
	CHECK(path_flag_reason(".github/actions/setup/action.yml", false) != NULL);
	CHECK(path_flag_reason(".github/CODEOWNERS", false) != NULL);
	CHECK(path_flag_reason("CODEOWNERS", false) != NULL);
	CHECK(path_flag_reason(".mailmap", false) != NULL);
	CHECK(path_flag_reason("gradle/wrapper/gradle-wrapper.properties", false) != NULL);
	CHECK(path_flag_reason("sub/.mvn/wrapper/maven-wrapper.properties", false) != NULL);
	CHECK(path_flag_reason("gradle.properties", false) == NULL);
	CHECK(path_flag_reason(".github/ISSUE_TEMPLATE/bug.md", false) == NULL);
	CHECK(path_flag_reason("Jenkinsfile.md", false) == NULL);
	CHECK(path_flag_reason(".gitea/issue_template.md", false) == NULL);
}

/* What drives a terminal or reorders what it shows is seen; what text
 * holds everywhere (tabs, CRLF, form feeds, UTF-8, emoji joiners) is not. */
T(terminal_controls_in_content)
{
	static const char *const yes[] = {"a\033[8mhidden", "\x07", "back\bspace", "del\x7f",
	                                  "csi \xc2\x9b" "2J", "user\xe2\x80\xae", "x\xe2\x81\xa6y"};
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++)
		CHECK(content_drives_terminal(yes[i], strlen(yes[i])));
	static const char *const no[] = {"tab\tline\r\n\f", "caf\xc3\xa9 \xc2\xa0nbsp",
	                                 "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9", "\xef\xbb\xbf" "bom",
	                                 "cut \xe2\x80"};
	for (size_t i = 0; i < ARRAY_SIZE(no); i++)
		CHECK(!content_drives_terminal(no[i], strlen(no[i])));
	/* the same inside plain text at every offset: across the 16-byte
	 * blocks the check reads at a time, and at the buffer's end */
	for (size_t at = 0; at < 40; at++) {
		char buf[96];
		for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
			size_t l = strlen(yes[i]);
			memset(buf, 'x', sizeof(buf));
			memcpy(buf + at, yes[i], l);
			CHECK(content_drives_terminal(buf, sizeof(buf)));
			CHECK(content_drives_terminal(buf, at + l));
		}
		for (size_t i = 0; i < ARRAY_SIZE(no); i++) {
			size_t l = strlen(no[i]);
			memset(buf, 'x', sizeof(buf));
			memcpy(buf + at, no[i], l);
			CHECK(!content_drives_terminal(buf, sizeof(buf)));
			CHECK(!content_drives_terminal(buf, at + l));
		}
	}
}

/* The project's core.hooksPath directory, as it is named: anchored, and a
 * name with fnmatch's characters matches itself only. */
T(hooks_dir_rule_is_anchored_and_literal)
{
	struct pathrules r = rules_with(NULL, NULL);
	char *pat = pathrules_path_pattern("tools/h*oks", true);
	CHECK_STR(pat, "/tools/h\\*oks/");
	pathrules_deny(&r, pat, "git runs the hooks in it (core.hooksPath)");
	free(pat);
	CHECK(denied(&r, "tools/h*oks/post-applypatch"));
	CHECK(!denied(&r, "tools/hooks/post-applypatch"));
	CHECK(!denied(&r, "sub/tools/h*oks/pre-commit"));
	char *why = pathrules_denied_link(&r, "tools");  /* a link in place of a directory above */
	CHECK(why != NULL);
	free(why);
	pat = pathrules_path_pattern(".gitconfig", false);  /* a file: that path alone */
	CHECK_STR(pat, "/.gitconfig");
	pathrules_deny(&r, pat, "git reads it as config (include.path)");
	free(pat);
	CHECK(denied(&r, ".gitconfig"));
	CHECK(!denied(&r, "sub/.gitconfig"));
	pathrules_free(&r);
}

/* mise reads its config under several names and runs their hooks on cd. */
T(flagged_mise_configs)
{
	const char *flag[] = {"mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml",
	                      "mise.dev.toml", "sub/.rtx.toml", ".config/mise.toml",
	                      ".config/mise/config.toml", ".config/mise/conf.d/x.toml",
	                      ".mise/config.toml", "mise/config.toml", "a/mise/config.local.toml",
	                      "MISE.LOCAL.TOML"};
	for (size_t i = 0; i < ARRAY_SIZE(flag); i++) {
		if (!path_flag_reason(flag[i], false))
			fprintf(stderr, "  not flagged: %s\n", flag[i]);
		CHECK(path_flag_reason(flag[i], false) != NULL);
	}
	const char *not[] = {"mise.md", "docs/mise.txt", "premise/config.toml", "mise/other.toml",
	                     "config.toml", "amise.toml"};
	for (size_t i = 0; i < ARRAY_SIZE(not); i++)
		CHECK(path_flag_reason(not[i], false) == NULL);
}
