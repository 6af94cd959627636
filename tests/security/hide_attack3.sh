# The escape suite, third round on hidden files: what of a hidden file the
# agent reaches through git's packs, git's temporary files and the view's
# metadata.  A test of a hole fails on the build before its fix; the others
# keep what held.
source "$TESTS/security/helpers.bash"

# The agent's reader of a pack: every object of every pack in the store
# printed by git (cat-file on each id the .idx lists), and the raw pack
# bytes inflated at every offset (a reader that needs no .idx and no git:
# python's zlib), so a secret is found whichever way the object is read.
PACK_READER='
for i in .git/objects/pack/*.idx; do
	git show-index <"$i" | while read -r _ id _; do git cat-file -p "$id" 2>/dev/null; done
done
python3 - <<"PY"
import glob, zlib
for p in glob.glob(".git/objects/pack/*"):
    b = open(p, "rb").read()
    for i in range(len(b)):
        try:
            print(zlib.decompressobj().decompress(b[i:i + 4096]).decode("latin-1").replace("\0", ""))
        except Exception:
            pass
PY'

# `git gc` (or gc --auto after enough commits) moves the loose objects into
# a pack, where they cannot be withheld one at a time as loose ones are:
# an `.env` staged once, or kept by `git stash --all`, is in the pack.  The
# view serves a pack with the bytes of each withheld object blanked (its
# .idx says where they are): git inside finds those objects corrupt, the
# raw bytes hold nothing of them, and every other object reads as before.
test_hidden_content_not_readable_from_a_pack() {
	command -v python3 >/dev/null || skip "no python3"
	hide_repo
	printf 'SECRET=canary-packed-env\n' >"$T/p/.env"
	git -C "$T/p" add -f .env
	git -C "$T/p" rm -q --cached .env
	printf 'canary-packed-key\n' >"$T/p/deploy.key"
	git -C "$T/p" stash -q --all
	git -C "$T/p" stash apply -q
	git -C "$T/p" gc -q --prune=now
	[ -z "$(find "$T/p/.git/objects" -path '*/objects/??/*' -type f)" ] ||
		fail "the set-up left loose objects"
	grep -q canary-packed-env <<<"$(cd "$T/p" && eval "$PACK_READER")" ||
		fail "the reader finds nothing on the host: it proves nothing"
	run_jail -q -D "$T/p" -- sh -c "git cat-file -p HEAD:README; $PACK_READER"
	assert_contains "$out" hello # the positive control: the pack reads
	assert_eq "$(grep -c canary <<<"$out")" 0 "what the agent read of hidden files in a pack"
}

# While git writes an object or a pack, its content sits in a temporary
# file: objects/ab/tmp_obj_*, objects/pack/tmp_pack_* (an interrupted
# `git gc` or fetch leaves them behind), and a pack-*.pack whose .idx is
# not written yet.  None has a name or an index to check it by, so while
# anything is withheld the view serves none of them.
test_git_temporary_files_with_hidden_content_not_readable() {
	command -v python3 >/dev/null || skip "no python3"
	hide_repo
	printf 'SECRET=canary-in-flight\n' >"$T/p/.env"
	git -C "$T/p" stash -q --all
	git -C "$T/p" stash apply -q
	local id pack objs=.git/objects reader
	id=$(git -C "$T/p" hash-object .env)
	cp "$T/p/$objs/${id:0:2}/${id:2}" "$T/p/$objs/${id:0:2}/tmp_obj_Xy12Ab"
	git -C "$T/p" gc -q
	for pack in "$T/p/$objs"/pack/pack-*.idx; do # (gc may write a cruft pack too)
		git show-index <"$pack" | grep -q "$id" && break
	done
	pack=${pack%.idx}.pack
	cp "$pack" "$T/p/$objs/pack/tmp_pack_Qw34Er"
	cp "$pack" "$T/p/$objs/pack/pack-0000000000000000000000000000000000000000.pack"
	# each file, inflated at every offset: a line per file that holds a canary
	reader="for f in $objs/${id:0:2}/tmp_obj_Xy12Ab $objs/pack/tmp_pack_Qw34Er \
		$objs/pack/pack-0000000000000000000000000000000000000000.pack; do
		python3 - \"\$f\" <<'PY'
import sys, zlib
b = open(sys.argv[1], 'rb').read()
for i in range(len(b)):
    try:
        if b'canary' in zlib.decompressobj().decompress(b[i:i + 4096]):
            print('leak in', sys.argv[1]); break
    except Exception:
        pass
PY
	done"
	assert_eq "$(cd "$T/p" && sh -c "$reader" | grep -c leak)" 3 "files the reader finds the canary in on the host"
	run_jail -q -D "$T/p" -- sh -c "ls $objs/pack; $reader; git cat-file -p HEAD:README"
	assert_contains "$out" hello # the positive control: git reads the store
	assert_contains "$out" tmp_pack_Qw34Er # the names are there, the content is not
	assert_eq "$(grep leak <<<"$out")" "" "what the agent read of git's temporary files"
}

# `stat` of a directory told what its listing leaves out: the link count
# is 2 + its subdirectories (a hidden secrets/ among them), the size grows
# with the names in it (a block per so many on ext4, 20 bytes a name on
# tmpfs, the names' lengths on btrfs).  The view's directories have the
# same size and link count whatever the host hides in them.
test_directory_attributes_do_not_count_hidden_entries() {
	hide_repo
	mkdir -p "$T/p/config"
	printf 'x\n' >"$T/p/config/app.conf"
	git -C "$T/p" add config
	git -C "$T/p" commit -q -m config
	local bare full
	run_jail -q -D "$T/p" -- stat -c '%h %s %b' config
	bare=$out
	mkdir -p "$T/p/config/secrets/a" "$T/p/config/secrets/b"
	for i in $(seq 300); do printf 'k\n' >"$T/p/config/a-long-name-of-a-hidden-deploy-key-$i.key"; done
	run_jail -q -D "$T/p" -- sh -c 'ls -A config; stat -c "%h %s %b" config'
	full=$(tail -n 1 <<<"$out")
	assert_eq "$(head -n 1 <<<"$out")" app.conf "what the listing shows"
	assert_eq "$full" "$bare" "a directory's link count, size and blocks with hidden entries in it"
}

# The view withholds the objects of what a hidden file holds now; `git
# stash -u`/`--all` keeps what it held then, in every stash entry, and
# rotating the key afterwards leaves the old one there (stash@{1}^3:.env).
# The objects at secret paths in every stash entry's untracked tree (the
# third parent) are withheld too, the tree of a secret-shaped directory
# with them, whatever the files hold now.
test_older_versions_of_a_secret_in_the_stash_not_readable() {
	hide_repo
	printf 'SECRET=canary-old-one\n' >"$T/p/.env"
	mkdir "$T/p/secrets"
	printf 'canary-old-json\n' >"$T/p/secrets/prod.json"
	git -C "$T/p" stash -q --all
	printf 'SECRET=canary-old-two\n' >"$T/p/.env"
	git -C "$T/p" stash -q --all
	printf 'SECRET=rotated\n' >"$T/p/.env"
	printf 'tracked\n' >"$T/p/README"
	git -C "$T/p" stash -q # a stash without untracked files: its tree reads
	local cmd='git stash list; git show "stash@{0}:README";
		for s in 0 1 2; do git show "stash@{$s}^3:.env"; git show "stash@{$s}^3:secrets/prod.json";
			git ls-tree "stash@{$s}^3:secrets"; done 2>/dev/null'
	run_jail -q -D "$T/p" -- sh -c "$cmd"
	assert_contains "$out" tracked # the positive control: the stash reads
	assert_eq "$(grep -c -e canary -e prod.json <<<"$out")" 0 "what the agent read of older secrets"
	# packed, and on a second start (the cached ids)
	git -C "$T/p" gc -q
	run_jail -q -D "$T/p" -- sh -c "$cmd"
	assert_contains "$out" tracked
	assert_eq "$(grep -c -e canary -e prod.json <<<"$out")" 0 "what the agent read of older secrets, packed"
}

# Two more copies of a hidden file's content in .git, under other names:
# git-lfs keeps a file its filter cleaned (a *.key the project's LFS
# patterns cover, staged once or stashed) whole in lfs/objects/ab/cd/OID,
# OID the SHA-256 of the content; `git fsck --lost-found` writes each
# dangling blob (an .env staged once) to lost-found/other/ID.  Both are
# withheld by those names, as the loose object is.
test_hidden_content_not_readable_from_lfs_or_lost_found() {
	hide_repo
	printf 'canary-lfs-key\n' >"$T/p/deploy.key"
	printf 'SECRET=canary-lost\n' >"$T/p/.env"
	git -C "$T/p" add -f .env
	git -C "$T/p" rm -q --cached .env
	git -C "$T/p" fsck --lost-found >/dev/null 2>&1 || true
	# what git-lfs's clean filter leaves (its layout; git-lfs need not be installed)
	local oid
	oid=$(sha256sum <"$T/p/deploy.key" | cut -c1-64)
	mkdir -p "$T/p/.git/lfs/objects/${oid:0:2}/${oid:2:2}" "$T/p/.git/lfs/tmp"
	cp "$T/p/deploy.key" "$T/p/.git/lfs/objects/${oid:0:2}/${oid:2:2}/$oid"
	cp "$T/p/deploy.key" "$T/p/.git/lfs/tmp/$oid-123456"
	printf 'shown lfs object\n' >"$T/p/readme.bin"
	local shown
	shown=$(sha256sum <"$T/p/readme.bin" | cut -c1-64)
	mkdir -p "$T/p/.git/lfs/objects/${shown:0:2}/${shown:2:2}"
	cp "$T/p/readme.bin" "$T/p/.git/lfs/objects/${shown:0:2}/${shown:2:2}/$shown"
	[ -n "$(ls "$T/p/.git/lost-found/other")" ] || fail "git fsck wrote no lost-found"
	run_jail -q -D "$T/p" -- sh -c 'cat .git/lost-found/other/* .git/lfs/tmp/* 2>&1;
		find .git/lfs/objects -type f -exec cat {} +'
	assert_contains "$out" "shown lfs object" # the positive control: the store reads
	assert_eq "$(grep -c canary <<<"$out")" 0 "what the agent read of lost-found and git-lfs's store"
}
