/* pathrules.c — the export filter's pure rules: deny patterns, names, symlinks,
 * binary content, flagged files. */
#include "pathrules.h"

#include <ctype.h>
#include <fnmatch.h>
#include <string.h>
#include <strings.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define RUNS_PY "compiled Python that runs instead of the source"
#define VSCODE "VS Code runs or loads it from the project"
#define VIMRC "vim/neovim loads it with 'exrc'"
#define AGENT "an agent CLI loads it (hooks, servers, commands it runs)"
#define HOOKS "git hooks run by a hooks manager"
#define PKG "a package manager reads it (scripts, shells, registries)"
#define CI "changes what CI runs with the repository's secrets"
#define MISE "changes what mise runs on entering the directory"
#define WRAPPER "changes which build tool the wrapper downloads and runs (distributionUrl)"
#define PIN "changes which program runs as a tool here (a version manager's path: pin)"
#define VCS "another version control tool's repository: the commands its config names " \
	"(hooks, extensions, a pager) run on the next use of it there, a prompt's included"

/* Files that a shell, an editor, a package manager or an agent CLI loads or runs
 * from a project directory without asking: a patch must not smuggle them in. */
const struct deny_rule pathrules_defaults[] = {
	{(char *)".envrc", (char *)"direnv runs it on entering the directory"},
	{(char *)".direnv/", (char *)"direnv state, loaded by the shell"},
	{(char *)".venv/", (char *)"a Python environment: its programs run as your tools"},
	{(char *)"venv/", (char *)"a Python environment: its programs run as your tools"},
	{(char *)"__pycache__/", (char *)RUNS_PY},
	{(char *)"*.pyc", (char *)RUNS_PY},
	{(char *)"*.pyo", (char *)RUNS_PY},
	{(char *)"node_modules/", (char *)"installed packages: they run as your tools"},
	{(char *)".vscode/tasks.json", (char *)VSCODE},
	{(char *)".vscode/settings.json", (char *)VSCODE},
	{(char *)".vscode/launch.json", (char *)VSCODE},
	{(char *)".idea/", (char *)"JetBrains project settings (run configurations)"},
	{(char *)".dir-locals.el", (char *)"Emacs evaluates it when visiting files"},
	{(char *)".dir-locals-2.el", (char *)"Emacs evaluates it when visiting files"},
	{(char *)".exrc", (char *)VIMRC},
	{(char *)".nvimrc", (char *)VIMRC},
	{(char *)".nvim.lua", (char *)VIMRC},
	/* vim's 'exrc' reads these too (the underscore names on Windows) */
	{(char *)".vimrc", (char *)VIMRC},
	{(char *)".gvimrc", (char *)VIMRC},
	{(char *)"_vimrc", (char *)VIMRC},
	{(char *)"_gvimrc", (char *)VIMRC},
	{(char *)"_exrc", (char *)VIMRC},
	{(char *)".claude/settings.json", (char *)AGENT},
	{(char *)".claude/settings.local.json", (char *)AGENT},
	{(char *)".mcp.json", (char *)AGENT},
	{(char *)".gemini/", (char *)AGENT},
	{(char *)".codex/", (char *)AGENT},
	{(char *)".cursor/", (char *)AGENT},
	{(char *)".aider.conf.yml", (char *)AGENT},
	{(char *)"opencode.json", (char *)AGENT},   /* MCP servers: commands it starts */
	{(char *)"opencode.jsonc", (char *)AGENT},
	{(char *)".opencode/", (char *)AGENT},      /* plugins: code it runs */
	{(char *)"crush.json", (char *)AGENT},
	{(char *)".crush.json", (char *)AGENT},
	{(char *)".kiro/", (char *)AGENT},
	{(char *)".continue/", (char *)AGENT},
	{(char *)".vscode/mcp.json", (char *)VSCODE},
	{(char *)".zed/", (char *)"Zed loads it from the project (language and context servers, tasks)"},
	{(char *)".helix/", (char *)"Helix loads it from the project (the language servers it starts)"},
	{(char *)".husky/", (char *)HOOKS},
	{(char *)".githooks/", (char *)HOOKS},
	/* lefthook's scripts (its source_dir and source_dir_local): the hook it
	 * installed runs those lefthook.yml names from there on every commit */
	{(char *)".lefthook/", (char *)HOOKS},
	{(char *)".lefthook-local/", (char *)HOOKS},
	{(char *)".npmrc", (char *)PKG},
	{(char *)".yarnrc", (char *)PKG},
	{(char *)".yarnrc.yml", (char *)PKG},
	{(char *)".pnpmfile.cjs", (char *)PKG},
	/* as git's own (repodir.h): Mercurial's hgrc [hooks] and [extensions],
	 * darcs' prefs/defaults posthooks, pijul's config [hooks], Jujutsu's
	 * repo config before 0.32 (pager, editor, aliases) */
	{(char *)".hg/", (char *)VCS},
	{(char *)"_darcs/", (char *)VCS},
	{(char *)".pijul/", (char *)VCS},
	{(char *)".jj/", (char *)VCS},
};
const size_t pathrules_ndefaults = ARRAY_SIZE(pathrules_defaults);

