/* Unit tests: submodule.c — which submodule holds a path. */
#include "t.h"
#include "submodule.h"

T(submodule_of_paths)
{
	struct strv subs = {0};
	strv_push(&subs, "lib");
	strv_push(&subs, "vendor/dep");
	CHECK_STR(submodule_of(&subs, "lib/a.c"), "lib");
	CHECK_STR(submodule_of(&subs, "lib"), "lib");
	CHECK(submodule_of(&subs, "library/a.c") == NULL);
	CHECK(submodule_of(&subs, "lib.txt") == NULL);
	CHECK_STR(submodule_of(&subs, "vendor/dep/x/y"), "vendor/dep");
	CHECK(submodule_of(&subs, "vendor/other") == NULL);
	CHECK(submodule_of(&subs, "vendor") == NULL);
	strv_free(&subs);
}
