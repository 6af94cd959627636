/* Unit tests: linkcheck.c, on a small project (lower) and upper dir built in a
 * temp dir: chains, loops, depth, absolute targets, '..' at the root, links the
 * host had with links the agent made, whiteouts, opaque dirs, host-only paths. */
#include "t.h"
#include "linkcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

static char root[] = "/tmp/jail-unit-linkcheck.XXXXXX";
static struct link_view view;
static const char *host_only_path;  /* the one path host_only() names */
static const char *hidden_path;     /* the one path hidden() names */

static void mk(const char *rel)
{
	t_mkdir_under(root, rel);
}

static void put(const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		perror(p);
	else
		close(fd);
	free(p);
}

static void ln(const char *target, const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	if (symlink(target, p) < 0)
		perror(p);
	free(p);
}

static bool host_only(void *ctx, const char *path)
{
	(void)ctx;
	return host_only_path && strcmp(path, host_only_path) == 0;
}

static bool hidden(void *ctx, const char *path)
{
	(void)ctx;
	return hidden_path && strcmp(path, hidden_path) == 0;
}

/* The verdict for a link at linkpath with target: NULL (inside) or the reason. */
static char *verdict(const char *linkpath, const char *target)
{
	return link_check(&view, linkpath, target);
}

/* Does the reason start with want?  want NULL: the link must stay inside. */
static void expect(const char *linkpath, const char *target, const char *want)
{
	char *why = verdict(linkpath, target);
	if (!want && why)
		fprintf(stderr, "  %s -> %s: %s\n", linkpath, target, why);
	if (want && (!why || strncmp(why, want, strlen(want)) != 0))
		fprintf(stderr, "  %s -> %s: got '%s', want '%s...'\n", linkpath, target,
		        why ? why : "(inside)", want);
	CHECK(want ? why && strncmp(why, want, strlen(want)) == 0 : why == NULL);
	free(why);
}

#define OUT "symlink pointing outside the project"
#define UNSAFE "symlink that cannot be resolved safely"
#define HOLDS "symlink to a directory that holds it"

/* lower (the host project): README src/main.c src/lib/util.c, host links
 * src/root -> .., sys -> /etc, hl -> al, cache -> /etc, od/esc -> /etc;
 * upper (the agent): d/up -> .., d/ssh -> up/../.ssh, al -> .., la <-> lb,
 * libdir -> src/lib, od/ opaque. */