static void add_rule(struct pathrules *r, const char *pattern, char *why)
{
	r->rules = xrealloc(r->rules, (r->n + 1) * sizeof(*r->rules));
	r->rules[r->n].pattern = xstrdup(pattern);
	r->rules[r->n].why = why;
	r->n++;
}

void pathrules_init(struct pathrules *r, const struct jail_config *cfg)
{
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < pathrules_ndefaults; i++)
		if (!strv_contains(&cfg->export_allow, pathrules_defaults[i].pattern))
			add_rule(r, pathrules_defaults[i].pattern, xstrdup(pathrules_defaults[i].why));
	for (size_t i = 0; i < cfg->export_deny.n; i++)
		add_rule(r, cfg->export_deny.v[i], xstrdup("denied by the policy (export.deny)"));
	r->binary_ok = cfg->export_binary;
	r->max_size = cfg->export_max_size;
}

void pathrules_deny(struct pathrules *r, const char *pattern, const char *why)
{
	add_rule(r, pattern, xstrdup(why));
}

char *pathrules_path_pattern(const char *rel, bool dir)
{
	struct strbuf b = {0};
	sb_puts(&b, "/");
	for (const char *p = rel; *p; p++) {
		if (strchr("*?[\\", *p))
			sb_puts(&b, "\\");
		sb_append(&b, p, 1);
	}
	if (dir)
		sb_puts(&b, "/");
	return sb_steal(&b);
}

void pathrules_free(struct pathrules *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->rules[i].pattern);
		free(r->rules[i].why);
	}
	free(r->rules);
	memset(r, 0, sizeof(*r));
}

size_t pathrules_spans_tried;

/* Does pat match the components of path between [from, to)? */
static bool match_span(const char *pat, const char *path, size_t from, size_t to, int flags)
{
	char buf[4096];
	pathrules_spans_tried++;
	if (to - from >= sizeof(buf))
		return false;
	memcpy(buf, path + from, to - from);
	buf[to - from] = '\0';
	return fnmatch(pat, buf, FNM_PATHNAME | flags) == 0;
}

/* How many components a pattern can match at most.  With FNM_PATHNAME a '/'
 * of the path is matched only by a '/' of the pattern (never by '*', '?' or a
 * bracket), so a pattern with k of them spans k+1 components at most.  The
 * spans tried are bounded by it: all of them, from every component to every
 * later one, cost the path's components squared times its length, and the
 * agent's commits hold paths 2,000 components deep (15 ms each, minutes for
 * a commit of them, at every status, diff and export). */
static size_t span_max(const char *pat, size_t pl)
{
	size_t n = 1;
	for (size_t i = 0; i < pl; i++)
		n += pat[i] == '/';
	return n;
}

/* Where the last `comps` components of path start (0: it has no more). */
static size_t last_components(const char *path, size_t n, size_t comps)
{
	size_t at = n, seen = 0;
	while (at > 0 && !(path[at - 1] == '/' && ++seen == comps))
		at--;
	return at;
}

static bool ascii_eq_fold(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i] && ((a[i] | 0x20) != (b[i] | 0x20) || (a[i] | 0x20) < 'a' ||
		                     (a[i] | 0x20) > 'z'))
			return false;
	return true;
}

/* Whether path can match pat at all: a pattern of plain characters, '*' and
 * '?' matches only paths that hold its longest run of plain characters as it
 * is (with FNM_CASEFOLD, in any ASCII case: jail keeps the C locale, where
 * fnmatch folds ASCII only).  Every path of an export meets every rule, and
 * the spans' fnmatch calls were a tenth of an export's CPU; this skips them
 * for all but the paths that hold the run.  Brackets and escapes: no run,
 * always maybe. */
