/* Unit tests: sha1.c against the standard's vectors (both versions), and
 * packw.c's pack, read back and checked by git itself. */
#include "t.h"
#include "packw.h"
#include "scratchobj.h"
#include "sha1.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static void hex20(const unsigned char d[20], char out[41])
{
	for (int i = 0; i < 20; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* data fed in pieces of step bytes */
static void digest(const void *data, size_t n, size_t step, char out[41])
{
	struct sha1 c;
	unsigned char d[20];
	sha1_init(&c);
	for (size_t off = 0; off < n; off += step)
		sha1_update(&c, (const char *)data + off, n - off < step ? n - off : step);
	sha1_final(&c, d);
	hex20(d, out);
}

T(sha1_standard_vectors_both_versions)
{
	bool cpu = sha1_uses_cpu();
	size_t mn = 1000000;
	char *million = xmalloc(mn);
	memset(million, 'a', mn);
	for (int pass = 0; pass < 2; pass++) {
		sha1_use_cpu(pass == 0);  /* the CPU's, when it has them; then plain C */
		char h[41];
		digest("", 0, 1, h);
		CHECK(strcmp(h, "da39a3ee5e6b4b0d3255bfef95601890afd80709") == 0);
		digest("abc", 3, 1, h);
		CHECK(strcmp(h, "a9993e364706816aba3e25717850c26c9cd0d89d") == 0);
		const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
		digest(two, strlen(two), 5, h);
		CHECK(strcmp(h, "84983e441c3bd26ebaae4aa1f95129e5e54670f1") == 0);
		digest(million, mn, 4093, h);
		CHECK(strcmp(h, "34aa973cd4c4daa4f61eeb2bdbad27316534016f") == 0);
		digest(million, mn, mn, h);
		CHECK(strcmp(h, "34aa973cd4c4daa4f61eeb2bdbad27316534016f") == 0);
	}
	sha1_use_cpu(true);
	free(million);
	if (!cpu)
		T_SKIP("the CPU has no SHA instructions: only the C version was checked");
}

T(packw_checksums_match_zlib)
{
	/* the reference values of both algorithms for these inputs */
	CHECK(packw_crc32(0, "123456789", 9) == 0xCBF43926u);
	CHECK(packw_crc32(packw_crc32(0, "1234", 4), "56789", 5) == 0xCBF43926u);
	uint32_t a = 1, b = 0;
	packw_adler32(&a, &b, "Wikipedia", 9);
	CHECK((b << 16 | a) == 0x11E60398u);
}

/* Adler-32 byte by byte, as its definition says. */
static void adler_slow(uint32_t *a, uint32_t *b, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		*a = (*a + p[i]) % 65521u;
		*b = (*b + *a) % 65521u;
	}
}

/* The vector sums (16 bytes a step) against the definition: every length
 * about the block and reduction edges, contents that push the sums highest
 * (all 0xff) and mixed ones, from sums already high, in pieces. */
T(packw_adler32_agrees_with_its_definition)
{
	size_t max = 3 * 5552 + 40;
	unsigned char *buf = xmalloc(max);
	for (int fill = 0; fill < 3; fill++) {
		for (size_t i = 0; i < max; i++)
			buf[i] = fill == 0 ? 0xff : fill == 1 ? (unsigned char)(i * 131 + i / 7) : 0;
		for (size_t n = 0; n <= max; n += n < 40 ? 1 : n < 5600 ? 37 : 1) {
			if (n > 5600 && n % 5552 > 40 && n % 5552 < 5500)
				continue;
			uint32_t a = 65520, b = 65519, ra = 65520, rb = 65519;
			size_t cut = n / 3;
			packw_adler32(&a, &b, buf, cut);
			packw_adler32(&a, &b, buf + cut, n - cut);
			adler_slow(&ra, &rb, buf, n);
			if (a != ra || b != rb) {
				CHECK(a == ra && b == rb);
				free(buf);
				return;
			}
		}
	}
	free(buf);
}

/* The output of a shell command, its last newline cut. */
static char *sh_out(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	if (!f)
		return xstrdup("");
	char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	pclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return xstrdup(buf);
}

/* Remove a test's directory tree. */
static void rm_tree(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	free(cmd);
}

/* A new bare repository at the mkdtemp template dir; false without git. */
static bool bare_repo(char *dir)
{
	if (system("git --version >/dev/null 2>&1") != 0)
		return false;
	CHECK(mkdtemp(dir) != NULL);
	char *cmd = xasprintf("git init -q --bare '%s'", dir);
	CHECK(system(cmd) == 0);
	free(cmd);
	return true;
}

T(packw_pack_is_read_and_verified_by_git)
{
	char dir[] = "/tmp/jail-unit-packw.XXXXXX";
	if (!bare_repo(dir))
		T_SKIP("git is not installed");
	/* empty, small, several stored blocks (read in odd pieces), and
	 * repeats (the second big one cut after part of it reached the file):
	 * git's own ids for each */
	size_t big_n = 200000;
	char *big = xmalloc(big_n);
	for (size_t i = 0; i < big_n; i++)
		big[i] = (char)(i * 7 + i / 300);
	const char *data[] = {"", "hello\n", big, "hello\n", big};
	size_t len[] = {0, 6, big_n, 6, big_n};
	struct packw p;
	struct jail_err e;
	CHECK(packw_open(&p, dir, 5, &e) == 0);
	char hex[5][41];
	for (int i = 0; i < 5; i++) {
		CHECK(packw_blob_start(&p, len[i], &e) == 0);
		for (size_t off = 0; off < len[i];) {
			size_t k = len[i] - off < 70001 ? len[i] - off : 70001;
			CHECK(packw_blob_data(&p, data[i] + off, k, &e) == 0);
			off += k;
		}
		CHECK(packw_blob_end(&p, hex[i], &e) == 0);
	}
	CHECK(packw_finish(&p, &e) == 0);
	packw_free(&p);
	CHECK(strcmp(hex[0], "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391") == 0);
	CHECK(strcmp(hex[1], "ce013625030ba8dba906f756967f9e9ca394464a") == 0);
	CHECK(strcmp(hex[3], hex[1]) == 0);
	CHECK(strcmp(hex[4], hex[2]) == 0);
	char *path = xasprintf("%s/big", dir);
	CHECK(write_file_at(AT_FDCWD, path, big, big_n, 0600, &e) == 0);
	char *cmd = xasprintf("git hash-object '%s'", path);
	char *want = sh_out(cmd);
	CHECK(strcmp(want, hex[2]) == 0);
	free(cmd);
	/* verify-pack indexes the pack anew and compares: ids, CRCs, offsets */
	cmd = xasprintf("git --git-dir='%s' verify-pack '%s'/objects/pack/pack-*.idx", dir, dir);
	CHECK(system(cmd) == 0);
	free(cmd);
	cmd = xasprintf("git --git-dir='%s' cat-file blob %s | cmp -s - '%s'", dir, hex[2], path);
	CHECK(system(cmd) == 0);
	free(cmd);
	free(want);
	free(path);
	free(big);
	rm_tree(dir);
}

/* Without repeats the pack's checksum is the one kept while writing (no
 * second pass): git must agree with it too. */
T(packw_pack_without_repeats_is_verified_by_git)
{
	char dir[] = "/tmp/jail-unit-packw.XXXXXX";
	if (!bare_repo(dir))
		T_SKIP("git is not installed");
	size_t big_n = 300000;
	char *big = xmalloc(big_n);
	for (size_t i = 0; i < big_n; i++)
		big[i] = (char)(i * 13 + i / 70);
	struct packw p;
	struct jail_err e;
	char hex[41];
	CHECK(packw_open(&p, dir, 2, &e) == 0);
	CHECK(packw_blob_start(&p, 3, &e) == 0 && packw_blob_data(&p, "ab\n", 3, &e) == 0);
	CHECK(packw_blob_end(&p, hex, &e) == 0);
	CHECK(packw_blob_start(&p, big_n, &e) == 0 && packw_blob_data(&p, big, big_n, &e) == 0);
	CHECK(packw_blob_end(&p, hex, &e) == 0);
	CHECK(p.resum == false);
	CHECK(packw_finish(&p, &e) == 0);
	packw_free(&p);
	char *cmd = xasprintf("git --git-dir='%s' verify-pack '%s'/objects/pack/pack-*.idx", dir, dir);
	CHECK(system(cmd) == 0);
	free(cmd);
	free(big);
	rm_tree(dir);
}

/* The index's version: 1 (no CRC-32s) for the packs an export writes, 2 with
 * the CRCs read back from the file past v1_max (2 GiB; lowered here): git
 * verify-pack checks both, the CRCs of version 2 among them. */
T(packw_index_versions_are_verified_by_git)
{
	for (int v = 1; v <= 2; v++) {
		char dir[] = "/tmp/jail-unit-packw.XXXXXX";
		if (!bare_repo(dir))
			T_SKIP("git is not installed");
		size_t big_n = 150000;
		char *big = xmalloc(big_n);
		for (size_t i = 0; i < big_n; i++)
			big[i] = (char)(i * 11 + i / 90);
		struct packw p;
		struct jail_err e;
		char hex[41];
		CHECK(packw_open(&p, dir, 4, &e) == 0);
		if (v == 2)
			p.v1_max = 0;
		CHECK(packw_blob_start(&p, 3, &e) == 0 && packw_blob_data(&p, "ab\n", 3, &e) == 0);
		CHECK(packw_blob_end(&p, hex, &e) == 0);
		CHECK(packw_blob_start(&p, big_n, &e) == 0 && packw_blob_data(&p, big, big_n, &e) == 0);
		CHECK(packw_blob_end(&p, hex, &e) == 0);
		CHECK(packw_blob_start(&p, 3, &e) == 0 && packw_blob_data(&p, "ab\n", 3, &e) == 0);
		CHECK(packw_blob_end(&p, hex, &e) == 0);  /* a repeat, dropped */
		CHECK(packw_object(&p, PACKW_BLOB, "", 0, (unsigned char[20]){0}, &e) == 0);
		CHECK(packw_finish(&p, &e) == 0);
		packw_free(&p);
		char *cmd = xasprintf("head -c 4 '%s'/objects/pack/pack-*.idx | od -An -tx1", dir);
		char *head = sh_out(cmd);
		CHECK((strstr(head, "ff 74 4f 63") != NULL) == (v == 2));
		free(head);
		free(cmd);
		cmd = xasprintf("git --git-dir='%s' verify-pack '%s'/objects/pack/pack-*.idx", dir, dir);
		CHECK(system(cmd) == 0);
		free(cmd);
		cmd = xasprintf("git --git-dir='%s' cat-file blob %s | cmp -s - /dev/null", dir,
		                "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
		CHECK(system(cmd) == 0);
		free(cmd);
		free(big);
		rm_tree(dir);
	}
}

/* scratchobj.c against git fast-import itself: where a file and a directory
 * share a name among the old sides, the later path wins in both, and the
 * trees and commits come out with the same ids. */
T(scratchobj_trees_and_commits_are_fast_imports)
{
	if (system("git --version >/dev/null 2>&1") != 0)
		T_SKIP("git is not installed");
	char root[] = "/tmp/jail-unit-scratchobj.XXXXXX";
	CHECK(mkdtemp(root) != NULL);
	char *cmd = xasprintf("cd '%s' && git init -q --bare ours && git init -q --bare theirs && "
	                      "git --git-dir=theirs hash-object -w --stdin </dev/null >/dev/null && "
	                      "mkdir -p lower/a upper && printf 'X\\n' > lower/a/x && "
	                      "printf 'B\\n' > lower/b && printf 'new\\n' > upper/a && "
	                      "ln -s a upper/l",
	                      root);
	CHECK(system(cmd) == 0);
	free(cmd);
	const char *empty = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
	struct change v[5] = {
		{.path = "a", .pre = PRE_BASE, .base_mode = 0100644, .new_type = FT_FILE},
		{.path = "a/x", .pre = PRE_LOWER, .old_type = FT_FILE, .new_type = FT_NONE},
		{.path = "b", .pre = PRE_LOWER, .old_type = FT_FILE, .new_type = FT_NONE},
		{.path = "b/y", .pre = PRE_BASE, .base_mode = 0100755, .new_type = FT_NONE},
		{.path = "l", .pre = PRE_NONE, .new_type = FT_SYMLINK},
	};
	snprintf(v[0].base_oid, sizeof(v[0].base_oid), "%s", empty);
	snprintf(v[3].base_oid, sizeof(v[3].base_oid), "%s", empty);
	struct changeset cs = {.v = v, .n = 5, .cap = 5};
	char *lower = xasprintf("%s/lower", root), *upper = xasprintf("%s/upper", root);
	struct export_ctx x = {.prefix = "sub/", .project_fd = open(lower, O_RDONLY | O_DIRECTORY),
	                       .upper_fd = open(upper, O_RDONLY | O_DIRECTORY)};
	x.rules.max_size = 1 << 20;
	char *ours = xasprintf("%s/ours", root);
	struct jail_err e;
	CHECK(scratchobj_write(ours, &x, &cs, "A U <a@u>", "the message\n", 1700000000, NULL, &e) == 0);
	close(x.project_fd);
	close(x.upper_fd);
	/* the stream patch.c used to give fast-import for the same change (the
	 * base blob is there: fast-import checks) */
	cmd = xasprintf(
	    "cd '%s' && { printf 'commit refs/heads/pre\\nauthor A U <a@u> 1700000000 +0000\\n"
	    "committer A U <a@u> 1700000000 +0000\\ndata 4\\nbase\\n'; "
	    "printf 'M 100644 %s \"sub/a\"\\nM 100644 inline \"sub/a/x\"\\ndata 2\\nX\\n"
	    "M 100644 inline \"sub/b\"\\ndata 2\\nB\\nM 100755 %s \"sub/b/y\"\\n'; "
	    "printf 'commit refs/heads/post\\nauthor A U <a@u> 1700000000 +0000\\n"
	    "committer A U <a@u> 1700000000 +0000\\ndata 12\\nthe message\\n\\n"
	    "from refs/heads/pre\\nD \"sub/a/x\"\\nD \"sub/b\"\\nD \"sub/b/y\"\\n"
	    "M 100644 inline \"sub/a\"\\ndata 4\\nnew\\nM 120000 inline \"sub/l\"\\ndata 1\\na\\n'; "
	    "} | git --git-dir=theirs fast-import --quiet",
	    root, empty, empty);
	CHECK(system(cmd) == 0);
	free(cmd);
	for (int i = 0; i < 2; i++) {
		const char *ref = i ? "refs/heads/post" : "refs/heads/pre";
		cmd = xasprintf("cd '%s' && git --git-dir=ours rev-parse %s", root, ref);
		char *a = sh_out(cmd);
		free(cmd);
		cmd = xasprintf("cd '%s' && git --git-dir=theirs rev-parse %s", root, ref);
		char *b = sh_out(cmd);
		free(cmd);
		CHECK(strlen(a) == 40 && strcmp(a, b) == 0);
		free(a);
		free(b);
	}
	cmd = xasprintf("cd '%s' && git --git-dir=ours ls-tree -r --name-only refs/heads/pre | "
	                "tr '\\n' ' '", root);
	char *names = sh_out(cmd);
	CHECK(strcmp(names, "sub/a/x sub/b/y ") == 0);
	free(names);
	free(cmd);
	rm_tree(root);
	free(lower);
	free(upper);
	free(ours);
}

/* The CPU's SHA-1 and the C one agree at every length up to three blocks and
 * a half (the padding's edges at 55/56 and 63/64 bytes, and past them), fed
 * whole and in two pieces split at each length, and each agrees with
 * `git hash-object` where git is at hand. */
T(sha1_cpu_and_c_agree_at_every_length)
{
	bool cpu = sha1_uses_cpu();
	unsigned char data[230];
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 131 + 7);
	for (size_t n = 0; n <= sizeof(data); n++) {
		char want[41], got[41];
		sha1_use_cpu(false);
		digest(data, n, n ? n : 1, want);
		for (int pass = 0; pass < 2; pass++) {
			sha1_use_cpu(pass == 0);
			for (size_t cut = 0; cut <= n; cut += n < 130 ? 1 : 13) {
				struct sha1 c;
				unsigned char d[20];
				sha1_init(&c);
				sha1_update(&c, data, cut);
				sha1_update(&c, data + cut, n - cut);
				sha1_final(&c, d);
				hex20(d, got);
				if (strcmp(got, want) != 0) {
					fprintf(stderr, "  length %zu cut at %zu (%s): %s, not %s\n", n,
					        cut, pass ? "C" : "CPU", got, want);
					CHECK(!"the two versions agree");
					n = sizeof(data);
					break;
				}
			}
		}
	}
	/* git's own id of a blob whose object is 64 bytes in all: "blob 55\0" and 55 bytes
	 * (the padding needs a second block), and of one 56 bytes long */
	if (system("git --version >/dev/null 2>&1") == 0)
		for (int k = 55; k <= 56; k++)
			for (int pass = 0; pass < 2; pass++) {
				sha1_use_cpu(pass == 0);
				char path[] = "/tmp/jail-unit-sha1.XXXXXX";
				int fd = mkstemp(path);
				CHECK(fd >= 0 && write(fd, data, (size_t)k) == k);
				close(fd);
				char *cmd = xasprintf("git hash-object '%s'", path);
				char *git = sh_out(cmd);
				struct sha1 c;
				unsigned char d[20];
				char hdr[16], got[41];
				int hn = snprintf(hdr, sizeof(hdr), "blob %d", k);
				sha1_init(&c);
				sha1_update(&c, hdr, (size_t)hn + 1);
				sha1_update(&c, data, (size_t)k);
				sha1_final(&c, d);
				hex20(d, got);
				CHECK_STR(got, git);
				unlink(path);
				free(cmd);
				free(git);
			}
	sha1_use_cpu(true);
	if (!cpu)
		T_SKIP("the CPU has no SHA instructions: the C version was checked alone");
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The trees of names git orders in ways easy to get wrong ("a.b", "a-" and
 * "a0" beside a directory "a", which sorts as "a/"; bytes above 0x7f; a
 * directory that replaces a file; deep paths): git fsck --strict finds them
 * sorted and well formed, and the post tree is the one git makes of the
 * same files (git add, git write-tree). */
T(scratchobj_trees_are_in_gits_order)
{
	if (system("git --version >/dev/null 2>&1") != 0)
		T_SKIP("git is not installed");
	char root[] = "/tmp/jail-unit-scratchtree.XXXXXX";
	CHECK(mkdtemp(root) != NULL);
	const char *names[] = {"-x", "a-", "a.b", "a/b.c/d", "a/b/c", "a/b0", "a0", "a\\b",
	                       "a\"q", "d/1/2/3/4/5/6/7/8/9/10/f", "\xc3\xa9", "\xe6\x97\xa5/x",
	                       "y/.x", "z", "z.", "z0"};
	size_t n = ARRAY_SIZE(names);
	/* sorted as the walk gives them (strcmp) */
	qsort(names, n, sizeof(*names), cmp_name);
	struct change *v = xcalloc(n, sizeof(*v));
	char *cmd = xasprintf("cd '%s' && git init -q --bare ours && git init -q want && mkdir upper",
	                      root);
	CHECK(system(cmd) == 0);
	free(cmd);
	for (size_t i = 0; i < n; i++) {
		v[i] = (struct change){.path = xstrdup(names[i]), .pre = PRE_NONE, .new_type = FT_FILE,
		                       .new_exec = i % 3 == 0};
		for (int side = 0; side < 2; side++) {
			char *dir = xasprintf("%s/%s", root, side ? "want" : "upper");
			char *rel = xstrdup(names[i]);
			char *slash = strrchr(rel, '/');
			if (slash) {
				*slash = '\0';
				t_mkdir_under(dir, rel);
			}
			char *path = xasprintf("%s/%s", dir, names[i]);
			struct jail_err e;
			CHECK(write_file_at(AT_FDCWD, path, names[i], strlen(names[i]),
			                    i % 3 == 0 ? 0755 : 0644, &e) == 0);
			free(path);
			free(rel);
			free(dir);
		}
	}
	struct changeset cs = {.v = v, .n = n, .cap = n};
	char *upper = xasprintf("%s/upper", root);
	struct export_ctx x = {.prefix = "", .project_fd = -1,
	                       .upper_fd = open(upper, O_RDONLY | O_DIRECTORY)};
	x.rules.max_size = 1 << 20;
	char *ours = xasprintf("%s/ours", root);
	struct jail_err e;
	CHECK(scratchobj_write(ours, &x, &cs, "A U <a@u>", "m\n", 1700000000, NULL, &e) == 0);
	close(x.upper_fd);
	cmd = xasprintf("cd '%s' && git --git-dir=ours symbolic-ref HEAD refs/heads/post && "
	                "git --git-dir=ours fsck --strict --no-dangling 2>&1", root);
	char *fsck = sh_out(cmd);
	CHECK_STR(fsck, "");
	free(fsck);
	free(cmd);
	cmd = xasprintf("cd '%s' && git --git-dir=ours rev-parse 'refs/heads/post^{tree}'", root);
	char *a = sh_out(cmd);
	free(cmd);
	cmd = xasprintf("cd '%s/want' && git add -A && git write-tree", root);
	char *b = sh_out(cmd);
	free(cmd);
	CHECK(strlen(a) == 40);
	CHECK_STR(a, b);
	free(a);
	free(b);
	rm_tree(root);
	free(upper);
	free(ours);
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

/* Fewer objects than announced and no repeat: the header's count is made
 * right and the checksum taken again (the one kept while writing covered the
 * announced count); git verify-pack agrees. */
T(packw_fewer_objects_than_announced_is_verified_by_git)
{
	char dir[] = "/tmp/jail-unit-packw.XXXXXX";
	if (!bare_repo(dir))
		T_SKIP("git is not installed");
	struct packw p;
	struct jail_err e;
	char hex[41];
	CHECK(packw_open(&p, dir, 3, &e) == 0);
	CHECK(packw_blob_start(&p, 3, &e) == 0 && packw_blob_data(&p, "ab\n", 3, &e) == 0);
	CHECK(packw_blob_end(&p, hex, &e) == 0);
	CHECK(p.resum == false);
	CHECK(packw_finish(&p, &e) == 0);
	packw_free(&p);
	char *cmd = xasprintf("git --git-dir='%s' verify-pack '%s'/objects/pack/pack-*.idx", dir, dir);
	CHECK(system(cmd) == 0);
	free(cmd);
	rm_tree(dir);
}

/* An object's header in the pack: its size 4 bits then 7 a byte, read back
 * as git reads it (unpack_object_header_buffer), for sizes around the edges
 * and past 4 GiB (no data needs writing to see the header). */
T(packw_object_header_sizes_past_4_gib)
{
	const uint64_t sizes[] = {0, 15, 16, 2047, 2048, 0xffffffffull, 0x100000000ull,
	                          0x140000005ull, 0x7fffffffffffull};
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		char dir[] = "/tmp/jail-unit-packw.XXXXXX";
		CHECK(mkdtemp(dir) != NULL);
		t_mkdir_under(dir, "objects/pack");
		struct packw p;
		struct jail_err e;
		CHECK(packw_open(&p, dir, 1, &e) == 0);
		CHECK(packw_blob_start(&p, sizes[i], &e) == 0);
		const unsigned char *h = p.buf + 12;  /* after "PACK", version, count */
		size_t k = 0;
		unsigned c = h[k++];
		int type = (c >> 4) & 7;
		uint64_t size = c & 15;
		for (int shift = 4; c & 0x80; shift += 7) {
			c = h[k++];
			size += (uint64_t)(c & 0x7f) << shift;
		}
		CHECK(type == PACKW_BLOB);
		CHECK(size == sizes[i]);
		CHECK(h[k] == 0x78 && h[k + 1] == 0x01);  /* the zlib stream starts */
		packw_free(&p);
		rm_tree(dir);
	}
}

/* A directory put first and a file at its name after (paths out of order:
 * the walk never gives them so, but fast-import's "later wins" holds): the
 * directory's entries are cut, and a name put afterwards is still found (the
 * cut nodes stay out of the lookups). */
T(scratchobj_file_after_directory_of_its_name_wins)
{
	if (system("git --version >/dev/null 2>&1") != 0)
		T_SKIP("git is not installed");
	char root[] = "/tmp/jail-unit-scratchcut.XXXXXX";
	CHECK(mkdtemp(root) != NULL);
	char *cmd = xasprintf("cd '%s' && git init -q --bare ours && mkdir lower upper && "
	                      "echo d > lower/d && echo n > upper/n && echo m > upper/m", root);
	CHECK(system(cmd) == 0);
	free(cmd);
	const char *empty = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
	struct change v[5] = {
		{.path = "d/e/x", .pre = PRE_BASE, .base_mode = 0100644, .new_type = FT_NONE},
		{.path = "d/y", .pre = PRE_BASE, .base_mode = 0100644, .new_type = FT_NONE},
		{.path = "d", .pre = PRE_LOWER, .old_type = FT_FILE, .new_type = FT_NONE},
		{.path = "n", .pre = PRE_NONE, .new_type = FT_FILE},
		{.path = "m", .pre = PRE_NONE, .new_type = FT_FILE},
	};
	snprintf(v[0].base_oid, sizeof(v[0].base_oid), "%s", empty);
	snprintf(v[1].base_oid, sizeof(v[1].base_oid), "%s", empty);
	struct changeset cs = {.v = v, .n = 5, .cap = 5};
	char *lower = xasprintf("%s/lower", root), *upper = xasprintf("%s/upper", root);
	struct export_ctx x = {.prefix = "", .project_fd = open(lower, O_RDONLY | O_DIRECTORY),
	                       .upper_fd = open(upper, O_RDONLY | O_DIRECTORY)};
	x.rules.max_size = 1 << 20;
	char *ours = xasprintf("%s/ours", root);
	struct jail_err e;
	CHECK(scratchobj_write(ours, &x, &cs, "A U <a@u>", "m\n", 1700000000, NULL, &e) == 0);
	close(x.project_fd);
	close(x.upper_fd);
	cmd = xasprintf("cd '%s' && git --git-dir=ours ls-tree -r refs/heads/pre | tr '\\t\\n' '  '",
	                root);
	char *pre = sh_out(cmd);
	free(cmd);
	CHECK_STR(pre, "100644 blob 4bcfe98e640c8284511312660fb8709b0afa888e d ");
	free(pre);
	cmd = xasprintf("cd '%s' && git --git-dir=ours ls-tree -r --name-only refs/heads/post | "
	                "tr '\\n' ' '", root);
	char *post = sh_out(cmd);
	free(cmd);
	CHECK_STR(post, "m n ");
	free(post);
	rm_tree(root);
	free(lower);
	free(upper);
	free(ours);
}