static bool setup(void)
{
	if (!mkdtemp(root))
		return false;
	mk("l/src/lib"), mk("l/od"), mk("u/d"), mk("u/od"), mk("u/x/y");
	put("l/README"), put("l/src/main.c"), put("l/src/lib/util.c");
	ln("..", "l/src/root"), ln("/etc", "l/sys"), ln("al", "l/hl"), ln("/etc", "l/cache");
	ln("/etc", "l/od/esc"), ln("/etc", "l/ex"), ln("/etc", "l/gone");
	ln("..", "u/d/up"), ln("up/../.ssh", "u/d/ssh"), ln("..", "u/al");
	ln("lb", "u/la"), ln("la", "u/lb"), ln("src/lib", "u/libdir"), ln("src", "u/ex");
	ln("self", "u/self");
	char *p = xasprintf("%s/u/od", root);
	bool opaque = setxattr(p, "user.overlay.opaque", "y", 1, 0) == 0;
	free(p);
	char *l = xasprintf("%s/l", root), *u = xasprintf("%s/u", root);
	view.lower_fd = open(l, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	view.upper_fd = open(u, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	view.host_only = host_only;
	view.hidden = hidden;
	free(l);
	free(u);
	if (!opaque)
		fprintf(stderr, "  (user xattrs unsupported here: opaque checks skipped)\n");
	return view.lower_fd >= 0 && view.upper_fd >= 0;
}

T(links_inside_stay)
{
	CHECK(setup());
	expect("link", "README", NULL);
	expect("link", "src/main.c", NULL);
	expect("src/l", "../README", NULL);
	expect("lib", "libdir", NULL);                 /* a directory link */
	expect("u", "libdir/util.c", NULL);            /* through an agent's dir link */
	expect("x/y/deep", "../../src/root/src/main.c", NULL); /* through a host link to the root */
	expect("link", "src/root/README", NULL);
	expect("link", "not/there/yet", NULL);         /* dangling: read as text */
	expect("link", "nothere/../README", NULL);
	expect("link", "./src/./lib//util.c", NULL);
}

T(issue_chain_leaves)
{
	expect("d/up", "..", HOLDS);                   /* the project root holds it */
	expect("d/ssh", "up/../.ssh", OUT " (through 'd/up' -> '..')");
	expect("top", "d/up/..", OUT);
	expect("src/l", "..", HOLDS);
	expect("src/lib/l", ".", HOLDS);
	expect("x/l", "y", NULL);                      /* a directory below it is fine */
}

T(dotdot_above_root_and_absolute)
{
	expect("link", "..", OUT " ('..' above the project root)");
	expect("link", "src/../..", OUT);
	expect("link", "nothere/../../x", OUT);
	expect("a/b/c", "../../../x", OUT);
	expect("link", "/etc/passwd", OUT " (an absolute target)");
	expect("link", "", UNSAFE);
}

T(host_links_and_agent_links_combined)
{
	expect("link", "sys/passwd", OUT " (through 'sys' -> '/etc')"); /* the host's link */
	expect("link", "sys", OUT);
	expect("link", "src/root/..", OUT);            /* host link to the root, then .. */
	expect("link", "hl/x", OUT " (through 'al' -> '..')"); /* host link -> agent link */
	expect("link", "cache/passwd", OUT);
	expect("link", "d/ssh", OUT);                  /* through the agent's chain */
}

T(loops_depth_and_non_directories)
{
	expect("la", "lb", UNSAFE " (a loop");
	expect("self", "self", UNSAFE " (a loop");
	expect("link", "README/x", UNSAFE " ('README' is not a directory)");
	expect("link", "README/", UNSAFE);
	expect("link", "src/main.c/..", UNSAFE);
	ln("README", "u/rl");
	expect("link", "rl/", UNSAFE " ('README' is not a directory)"); /* a link to a file, then / */
	expect("link", "rl", NULL);
	expect("hk", ".git/hooks", "symlink leading into .git");
	expect("hk", "src/../.git", "symlink leading into .git");
	expect("hk", "src/root/.git/config", "symlink leading into .git");
	/* .git as macOS, Windows and NTFS read the name, where the patch lands too */
	expect("hk", ".GIT/hooks", "symlink leading into .git");
	expect("hk", ".git./config", "symlink leading into .git");
	expect("hk", "git~1/config", "symlink leading into .git");
	/* a chain of links: 40 are followed, 41 are too many */
	char name[32], target[32];
	for (int i = 0; i < 41; i++) {
		snprintf(name, sizeof(name), "u/c%d", i);
		snprintf(target, sizeof(target), "c%d", i + 1);
		ln(target, name);
	}
	put("u/c41");
	expect("link", "c1", NULL);                    /* c1 .. c41: 40 links */
	expect("link", "c0", UNSAFE " (a loop, or more than 40 links)");
	char *deep = xmalloc(4 * (LINK_MAX_DEPTH + 1) + 1);
	deep[0] = '\0';
	for (int i = 0; i <= LINK_MAX_DEPTH; i++)
		strcat(deep, "a/");
	expect("link", deep, UNSAFE " (deeper than");
	free(deep);
}

T(whiteouts_opaque_dirs_and_host_only_paths)
{
	char *p = xasprintf("%s/u/gone", root);
	bool wh = mknod(p, S_IFCHR | 0600, makedev(0, 0)) == 0;
	free(p);
	if (wh) {
		expect("link", "gone/passwd", NULL);   /* deleted by the agent: dangling */
		host_only_path = "gone";               /* its deletion is left out */
		expect("link", "gone/passwd", OUT);
		host_only_path = NULL;
	} else {
		fprintf(stderr, "  (mknod refused: whiteout checks skipped)\n");
	}
	char v[2];
	char *od = xasprintf("%s/u/od", root);
	if (getxattr(od, "user.overlay.opaque", v, sizeof(v)) == 1) {
		expect("link", "od/esc/passwd", NULL); /* hidden by the opaque dir */
		host_only_path = "od/esc";
		expect("link", "od/esc/passwd", OUT);
		host_only_path = NULL;
	}
	free(od);
	/* ex: the agent made it a link to src, but that change is left out: the
	 * host's link to /etc is what the tree holds */
	expect("link", "ex/main.c", NULL);
	host_only_path = "ex";
	expect("link", "ex/main.c", OUT " (through 'ex' -> '/etc')");
	host_only_path = NULL;
	struct jail_err e;
	CHECK(rm_rf_at(AT_FDCWD, root, &e) == 0);
}

/* A path the jail hid (a file git ignores) gets no name of its own through a
 * link, directly, through a directory or at the end of a chain; one that does
 * not exist on the host has nothing to give. */
T(links_to_hidden_paths_left_out)
{
	strcpy(root, "/tmp/jail-unit-linkcheck.XXXXXX");
	CHECK(setup());
	hidden_path = "README";
	expect("pub/robots.txt", "../README", "symlink to 'README', which the jail hides");
	expect("link", "src/root/README", "symlink to 'README'");
	expect("link", "src/main.c", NULL);            /* positive control */
	hidden_path = "src/lib";
	expect("link", "libdir/util.c", "symlink to 'src/lib'");
	expect("link", "src", NULL);                   /* above it is the user's tree */
	hidden_path = "nothere";
	expect("link", "nothere", NULL);
	hidden_path = "sys";                           /* a hidden link: where it leads */
	expect("link", "sys/passwd", OUT " (through 'sys' -> '/etc')");
	hidden_path = NULL;
	expect("pub/robots.txt", "../README", NULL);
	struct jail_err e;
	CHECK(rm_rf_at(AT_FDCWD, root, &e) == 0);
}