static bool may_match(const char *pat, size_t pl, const char *path, size_t n, int flags)
{
	if (memchr(pat, '[', pl) || memchr(pat, '\\', pl))
		return true;
	const char *run = NULL;
	size_t rl = 0;
	for (const char *p = pat, *end = pat + pl; p < end;) {
		size_t l = strcspn(p, "*?");
		if (l > rl)
			run = p, rl = l;
		p += l + 1;
	}
	if (rl == 0)
		return true;
	if (!(flags & FNM_CASEFOLD))
		return memmem(path, n, run, rl) != NULL;
	for (size_t i = 0; i + rl <= n; i++)
		if (ascii_eq_fold(path + i, run, rl))
			return true;
	return false;
}

static bool pattern_match_as(const char *pattern, const char *path, bool is_dir, int flags)
{
	char pat[4096];
	size_t pl = strlen(pattern);
	bool anchored = pattern[0] == '/';
	bool dir_only = pl > 0 && pattern[pl - 1] == '/';
	if (anchored)
		pattern++, pl--;
	if (dir_only)
		pl--;
	if (pl == 0 || pl >= sizeof(pat))
		return false;
	memcpy(pat, pattern, pl);
	pat[pl] = '\0';
	size_t n = strlen(path);
	if (!may_match(pat, pl, path, n, flags))
		return false;
	/* every span of whole components, as many as the pattern can match
	 * (span_max): start at a component, end at one */
	size_t most = span_max(pat, pl);
	for (size_t from = 0; from < n; from++) {
		if (from > 0 && path[from - 1] != '/')
			continue;
		if (anchored && from > 0)
			break;
		size_t comps = 0;
		for (size_t to = from + 1; to <= n; to++) {
			if (to < n && path[to] != '/')
				continue;
			if (++comps > most)
				break;
			bool last = to == n;
			if ((!last || !dir_only || is_dir) && match_span(pat, path, from, to, flags))
				return true;
		}
	}
	return false;
}

bool pattern_match(const char *pattern, const char *path, bool is_dir)
{
	return pattern_match_as(pattern, path, is_dir, 0);
}

/* Could a path below path (path a directory) match pattern?  A symlink there
 * makes every path below it a name of what it leads to: `.claude -> cl` is
 * .claude/settings.json for the tools that open it.  True when the pattern
 * takes path as a directory ("node_modules/"), or when the components of
 * path that end it match the pattern's leading ones (".claude" of
 * ".claude/settings.json", ".github" of ".github/workflows/ci.yml"). */
static bool pattern_match_below(const char *pattern, const char *path, int flags)
{
	char pat[4096];
	size_t pl = strlen(pattern);
	bool anchored = pattern[0] == '/';
	if (pl && pattern[pl - 1] == '/' && pattern_match_as(pattern, path, true, flags))
		return true;
	if (anchored)
		pattern++, pl--;
	if (pl >= sizeof(pat))
		return false;
	memcpy(pat, pattern, pl + 1);
	size_t n = strlen(path);
	for (char *s = pat; (s = strchr(s, '/')) && s[1]; s++) {
		*s = '\0';  /* the leading components, matched by the path's last ones */
		size_t first = last_components(path, n, span_max(pat, (size_t)(s - pat)));
		for (size_t from = first; from < n && !(anchored && from > 0); from++)
			if ((from == 0 || path[from - 1] == '/') && match_span(pat, path, from, n, flags)) {
				*s = '/';
				return true;
			}
		*s = '/';
	}
	return false;
}


/* The first rule that leaves path out: as it is (is_dir: a directory), or
 * below: a rule that would leave out a path below it (pattern_match_below). */
