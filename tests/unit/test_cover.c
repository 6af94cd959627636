/* Unit tests: cover.c (where a bind would show the real home or the state dir). */
#include "t.h"
#include "cover.h"
#include "util.h"

#include <stdlib.h>

static void check_point(const char *at, const char *src, const char *hidden, const char *want)
{
	char *got = cover_point(at, src, hidden);
	if (want)
		CHECK_STR(got ? got : "(none)", want);
	else
		CHECK_STR(got ? got : "(none)", "(none)");
	free(got);
}

T(a_system_bind_holding_the_home_shows_it_below)
{
	/* /home -> /usr/home: the /usr bind shows the real home */
	check_point("/usr", "/usr", "/usr/home/u", "/usr/home/u");
	check_point("/opt", "/opt", "/opt/home/u", "/opt/home/u");
	check_point("/usr", "/usr", "/var/home/u", NULL);
}

T(a_bind_through_a_link_shows_it_at_its_own_path)
{
	/* --ro /data/link with /data/link -> /home/u/.local */
	check_point("/data/link", "/home/u/.local", "/home/u/.local/state/jail",
	            "/data/link/state/jail");
	check_point("/", "/", "/home/u", "/home/u");
	check_point("/mnt", "/", "/home/u", "/mnt/home/u");
}

T(the_hidden_dir_or_a_part_of_it_bound_by_name_is_not_covered)
{
	check_point("/home/u", "/home/u", "/home/u", NULL);
	check_point("/home/u/.local", "/home/u/.local", "/home/u", NULL);
	/* but the state dir below a named part of the home is */
	check_point("/home/u/.local", "/home/u/.local", "/home/u/.local/state/jail",
	            "/home/u/.local/state/jail");
}

T(a_sibling_with_a_common_prefix_is_not_below)
{
	check_point("/home/us", "/home/us", "/home/u", NULL);
	check_point("/home/u", "/home/u", "/home/us/x", NULL);
	check_point("/usr", "/usr", NULL, NULL);
	CHECK(path_at_or_below("/a/b", "/a"));
	CHECK(path_at_or_below("/a", "/a"));
	CHECK(!path_at_or_below("/ab", "/a"));
	CHECK(path_at_or_below("/x", "/"));
	CHECK(!path_at_or_below(NULL, "/"));
}

T(a_system_bind_never_shows_the_dir_of_homes)
{
	char *d = cover_homes_dir("/usr", "/usr/home/u");
	CHECK_STR(d ? d : "(none)", "/usr/home");
	free(d);
	d = cover_homes_dir("/usr", "/usr/local/home/u");
	CHECK_STR(d ? d : "(none)", "/usr/local/home");
	free(d);
	CHECK(cover_homes_dir("/opt", "/opt/u") == NULL);   /* /opt itself stays */
	CHECK(cover_homes_dir("/usr", "/home/u") == NULL);
	CHECK(cover_homes_dir("/usr", "/usrx/home/u") == NULL);
	CHECK(cover_homes_dir("/usr", "/usr") == NULL);
	CHECK(cover_homes_dir("/usr", NULL) == NULL);
}

T(a_writable_bind_that_could_move_a_hidden_dir)
{
	CHECK(cover_movable("/home/u/.local", "/home/u/.local/state/jail"));
	CHECK(cover_movable("/data", "/data/a/u"));
	CHECK(cover_movable("/", "/home/u"));
	CHECK(!cover_movable("/home/u/.local/state", "/home/u/.local/state/jail"));
	CHECK(!cover_movable("/home", "/home/u"));     /* u itself: a mount point */
	CHECK(!cover_movable("/home/u", "/home/u"));   /* covered whole */
	CHECK(!cover_movable("/home/us", "/home/u/x/y"));
	CHECK(!cover_movable("/home/u/x", "/home/u"));
	CHECK(!cover_movable(NULL, "/home/u/x"));
	CHECK(!cover_movable("/home", NULL));
}
