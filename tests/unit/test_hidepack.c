/* test_hidepack.c — withheld objects blanked in git's packs (hidepack.h). */
#include "hidepack.h"
#include "t.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/test_hidepack.XXXXXX";

/* The first line git prints for a shell command run in dir. */
static void git_line(const char *cmd, char *out, size_t n)
{
	char full[1024];
	snprintf(full, sizeof(full), "cd %s && %s", dir, cmd);
	FILE *f = popen(full, "r");
	CHECK(f != NULL);
	out[0] = '\0';
	if (f && fgets(out, (int)n, f))
		out[strcspn(out, "\n")] = '\0';
	if (f)
		pclose(f);
}

T(kinds_of_pack_directory_files)
{
	CHECK(hidepack_kind("pack-ab.pack") == HIDEPACK_PACK);
	CHECK(hidepack_kind("pack-ab.idx") == HIDEPACK_PLAIN);
	CHECK(hidepack_kind("pack-ab.rev") == HIDEPACK_PLAIN);
	CHECK(hidepack_kind("multi-pack-index") == HIDEPACK_PLAIN);
	CHECK(hidepack_kind("tmp_pack_x1") == HIDEPACK_OTHER);
	CHECK(hidepack_kind(".tmp-12-pack-ab.pack") == HIDEPACK_OTHER);
	CHECK(hidepack_kind("pack-ab.pack.old") == HIDEPACK_OTHER);
	char *idx = hidepack_idx_name("pack-ab.pack");
	CHECK(!strcmp(idx, "pack-ab.idx"));
	free(idx);
}

T(ranges_cover_the_withheld_object_only)
{
	CHECK(mkdtemp(dir) != NULL);
	char secret[128], other[128], pack[128], off_s[160], off_o[160], cmd[512];
	snprintf(cmd, sizeof(cmd), "git init -q %s", dir);
	CHECK(system(cmd) == 0);
	git_line("printf 'SECRET=canary\\n' | git hash-object -w --stdin", secret, sizeof(secret));
	git_line("printf 'other\\n' | git hash-object -w --stdin", other, sizeof(other));
	snprintf(cmd, sizeof(cmd), "printf '%%s\\n%%s\\n' %s %s | git pack-objects -q .git/objects/pack/pack",
	         secret, other);
	git_line(cmd, pack, sizeof(pack));
	CHECK(strlen(pack) == 40);
	snprintf(cmd, sizeof(cmd), "git show-index <.git/objects/pack/pack-%s.idx | grep %s", pack, secret);
	git_line(cmd, off_s, sizeof(off_s));
	snprintf(cmd, sizeof(cmd), "git show-index <.git/objects/pack/pack-%s.idx | grep %s", pack, other);
	git_line(cmd, off_o, sizeof(off_o));
	char p[512];
	snprintf(p, sizeof(p), "%s/.git/objects/pack/pack-%s.idx", dir, pack);
	int idx = open(p, O_RDONLY | O_CLOEXEC);
	snprintf(p, sizeof(p), "%s/.git/objects/pack/pack-%s.pack", dir, pack);
	int pk = open(p, O_RDONLY | O_CLOEXEC);
	CHECK(idx >= 0 && pk >= 0);
	struct strv ids = {0};
	char key[160];
	snprintf(key, sizeof(key), "%.2s/%s", secret, secret + 2);
	strv_push(&ids, key);
	struct hidepack_range *r = NULL;
	size_t n = 0;
	CHECK(hidepack_ranges(idx, pk, &ids, &r, &n) == 0);
	CHECK(n == 1);
	unsigned long long so = strtoull(off_s, NULL, 10), oo = strtoull(off_o, NULL, 10);
	off_t size = lseek(pk, 0, SEEK_END);
	CHECK(n == 1 && r[0].from == so);
	/* it ends where the next object starts, or at the trailer */
	CHECK(n == 1 && r[0].to == (oo > so ? oo : (unsigned long long)size - 20));
	char buf[4096];
	ssize_t len = pread(pk, buf, sizeof(buf), 0);
	CHECK(len == size);
	hidepack_blank(r, n, buf, (size_t)len, 0);
	for (unsigned long long i = so; n == 1 && i < r[0].to; i++)
		CHECK(buf[i] == 0);
	CHECK(buf[oo] != 0); /* the other object's header is as it was */
	free(r);
	/* an id the pack does not hold: nothing blanked */
	strv_free(&ids);
	strv_push(&ids, "00/00000000000000000000000000000000000000");
	CHECK(hidepack_ranges(idx, pk, &ids, &r, &n) == 0 && n == 0);
	free(r);
	/* an index that is not this pack's is refused */
	CHECK(hidepack_ranges(pk, idx, &ids, &r, &n) < 0);
	close(idx);
	close(pk);
	strv_free(&ids);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}