static const struct deny_rule *denied_by(const struct pathrules *r, const char *path,
                                         bool is_dir, bool below)
{
	/* also as other file systems read the name: ".ENVRC" is direnv's .envrc
	 * on macOS, ".vscode/tasks.json." the editor's tasks on Windows */
	_cleanup_free_ char *folded = path_fold(path);
	/* a path that folding leaves as it is has no upper case (in the C
	 * locale fnmatch folds ASCII only): a pattern without any matches it
	 * folded exactly when it does as it is, tried already */
	bool as_is = strcmp(folded, path) == 0;
	for (size_t i = 0; i < r->n; i++) {
		const char *pat = r->rules[i].pattern;
		bool fold = !as_is || strpbrk(pat, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
		if (below ? pattern_match_below(pat, path, 0) ||
		                (fold && pattern_match_below(pat, folded, FNM_CASEFOLD))
		          : pattern_match(pat, path, is_dir) ||
		                (fold && pattern_match_as(pat, folded, is_dir, FNM_CASEFOLD)))
			return &r->rules[i];
	}
	return NULL;
}

char *pathrules_denied(const struct pathrules *r, const char *path, bool is_dir)
{
	const struct deny_rule *d = denied_by(r, path, is_dir, false);
	if (!d)
		return NULL;
	_cleanup_free_ char *esc = escape_name(d->pattern);
	return xasprintf("matches '%s': %s", esc, d->why);
}

char *pathrules_denied_link(const struct pathrules *r, const char *path)
{
	char *why = pathrules_denied(r, path, false);
	const struct deny_rule *d = why ? NULL : denied_by(r, path, true, true);
	if (!d)
		return why;
	_cleanup_free_ char *esc = escape_name(d->pattern);
	return xasprintf("a symlink where a directory of '%s' would be (its files would "
	                 "go in through it): %s", esc, d->why);
}

bool path_in_git_dir(const char *path)
{
	for (const char *p = path; p;) {
		size_t l = strcspn(p, "/");
		if (l == 4 && strncmp(p, ".git", 4) == 0)
			return true;
		p = p[l] ? p + l + 1 : NULL;
	}
	return false;
}

/* The ASCII letters a file system of another OS may read a non-ASCII
 * character as (NULL if none), and the character's length in *len.  macOS
 * stores and compares names normalised, where the Kelvin sign U+212A is 'K' (a
 * canonical singleton); APFS, a casefold ext4 directory and NTFS compare by
 * Unicode case mapping, where the long s U+017F is 's', the dotless and dotted
 * i (U+0131, U+0130) are 'i' to some of them, and full case folding makes the
 * sharp s "ss" and the Latin ligatures their letters (U+FB01 "fi").
 * ".huſky/pre-commit" is husky's hook there, ".lfsconﬁg" git-lfs's config:
 * these fold as ASCII does.  Never longer than the character. */
static const char *fold_non_ascii(const char *p, size_t n, size_t *len)
{
	static const struct {
		const char *utf8, *ascii;
	} folds[] = {
		{"\xe2\x84\xaa", "k"},  /* U+212A KELVIN SIGN */
		{"\xc5\xbf", "s"},       /* U+017F LATIN SMALL LETTER LONG S */
		{"\xc4\xb0", "i"},       /* U+0130 LATIN CAPITAL LETTER I WITH DOT ABOVE */
		{"\xc4\xb1", "i"},       /* U+0131 LATIN SMALL LETTER DOTLESS I */
		{"\xc3\x9f", "ss"},      /* U+00DF LATIN SMALL LETTER SHARP S */
		{"\xe1\xba\x9e", "ss"}, /* U+1E9E LATIN CAPITAL LETTER SHARP S */
		{"\xef\xac\x80", "ff"}, /* U+FB00..U+FB06 the Latin ligatures */
		{"\xef\xac\x81", "fi"},
		{"\xef\xac\x82", "fl"},
		{"\xef\xac\x83", "ffi"},
		{"\xef\xac\x84", "ffl"},
		{"\xef\xac\x85", "st"},
		{"\xef\xac\x86", "st"},
	};
	if ((unsigned char)*p < 0x80)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(folds); i++) {
		size_t l = strlen(folds[i].utf8);
		if (l <= n && memcmp(p, folds[i].utf8, l) == 0) {
			*len = l;
			return folds[i].ascii;
		}
	}
	return NULL;
}

/* path with each component as a case-insensitive file system (macOS, Windows,
 * a casefold ext4 directory) and NTFS read it: ASCII lower case (and the few
 * other characters they take for ASCII letters, fold_non_ascii()), cut at an
 * NTFS stream (':'), trailing dots and spaces dropped.  ".GitAttributes",
 * ".gitattributes. " and ".gitattributes::$DATA" all name .gitattributes there. */
char *path_fold(const char *path)
{
	size_t n = strlen(path);
	char *out = xmalloc(n + 1), *o = out;
	for (const char *p = path; p;) {
		size_t l = strcspn(p, "/");
		size_t k = strcspn(p, ":/");
		while (k > 0 && (p[k - 1] == '.' || p[k - 1] == ' '))
			k--;
		if (k == 0)  /* ".", "..", " ": kept as they are */
			k = l;
		for (size_t i = 0, len; i < k; i++) {
			const char *a = fold_non_ascii(p + i, k - i, &len);
			if (a) {
				o = stpcpy(o, a);
				i += len - 1;
			} else {
				*o++ = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] - 'A' + 'a' : p[i]);
			}
		}
		p = p[l] ? p + l + 1 : NULL;
		if (p)
			*o++ = '/';
	}
	*o = '\0';
	return out;
}

/* Does a name end at k as NTFS reads it: nothing more, or only dots and
 * spaces (which it drops), or ':' and a stream? */
static bool ntfs_name_ends(const char *p, size_t k, size_t l)
{
	for (; k < l; k++) {
		if (p[k] == ':')
			return true;
		if (p[k] != ' ' && p[k] != '.')
			return false;
	}
	return true;
}

/* NTFS's short (8.3) names of ".gitmodules", which git refuses for a symlink
 * as it refuses the long name: "gitmod~1" to "gitmod~4", and the form NTFS
 * falls back to, a prefix of "gi7eba" then '~', a digit from 1 and more
 * digits, eight characters in all.  Any case; then as ntfs_name_ends(). */
static bool gitmodules_short_name(const char *p, size_t l)
{
	if (l >= 8 && strncasecmp(p, "gitmod~", 7) == 0 && p[7] >= '1' && p[7] <= '4')
		return ntfs_name_ends(p, 8, l);
	size_t t = 0;
	while (t < 6 && t < l && tolower((unsigned char)p[t]) == "gi7eba"[t])
		t++;
	if (t + 1 >= l || p[t] != '~' || p[t + 1] < '1' || p[t + 1] > '9')
		return false;
	for (size_t k = t + 2; k < 8; k++)
		if (k >= l || !isdigit((unsigned char)p[k]))
			return false;
	return ntfs_name_ends(p, 8, l);
}

/* A component git takes for ".git" whatever the file system: any case, as
 * NTFS reads it (".git" then only spaces and dots, or ':' and a stream; the
 * short name "git~1"), and with the characters other file systems take for
 * ASCII (path_fold()).  Git refuses the ASCII ones anywhere in an index or a
 * patch (verify_path(), core.protectNTFS on by default); ".g\u0131t" it lets
 * through, to be .git where the i is dotted. */
const char *path_git_refuses(const char *path, bool symlink)
{
	_cleanup_free_ char *folded = path_fold(path);
	const char *last = path;
	for (const char *p = folded; p;) {
		size_t l = strcspn(p, "/");
		if ((l == 4 && memcmp(p, ".git", 4) == 0) || (l == 5 && memcmp(p, "git~1", 5) == 0))
			return "a name git takes for .git (git would refuse the whole patch)";
		p = p[l] ? p + l + 1 : NULL;
	}
	for (const char *p = strchr(path, '/'); p; p = strchr(p + 1, '/'))
		last = p + 1;
	_cleanup_free_ char *base = symlink ? path_fold(last) : NULL;
	if (base && (strcmp(base, ".gitmodules") == 0 || gitmodules_short_name(last, strlen(last))))
		return "a symlink named .gitmodules (git would refuse the whole patch)";
	return NULL;
}

const char *path_name_problem(const char *path)
{
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return *p == '\n' ? "newline in the name" : "control character in the name";
	if (!is_valid_utf8(path, strlen(path)))
		return "the name is not valid UTF-8";
	/* C1 controls (U+0080..U+009F) drive terminals as well */
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] < 0xA0)
			return "control character in the name";
	/* a name that reads as another one (".git<ZWNJ>/hooks", HFS+ even takes
	 * it for .git; a bidi override reorders it) */
	for (size_t i = 0, n = strlen(path); i < n; i++)
		if (invisible_char_len(path + i, n - i))
			return "invisible or bidirectional format character in the name";
	return NULL;
}

bool symlink_leaves_tree(const char *linkpath, const char *target)
{
	if (target[0] == '/' || target[0] == '\0')
		return true;
	long depth = 0;
	for (const char *p = linkpath; *p; p++)
		if (*p == '/')
			depth++;
	for (const char *p = target; p;) {
		size_t l = strcspn(p, "/");
		if (l == 2 && p[0] == '.' && p[1] == '.') {
			if (--depth < 0)
				return true;
		} else if (!(l == 0 || (l == 1 && p[0] == '.'))) {
			depth++;
		}
		p = p[l] ? p + l + 1 : NULL;
	}
	return false;
}

bool content_is_binary(const char *buf, size_t n)
{
	return memchr(buf, '\0', n < BINARY_PROBE_LEN ? n : BINARY_PROBE_LEN) != NULL;
}

/* Whether the byte at p[i] starts what a terminal acts on: a control but
 * tab, newline, return and form feed, DEL, a C1 control (C2 80..9F), a bidi
 * override or isolate (U+202A..U+202E: E2 80 AA..AE; U+2066..U+2069: E2 81
 * A6..A9). */
static bool drives_at(const unsigned char *p, size_t i, size_t n)
{
	unsigned char b = p[i];
	if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f') || b == 0x7f)
		return true;
	if (b == 0xC2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] < 0xA0)
		return true;
	return b == 0xE2 && i + 2 < n &&
	       ((p[i + 1] == 0x80 && p[i + 2] >= 0xAA && p[i + 2] <= 0xAE) ||
	        (p[i + 1] == 0x81 && p[i + 2] >= 0xA6 && p[i + 2] <= 0xA9));
}

#ifdef __SSE2__
/* The bytes of a 16-byte block that drives_at must look at: controls but
 * the four allowed, DEL, and the lead bytes C2 and E2, as a bit mask.  Every
 * byte of the change's text passes here (12 MB for 2,000 files: a byte at a
 * time it was a twentieth of an export's CPU). */
static unsigned suspects(const unsigned char *p)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i ctl = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
	__m128i ok = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\t')),
	                                       _mm_cmpeq_epi8(x, _mm_set1_epi8('\n'))),
	                          _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\r')),
	                                       _mm_cmpeq_epi8(x, _mm_set1_epi8('\f'))));
	__m128i lead = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(0x7f)),
	                            _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8((char)0xC2)),
	                                         _mm_cmpeq_epi8(x, _mm_set1_epi8((char)0xE2))));
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_andnot_si128(ok, ctl), lead));
}
#endif

bool content_drives_terminal(const char *buf, size_t n)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = 0;
#ifdef __SSE2__
	for (; i + 16 <= n; i += 16)
		for (unsigned m = suspects(p + i); m; m &= m - 1)
			if (drives_at(p, i + (size_t)__builtin_ctz(m), n))
				return true;
#endif
	for (; i < n; i++)
		if (drives_at(p, i, n))
			return true;
	return false;
}

/* Files that decide what the host's tools ignore, fetch, check out or run on
 * their own (on checkout, commit, push, entering the directory); the list and
 * its reasons are in README "Security model". */
static const struct {
	const char *name, *why;
} flagged[] = {
	{".gitignore", "changes which files git ignores (and so which host files the "
	               "jail hides and the export leaves out)"},
	{".gitattributes", "changes how git filters, diffs and merges files"},
	{".lfsconfig", "changes where git-lfs fetches and pushes objects"},
	{".gitmodules", "changes which repositories git fetches"},
	{".pre-commit-config.yaml", "changes the commands pre-commit runs"},
	{".gitlab-ci.yml", CI},
	/* the other CI services' files, read from the pushed tree the same way */
	{".travis.yml", CI},
	{".drone.yml", CI},
	{".woodpecker.yml", CI},
	{".cirrus.yml", CI},
	{"appveyor.yml", CI},
	{".appveyor.yml", CI},
	{"azure-pipelines.yml", CI},
	{"bitbucket-pipelines.yml", CI},
	{"jenkinsfile", CI},  /* names are compared folded */
	{".devcontainer.json", "changes what editors build and run in a dev container"},
	{".jail.ini", "changes the project's jail policy"},
	/* who is shown and who must review: git log maps authors through it
	 * (one of the agent's under the user's name), and a forge requires the
	 * code owners' approval before a merge */
	{".mailmap", "changes the names git log and blame show for authors"},
	{"codeowners", "changes whose review the forge requires before a merge"},
	/* the wrapper scripts (gradlew, mvnw; IDEs run them on opening the
	 * project) download and run what these name: a URL changed in a line */
	{"gradle-wrapper.properties", WRAPPER},
	{"maven-wrapper.properties", WRAPPER},
	/* version pins that can name a directory of programs: asdf's and mise's
	 * "nodejs path:tools/n" makes their shim for node run tools/n/bin/node,
	 * rustup's [toolchain] path its rustc; a prompt (starship) runs `node
	 * --version` on entering the directory.  Pins of a version name only
	 * (.nvmrc, .python-version) choose among what you installed. */
	{".tool-versions", PIN},
	{"rust-toolchain", PIN},
	{"rust-toolchain.toml", PIN},
};
static const struct {
	const char *dir, *why;  /* any file below a directory of this path */
} flagged_dirs[] = {
	{".github/workflows/", CI},
	{".github/actions/", CI},  /* local actions the workflows use ("uses: ./.github/actions/x") */
	{".gitea/workflows/", CI},
	{".forgejo/workflows/", CI},
	{".circleci/", CI},
	{".buildkite/", CI},
	{".woodpecker/", CI},
	{".devcontainer/", "changes what editors build and run in a dev container"},
	{".mise/", MISE},
	{".config/mise/", MISE},
};

/* The command lists of hooks managers other than pre-commit (lefthook,
 * overcommit, lint-staged behind husky, husky 4's own), and the configs of
 * what such a hook runs on every commit that load code (commitlint's: a .js
 * one is run, a .yml one's "extends: ./x.js" too): run on every commit once
 * installed.  base is compared without one leading dot (lefthook reads both). */
static const char *const hook_configs[] = {
	"lefthook.yml", "lefthook.yaml", "lefthook.json", "lefthook.toml",
	"lefthook-local.yml", "lefthook-local.yaml", "lefthook-local.json",
	"lefthook-local.toml", "overcommit.yml", "lintstagedrc", "lintstagedrc.*",
	"lint-staged.config.*", "huskyrc", "huskyrc.*", "husky.config.*", "commitlintrc",
	"commitlintrc.*", "commitlint.config.*",
};

/* mise's config files beside the ones in flagged_dirs: its hooks and env
 * run on entering the directory (names folded, see path_fold()). */
static bool is_mise_config(const char *folded, const char *base)
{
	static const char *const names[] = {"mise.toml", "mise.*.toml", ".mise.toml",
	                                    ".mise.*.toml", ".rtx.toml", ".rtx.*.toml"};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (fnmatch(names[i], base, 0) == 0)
			return true;
	/* mise/config.toml, mise/config.local.toml */
	size_t dl = (size_t)(base - folded);
	return fnmatch("config*.toml", base, 0) == 0 && dl >= 5 &&
	       strncmp(base - 5, "mise/", 5) == 0 && (dl == 5 || base[-6] == '/');
}

static bool is_commit_hook_config(const char *base)
{
	const char *const *pats = hook_configs;
	const char *b = base[0] == '.' ? base + 1 : base;
	for (size_t i = 0; i < ARRAY_SIZE(hook_configs); i++)
		if (fnmatch(pats[i], b, FNM_PERIOD) == 0)
			return true;
	return false;
}

const char *path_flag_reason(const char *path, bool symlink)
{
	/* compared as other file systems read names: the repository is checked
	 * out on them too (by colleagues, by CI) */
	_cleanup_free_ char *folded = path_fold(path);
	const char *base = strrchr(folded, '/');
	base = base ? base + 1 : folded;
	for (size_t i = 0; i < ARRAY_SIZE(flagged); i++)
		if (strcmp(base, flagged[i].name) == 0)
			return flagged[i].why;
	if (is_commit_hook_config(base))
		return "changes the commands a hooks manager runs on commit";
	if (is_mise_config(folded, base))
		return MISE;
	for (size_t i = 0; i < ARRAY_SIZE(flagged_dirs); i++) {
		/* at any level, whatever a name above ends with: the first match in
		 * "x.devcontainer/app/.devcontainer/" is no directory's whole name */
		for (const char *at = strstr(folded, flagged_dirs[i].dir); at;
		     at = strstr(at + 1, flagged_dirs[i].dir))
			if (at == folded || at[-1] == '/')
				return flagged_dirs[i].why;
		/* a symlink named as the directory or one above it (".github ->
		 * ci"): the files it leads to are the directory's */
		size_t dl = strlen(flagged_dirs[i].dir);
		for (const char *p = folded; symlink && p; p = strchr(p, '/'), p = p ? p + 1 : NULL) {
			size_t l = strlen(p);
			if (l < dl && strncmp(p, flagged_dirs[i].dir, l) == 0 &&
			    flagged_dirs[i].dir[l] == '/')
				return flagged_dirs[i].why;
		}
	}
	return NULL;
}
