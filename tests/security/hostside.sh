# The escape suite: the host side (issue 20).  What the agent leaves in its
# session must not steer the review (control files), exhaust the filesystem that
# holds the state (bytes, inodes, the export's temporary repository), or make
# the session impossible to read or reset (deep trees, paths host git refuses).
# Each test runs jail with its state directory on a small tmpfs of its own,
# mounted in a user+mount namespace (unshare -Urm), and checks afterwards that
# the user can still write there and that the host's project is untouched.

# on_small_fs SIZE INODES SCRIPT: run the bash SCRIPT with XDG_STATE_HOME on a
# tmpfs of SIZE and INODES (at $T/st, gone with the namespace).  $out: its
# output, then "script-rc=N", "can-write" when the user could still create a
# file there afterwards, and "free: INODES BLOCKS" of the tmpfs.
on_small_fs() {
	mkdir -p "$T/st"
	out=$(unshare -Urm bash -c 'mount -t tmpfs -o "size=$1,nr_inodes=$2,mode=0700" none "$T/st" ||
			{ echo "mount-failed"; exit 0; }
		export XDG_STATE_HOME=$T/st
		bash -c "$3"; echo "script-rc=$?"
		: >"$T/st/after-check" 2>/dev/null && echo can-write
		echo "free: $(stat -f -c "%d %a" "$T/st")"' sh "$1" "$2" "$3" 2>&1)
	if [[ "$out" == *mount-failed* ]]; then
		skip "cannot mount a tmpfs in a user namespace here"
	fi
}

# free_inodes / free_blocks: from the last on_small_fs.
free_inodes() { sed -n 's/^free: \([0-9]*\) .*/\1/p' <<<"$out"; }

expect_fs_usable() {
	assert_contains "$out" "can-write"
	[ "$(free_inodes)" -gt 0 ] || fail "no inode left on the state filesystem: $out"
}

test_hostside_gitignore_weakening_is_flagged_and_apply_refuses() {
	mkrepo "$T/p"
	mkdir -p "$T/p/keys" && printf 'k\n' >"$T/p/keys/id" && printf 'keys/\n' >>"$T/p/.gitignore"
	git -C "$T/p" commit -qam keys
	before=$(tree_hash "$T/p")
	on_small_fs 64M 20000 '
		"$JAIL" -q -D "$T/p" -- sh -c "printf \"!.env\n\" >> .gitignore; echo more >> README" </dev/null
		echo "== status"; "$JAIL" status -D "$T/p" </dev/null
		echo "== apply"; "$JAIL" apply -D "$T/p" </dev/null; echo "apply-rc=$?"
		cp "$T/p/.gitignore" "$T/gitignore-after-refusal"'
	expect_fs_usable
	assert_contains "$out" ".gitignore: changes which files git ignores"
	assert_contains "$out" ".gitignore: no longer ignores .env (exists on the host)"
	assert_not_contains "$out" "no longer ignores keys"
	assert_not_contains "$out" "no longer ignores debug.log"
	assert_contains "$out" "apply-rc=125"
	assert_contains "$out" "--accept-flagged"
	assert_eq "$(tree_hash "$T/p")" "$before" "the project after the refused apply"
	# with the flag it lands
	on_small_fs 64M 20000 '
		"$JAIL" -q -D "$T/p" -- sh -c "printf \"!.env\n\" >> .gitignore" </dev/null
		"$JAIL" apply --accept-flagged -D "$T/p" </dev/null; echo "apply-rc=$?"'
	assert_contains "$out" "apply-rc=0"
	assert_contains "$(cat "$T/p/.gitignore")" '!.env'
}

test_hostside_other_control_files_are_flagged() {
	mkrepo "$T/p"
	on_small_fs 64M 20000 '
		"$JAIL" -q -D "$T/p" -- sh -c "echo \"[lfs]\" > .lfsconfig; mkdir -p .github/workflows sub;
			echo on: push > .github/workflows/ci.yml; echo x > sub/.gitignore" </dev/null
		"$JAIL" status -D "$T/p" </dev/null
		"$JAIL" apply -D "$T/p" </dev/null; echo "apply-rc=$?"'
	expect_fs_usable
	assert_contains "$out" ".lfsconfig: changes where git-lfs"
	assert_contains "$out" ".github/workflows/ci.yml: "
	assert_contains "$out" "sub/.gitignore: changes which files git ignores"
	assert_contains "$out" "apply-rc=125"
	assert_no_file "$T/p/.lfsconfig"
}

# A control file changed in one of the agent's commits and put back in a later
# one is not in the end result, but it is in the history git am lands: a
# checkout, bisect or rebase of that commit brings it back.  It is flagged too.
test_hostside_control_file_in_a_commit_only_is_flagged() {
	mkrepo "$T/p"
	agent='"$JAIL" -q -D "$T/p" -- sh -c "git config user.name A; git config user.email a@b
		echo \"* filter=lfs\" > .gitattributes; printf \"[lfs]\n\" > .lfsconfig
		git add .gitattributes .lfsconfig; git commit -qm add
		git rm -q .gitattributes .lfsconfig; git commit -qm remove
		echo more >> README; git commit -qam more" </dev/null'
	on_small_fs 64M 20000 "$agent"'
		echo "== status"; "$JAIL" status -D "$T/p" </dev/null
		echo "== apply"; "$JAIL" apply -D "$T/p" </dev/null; echo "apply-rc=$?"'
	expect_fs_usable
	assert_contains "$out" "series: 3 patches"
	assert_contains "$out" ".gitattributes: changes how git filters"
	assert_contains "$out" ".lfsconfig: changes where git-lfs"
	assert_contains "$out" "apply-rc=125"
	assert_eq "$(git -C "$T/p" log --oneline | wc -l)" 1 "commits on the host after the refusal"
	on_small_fs 64M 20000 "$agent"'
		"$JAIL" apply --accept-flagged -D "$T/p" </dev/null; echo "apply-rc=$?"'
	assert_contains "$out" "apply-rc=0"
	assert_eq "$(git -C "$T/p" log --oneline | wc -l)" 4 "commits on the host after the accepted apply"
}

# The overlay's root is the upper dir itself: an agent that chmods the
# project's root (or its .git) 000 as its last act changes the mode of a
# directory of the session, not of a file it made.  The export, diff and the
# next start still read the session; nothing is lost.
test_hostside_project_root_mode_000_still_exports() {
	# not on_small_fs: root of a user namespace reads past any mode
	mkrepo "$T/p"
	before=$(tree_hash "$T/p")
	run_jail -q -D "$T/p" -- sh -c "git config user.name A; git config user.email a@b
		echo one >> README; git commit -qam one; echo two > new.txt
		chmod 000 .git; chmod 000 ."
	assert_eq "$rc" 0 "the run's exit status ($err)"
	assert_not_contains "$err" "Permission denied"
	run_jail diff -D "$T/p"
	assert_eq "$rc" 0 "jail diff's exit status ($err)"
	assert_contains "$out" "+two"
	assert_contains "$out" "+one"
	run_jail export -D "$T/p" -o "$T/out"
	assert_eq "$rc" 0 "jail export's exit status ($err)"
	assert_eq "$(cat "$T"/out/0001-*.patch | grep -c '^diff --git')" 2 "files in the patches"
	run_jail -q -D "$T/p" -- cat new.txt
	assert_eq "$out" "two" "the next run"
	assert_eq "$(tree_hash "$T/p")" "$before" "the project"
}

# A control file under a name another file system reads as it: any case (macOS,
# Windows, a casefold ext4 directory), NTFS's trailing dots and spaces or a
# stream suffix.  The repository is checked out there too, by the user's
# colleagues and CI: these are flagged as the exact names are.
test_hostside_control_file_spellings_are_flagged() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'echo "* filter=lfs" > .GitAttributes
		echo "* filter=lfs" > ".gitattributes. "; echo "[lfs]" > .LFSCONFIG
		echo "[submodule]" > .gitmodules::\$DATA; echo "repos: []" > .Pre-Commit-Config.yaml
		mkdir -p .DevContainer; echo "{}" > .DevContainer/devcontainer.json; echo x > .GITIGNORE'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail status -D "$T/p"
	assert_contains "$out" ".GitAttributes: changes how git filters"
	assert_contains "$out" ".gitattributes. : changes how git filters"
	assert_contains "$out" ".LFSCONFIG: changes where git-lfs"
	assert_contains "$out" '.gitmodules::$DATA: changes which repositories'
	assert_contains "$out" ".Pre-Commit-Config.yaml: changes the commands"
	assert_contains "$out" ".DevContainer/devcontainer.json: changes what editors"
	assert_contains "$out" ".GITIGNORE: changes which files git ignores"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 125 "jail apply without --accept-flagged"
	assert_no_file "$T/p/.GitAttributes"
}

# Invisible and bidirectional format characters (U+200B..U+200F, U+202A..U+202E,
# U+2066..U+2069, U+FEFF, ...) make a name read as another one (".git<ZWNJ>/hooks"
# shows as ".git/hooks", Trojan Source reorders what a line seems to say).  In
# a name they are left out like control characters and printed escaped; in
# the content, jail diff on a terminal shows them escaped.
test_hostside_invisible_characters_are_shown() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- bash -c $'mkdir -p .git\u200c/hooks; echo x > .git\u200c/hooks/post-checkout
		echo y > $\'ok\u202etxt.sh\'; printf \'access = "user\u202e \u2066// admin\u2069 \u2066"\\n\' > code.txt
		echo plain > caf\u00e9.txt'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail status -D "$T/p"
	assert_contains "$out" '.git\xe2\x80\x8c/hooks/post-checkout: '
	assert_contains "$out" 'ok\xe2\x80\xaetxt.sh: '
	assert_contains "$out" $'A caf\u00e9.txt'
	assert_not_contains "$out" $'\u200c'
	assert_not_contains "$out" $'\u202e'
	run_jail diff --color=always -D "$T/p"
	assert_contains "$out" 'user\xe2\x80\xae \xe2\x81\xa6// admin'
	assert_not_contains "$out" $'\u202e'
	assert_not_contains "$out" $'\u2066'
	run_jail diff -D "$T/p"  # a pipe gets the bytes as they are
	assert_contains "$out" $'user\u202e \u2066// admin'
	assert_not_contains "$out" "post-checkout"
}

# A submodule the agent removed, or replaced with a file or a symlink (to a
# clone of the same library elsewhere on the host, whose unpushed commits the
# export must never read): the export leaves it out with one reason and still
# carries the rest.  It stopped the whole export before.
test_hostside_submodule_removed_or_replaced_still_exports() {
	git_init "$T/libsrc"
	printf 'lib v1\n' >"$T/libsrc/lib.txt"
	git -C "$T/libsrc" add lib.txt && git -C "$T/libsrc" commit -q -m lib
	git clone -q "$T/libsrc" "$T/other"
	printf 'PRIVATE-canary\n' >"$T/other/private.txt"
	git -C "$T/other" add private.txt
	git -C "$T/other" -c user.email=t@example.com -c user.name=T commit -q -m private
	mkrepo "$T/super"
	git -C "$T/super" -c protocol.file.allow=always submodule -q add "$T/libsrc" lib
	git -C "$T/super" commit -q -m "add lib"
	before=$(tree_hash "$T/super")
	local n=0
	for act in "rm -rf lib" "rm -rf lib && ln -s '$T/other' lib" "rm -rf lib && echo x > lib" \
		"rm -rf lib && mkdir lib && echo new > lib/n.txt"; do
		n=$((n + 1))
		run_jail -q -s "v$n" -D "$T/super" -- sh -c "$act; echo top >> README"
		assert_eq "$rc" 0 "the run of: $act ($err)"
		run_jail export -s "v$n" -D "$T/super" -o "$T/out$n"
		assert_eq "$rc" 0 "export after: $act ($err)"
		assert_contains "$(cat "$T/out$n"/0001-*.patch)" "+top"
		assert_contains "$err" "lib: the submodule 'lib' itself"
		assert_not_contains "$(cat "$T/out$n"/*.patch "$T/out$n"/*/*/*.patch 2>/dev/null)" "PRIVATE"
		run_jail status -s "v$n" -D "$T/super"
		assert_eq "$rc" 0 "status after: $act ($err)"
	done
	assert_eq "$(tree_hash "$T/super")" "$before" "the project"
}

# The agent's commits in a submodule are read from the session's copy of
# .git/modules/NAME.  A symlink the agent put on that path (.git/modules ->
# a host directory holding a clone of the same library) led the export into a
# host repository the jail never showed: its unpushed commits became patches.
test_hostside_agents_git_dir_never_read_through_its_links() {
	git_init "$T/libsrc"
	printf 'lib v1\n' >"$T/libsrc/lib.txt"
	git -C "$T/libsrc" add lib.txt && git -C "$T/libsrc" commit -q -m lib
	git clone -q "$T/libsrc" "$T/other"
	printf 'PRIVATE-canary\n' >"$T/other/private.txt"
	git -C "$T/other" add private.txt
	git -C "$T/other" -c user.email=t@example.com -c user.name=T commit -q -m private
	mkdir -p "$T/evil" && cp -r "$T/other/.git" "$T/evil/lib"
	mkrepo "$T/super"
	git -C "$T/super" -c protocol.file.allow=always submodule -q add "$T/libsrc" lib
	git -C "$T/super" commit -q -m "add lib"
	before=$(tree_hash "$T/super")
	run_jail -q -D "$T/super" -- sh -c "echo change >> lib/lib.txt
		mv .git/modules .git/m2 && ln -s '$T/evil' .git/modules"
	assert_eq "$rc" 0 "the run ($err)"
	run_jail export -D "$T/super" -o "$T/out"
	assert_eq "$rc" 0 "export ($err)"
	assert_contains "$(cat "$T"/out/submodules/lib/*.patch)" "+change"
	assert_not_contains "$(cat "$T"/out/submodules/lib/*.patch)" "PRIVATE"
	assert_not_contains "$(cat "$T"/out/submodules/lib/*.patch)" "private.txt"
	assert_eq "$(tree_hash "$T/super")" "$before" "the project"
}

# A path hidden in the jail (--hide, fs.hide) is never exported: a patch that
# changes or deletes it would carry the host's content.  That held for the
# uncommitted changes, not for the agent's commits: "git rm" of a hidden
# tracked file and a commit put its content in the series' patches.
test_hostside_hidden_path_never_in_a_series_patch() {
	mkrepo "$T/p"
	mkdir -p "$T/p/config" && printf 'PROD-canary-5150\n' >"$T/p/config/prod.yml"
	git -C "$T/p" add config/prod.yml && git -C "$T/p" commit -q -m prod
	run_jail -q --hide config/prod.yml -D "$T/p" -- sh -c 'git config user.name A
		git config user.email a@b; git rm -q config/prod.yml; git commit -qm "remove prod"
		echo more >> README; git commit -qam more; mkdir -p config; echo hello > config/prod.yml'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail export -D "$T/p" -o "$T/out"
	assert_eq "$rc" 0 "export ($err)"
	assert_contains "$(cat "$T"/out/*.patch)" "+more"
	assert_not_contains "$(cat "$T"/out/*.patch)" "PROD-canary"
	assert_not_contains "$(cat "$T"/out/*.patch)" "prod.yml"
	assert_contains "$err" "config/prod.yml: hidden in the jail"
}

# jail reset PATH below a directory the agent made mode 000 says so (it said
# the directory was deleted or replaced), and resetting the directory works.
test_hostside_reset_path_below_an_unreadable_dir() {
	mkrepo "$T/p"
	run_jail -q --no-export -D "$T/p" -- sh -c 'mkdir -p d/e; echo x > d/e/f; chmod 000 d'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail reset -D "$T/p" d/e/f
	assert_eq "$rc" 125 "jail reset d/e/f"
	assert_contains "$err" "its directory 'd' cannot be read"
	run_jail reset -D "$T/p" d
	assert_eq "$rc" 0 "jail reset d ($err)"
	run_jail status -D "$T/p"
	assert_not_contains "$out" "d/"
}

# The agent's commits are bounded as the single patch is: text files rewritten
# in each commit cost little in .git (they compress) but their patches, and the
# reading of every blob at once, grew without bound (ten commits of five 4 MB
# files: 400 MB of memory, 372 MB of patches).  Past 256 MiB of files the
# export is the single patch, and says so.
test_hostside_series_bounded_like_the_single_patch() {
	mkrepo "$T/p"
	run_jail -q --no-export -D "$T/p" -- sh -c 'git config user.name A; git config user.email a@b
		c=0; while [ $c -lt 14 ]; do c=$((c+1)); for f in 1 2 3 4 5; do
			yes "line $c $f of a text file that compresses well" | head -c 4000000 > big$f.txt
		done; git add -A; git commit -qm "c$c"; done'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail export -D "$T/p" -o "$T/out"
	assert_eq "$rc" 0 "export ($err)"
	assert_contains "$err" "more than 256 MiB of files"
	assert_contains "$err" "exported as one patch"
	assert_eq "$(ls "$T/out" | grep -c '\.patch$')" 1 "patch files"
	[ "$(du -sm "$T/out" | cut -f1)" -lt 100 ] || fail "the patches take $(du -sm "$T/out" | cut -f1) MB"
}

# The filter keeps the agent's files open for the pack (export.c), as many as
# the fd limit less 512 leaves; fds the export was started with count against
# that limit too.  600 inherited fds under a limit of 1,024 and 700 changed
# files: the export failed ("Too many open files") where a pack that opens each
# file again succeeds.  Keeping files open must never make an export fail.
test_hostside_export_with_inherited_fds_still_lands() {
	mkrepo "$T/p"
	run_jail -q --no-export -D "$T/p" -- sh -c 'mkdir many; i=0
		while [ $i -lt 700 ]; do echo $i > many/f$i; i=$((i+1)); done'
	assert_eq "$rc" 0 "the run ($err)"
	printf '#!/bin/bash\nulimit -n 1024 || exit 99\nfor ((f = 20; f < 620; f++)); do eval "exec $f</dev/null"; done\nexec "%s" "$@"\n' \
		"$JAIL" >"$T/manyfds"
	chmod +x "$T/manyfds"
	local real=$JAIL
	JAIL=$T/manyfds
	run_jail export -D "$T/p" -o "$T/out"
	JAIL=$real
	assert_eq "$rc" 0 "export with 600 fds open ($err)"
	assert_not_contains "$err" "Too many open files"
	assert_eq "$(grep -c '^diff --git a/many/' "$T"/out/*.patch)" 700 "files in the patch"
	# with no fd free at all: one line that names the fix, and no patch
	printf '#!/bin/bash\nulimit -n 256 || exit 99\nfor ((f = 3; f < 254; f++)); do eval "exec $f</dev/null"; done\nexec "%s" "$@"\n' \
		"$JAIL" >"$T/manyfds"
	JAIL=$T/manyfds
	run_jail export -D "$T/p" -o "$T/out2"
	JAIL=$real
	assert_eq "$rc" 125 "export with no fd free ($err)"
	assert_eq "$(printf '%s\n' "$err" | grep -c .)" 1 "lines of the error: $err"
	assert_contains "$err" "ulimit -n"
	[ ! -e "$T/out2" ] || fail "a patch was written: $(ls -R "$T/out2")"
}

# A loose object of the agent's is small on disk and huge inflated (zeros
# compress 1000:1): git packed and checked it whole for the series (a 4 GB blob
# from 17 MB: 3.9 GB of memory, 97 s).  Its size is read from its header
# first; past the bound the series is not read and the single patch goes out.
test_hostside_agents_objects_bounded_before_git_inflates_them() {
	command -v python3 >/dev/null || skip "no python3"
	mkrepo "$T/p"
	cat >"$T/bomb.py" <<'PY'
import hashlib, os, sys, zlib
size = int(sys.argv[1]); hdr = b"blob %d\0" % size
h = hashlib.sha1(hdr); c = zlib.compressobj(1); out = [c.compress(hdr)]; chunk = b"\0" * (1 << 22)
while size:
    n = min(size, len(chunk)); h.update(chunk[:n]); out.append(c.compress(chunk[:n])); size -= n
out.append(c.flush()); oid = h.hexdigest(); d = ".git/objects/" + oid[:2]
os.makedirs(d, exist_ok=True); open(d + "/" + oid[2:], "wb").write(b"".join(out)); print(oid)
PY
	run_jail -q --no-export --ro "$T/bomb.py" -D "$T/p" -- sh -c "git config user.name A
		git config user.email a@b; oid=\$(python3 '$T/bomb.py' 200000000)
		git update-index --add --cacheinfo 100644,\$oid,zeros.bin && git commit -qm bomb
		echo more >> README; git commit -qam more"
	assert_eq "$rc" 0 "the run ($err)"
	run_jail export -D "$T/p" -o "$T/out"
	assert_eq "$rc" 0 "export ($err)"
	assert_contains "$err" "the agent's objects inflate to more than git is given to read"
	assert_contains "$err" "exported as one patch"
	assert_contains "$(cat "$T"/out/*.patch)" "+more"
}

# A commit of many index entries in one directory costs the agent one
# update-index (no files), and cost the export's fast-import a scan of the
# directory per path (300,000: over ten minutes at the end of the run).  Past
# 20,000 changed paths the series is the single patch.
# The structure's sizes were bounded one object at a time only: an index the
# agent wrote maps many tree ids to one 29 MB tree, and one commit names them
# all (a few MB on disk).  git rev-list read every one (70 ms each: 2,000 of
# them 140 s, 1.7 million of them a day and a half) before the series' total
# was checked.  The agent's commits and trees that are not the host's are now
# counted together before any git walks them.  (The CPU limit only stops a
# build without the bound early; the assertion is on the message.)
test_hostside_agents_trees_bounded_in_total_before_git_walks_them() {
	command -v python3 >/dev/null || skip "no python3"
	mkrepo "$T/p"
	cat >"$T/trees.py" <<'PY'
# In a repository's top: one commit on BASE whose root tree names K
# subtrees, each a different id that the pack's index maps to the same 29 MB
# tree (an index is a lookup table git trusts): small on disk, K * 29 MB to
# read for whoever walks the commit.
import hashlib, os, struct, sys, zlib
base, k = sys.argv[1], int(sys.argv[2])
empty = bytes.fromhex("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")
big = b"".join(b"100644 f%07d\0" % i + empty for i in range(800000))
fake = [hashlib.sha1(b"fake %d" % i).digest() for i in range(k)]
root = b"".join(b"40000 d%07d\0" % i + fake[i] for i in range(k))
commit = (b"tree %s\nparent %s\nauthor A <a@b> 1700000000 +0000\n"
          b"committer A <a@b> 1700000000 +0000\n\ntrees\n") % (
          hashlib.sha1(b"root").hexdigest().encode(), base.encode())
def entry(t, data):
    size = len(data); c = (t << 4) | (size & 15); size >>= 4; h = []
    while size: h.append(c | 0x80); c = size & 0x7f; size >>= 7
    return bytes(h + [c]) + zlib.compress(data, 1)
body = b""; offs = {}
for name, t, data in (("big", 2, big), ("empty", 3, b""), ("root", 2, root), ("commit", 1, commit)):
    offs[name] = 12 + len(body); body += entry(t, data)
ids = [(f, offs["big"]) for f in fake] + [(empty, offs["empty"]),
       (hashlib.sha1(b"root").digest(), offs["root"]), (hashlib.sha1(b"commit").digest(), offs["commit"])]
ids.sort()
pack = b"PACK" + struct.pack(">II", 2, len(ids)) + body
pack += hashlib.sha1(pack).digest()
fan = [0] * 256
for oid, _ in ids: fan[oid[0]] += 1
for i in range(1, 256): fan[i] += fan[i - 1]
idx = b"\377tOc" + struct.pack(">I", 2) + struct.pack(">256I", *fan)
idx += b"".join(o for o, _ in ids) + b"\0" * 4 * len(ids)
idx += b"".join(struct.pack(">I", off) for _, off in ids) + pack[-20:]
idx += hashlib.sha1(idx).digest()
name = ".git/objects/pack/pack-" + pack[-20:].hex()
os.makedirs(".git/objects/pack", exist_ok=True)
open(name + ".pack", "wb").write(pack); open(name + ".idx", "wb").write(idx)
print(hashlib.sha1(b"commit").hexdigest())
PY
	run_jail -q --no-export --ro "$T/trees.py" -D "$T/p" -- sh -c "echo more >> README
		head=\$(python3 '$T/trees.py' \$(git rev-parse HEAD) 2000) &&
		printf '%s\\n' \$head > .git/\$(git symbolic-ref HEAD)"
	assert_eq "$rc" 0 "the run ($err)"
	run_jail_cpu() { local real=$JAIL; JAIL=$T/cpu; run_jail "$@"; JAIL=$real; }
	printf '#!/bin/sh\nulimit -t 60 || exit 99\nexec "%s" "$@"\n' "$JAIL" >"$T/cpu"
	chmod +x "$T/cpu"
	run_jail_cpu export -D "$T/p" -o "$T/out"
	assert_eq "$rc" 0 "export ($err)"
	assert_contains "$err" "the agent's commits and trees inflate to more than"
	assert_contains "$err" "exported as one patch"
	assert_contains "$(cat "$T"/out/*.patch)" "+more"
}

test_hostside_series_change_count_bounded() {
	mkrepo "$T/p"
	run_jail -q --no-export -D "$T/p" -- sh -c 'git config user.name A; git config user.email a@b
		e=$(git hash-object -w /dev/null)
		seq 1 30000 | sed "s|.*|100644 $e	many/f&|" | git update-index --index-info
		git commit -qm many; echo more >> README; git commit -qam more'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail export -D "$T/p" -o "$T/out"
	assert_eq "$rc" 0 "export ($err)"
	assert_contains "$err" "the agent's commits change more than 20,000 paths: exported as one patch"
	assert_contains "$(cat "$T"/out/*.patch)" "+more"
}

test_hostside_inode_filler_stopped_by_disk_limit() {
	mkrepo "$T/p"
	before=$(tree_hash "$T/p")
	# --disk 4M also allows 4096 new files (one per KiB); chunks of 200 files, as
	# an agent writes them
	on_small_fs 256M 40000 '
		"$JAIL" -q --disk 4M -D "$T/p" -- sh -c "for i in \$(seq 60); do for j in \$(seq 200); do : > f\$i-\$j; done; sleep 0.02; done; echo wrote-all" </dev/null
		echo "run-rc=$?"'
	assert_contains "$out" "run-rc=125"
	assert_contains "$out" "created more than 4096 files"
	assert_not_contains "$out" "wrote-all"
	expect_fs_usable
	[ "$(free_inodes)" -gt 20000 ] || fail "the limit did not stop it early: $out"
	assert_eq "$(tree_hash "$T/p")" "$before" "the project"
	# --disk-inodes sets the file budget on its own
	on_small_fs 256M 40000 '
		"$JAIL" -q --disk-inodes 300 -D "$T/p" -- sh -c "for i in \$(seq 60); do for j in \$(seq 50); do : > f\$i-\$j; done; sleep 0.02; done; echo wrote-all" </dev/null
		echo "run-rc=$?"'
	assert_contains "$out" "created more than 300 files"
}

test_hostside_inode_filler_keeps_the_reserve() {
	mkrepo "$T/p"
	on_small_fs 256M 3000 '
		"$JAIL" -q -D "$T/p" -- sh -c "for i in \$(seq 100); do for j in \$(seq 50); do : > f\$i-\$j 2>/dev/null || { echo ENOSPC-inside; exit 3; }; done; sleep 0.02; done; echo wrote-all" </dev/null
		echo "run-rc=$?"
		echo "== status"; "$JAIL" status -D "$T/p" </dev/null; echo "status-rc=$?"
		echo "== reset"; "$JAIL" reset --all -D "$T/p" </dev/null; echo "reset-rc=$?"'
	assert_not_contains "$out" "wrote-all"
	assert_not_contains "$out" "ENOSPC-inside"
	assert_contains "$out" "it was filling the disk"
	expect_fs_usable
	assert_contains "$out" "status-rc=0"
	assert_contains "$out" "reset-rc=0"
}

test_hostside_export_does_not_eat_the_reserve() {
	mkrepo "$T/p"
	before=$(tree_hash "$T/p")
	# text the agent wrote until the guard stopped it at the reserve; the
	# export's temporary repository then has no room on the state filesystem,
	# nor in TMPDIR (a second tiny tmpfs)
	on_small_fs 48M 20000 '
		mkdir -p "$T/tmp" && mount -t tmpfs -o size=1M none "$T/tmp"
		"$JAIL" -q -D "$T/p" -- sh -c "for i in \$(seq 60); do head -c 700000 /dev/urandom | base64 > t\$i.txt || exit 3; sleep 0.05; done; echo wrote-all" </dev/null
		echo "run-rc=$?"
		echo "== status"; TMPDIR=$T/tmp "$JAIL" status -D "$T/p" </dev/null; echo "status-rc=$?"
		echo "== export"; TMPDIR=$T/tmp "$JAIL" export -D "$T/p" </dev/null; echo "export-rc=$?"
		echo "upper-files=$(ls "$XDG_STATE_HOME"/jail/*/default/upper | grep -c txt)"
		echo "== roomy"; "$JAIL" status -D "$T/p" </dev/null; echo "roomy-rc=$?"'
	assert_not_contains "$out" "wrote-all"
	assert_contains "$out" "status-rc=125"
	assert_contains "$out" "export-rc=125"
	assert_contains "$out" "not enough free space for the export"
	expect_fs_usable
	[[ "$out" =~ upper-files=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -gt 0 ] ||
		fail "the session lost its files: $out"
	# positive control: with room in TMPDIR (/tmp) the same session is read
	assert_contains "$out" "roomy-rc=0"
	assert_eq "$(tree_hash "$T/p")" "$before" "the project"
}

test_hostside_deep_tree_status_and_reset() {
	mkrepo "$T/p"
	before=$(tree_hash "$T/p")
	# 1,500 nested directories (a path longer than PATH_MAX), some of them
	# without write or search permission for the user, beside a normal change
	on_small_fs 256M 40000 '
		"$JAIL" -q -D "$T/p" -- perl -e "
			for (1..1500) { mkdir \"d\" or die \"mkdir: \$!\"; chdir \"d\" or die; }
			open(F, \">f\") or die; print F \"x\\n\"; close F;
			for (1..200) { chdir \"..\"; } chmod 0500, \"d\"; for (1..100) { chdir \"..\"; } chmod 0, \"d\";
			chdir \"/\"; chdir \"$T/p\"; open(F, \">ok.txt\"); print F \"ok\\n\"; close F;
			print STDERR \"made-deep\\n\";" </dev/null
		echo "run-rc=$?"
		echo "== status"; "$JAIL" status -D "$T/p" </dev/null; echo "status-rc=$?"
		echo "== reset"; "$JAIL" reset --all -D "$T/p" </dev/null; echo "reset-rc=$?"
		find "$XDG_STATE_HOME/jail" -mindepth 2 2>/dev/null | grep /default/ | head; echo "left=$(find "$XDG_STATE_HOME/jail" -mindepth 2 2>/dev/null | grep -c /default/)"'
	assert_contains "$out" "made-deep"
	assert_contains "$out" "status-rc=0"
	assert_contains "$out" "A ok.txt"
	assert_contains "$out" "nested deeper than"
	assert_contains "$out" "reset-rc=0"
	assert_contains "$out" "left=0"
	expect_fs_usable
	assert_eq "$(tree_hash "$T/p")" "$before" "the project"
}

# jail list's size walk is bounded (one fd a level): a tree deeper than it
# goes, with the bulk at the bottom, is shown as a lower bound, not as small.
test_hostside_deep_tree_size_is_a_lower_bound() {
	mkrepo "$T/p"
	"$JAIL" -q -D "$T/p" -- perl -e '
		for (1..80) { mkdir "d" or die "mkdir: $!"; chdir "d" or die; }
		open(F, ">big") or die; print F "x" x (4 << 20); close F;' </dev/null
	out=$("$JAIL" list -D "$T/p" | grep default)
	assert_contains "$out" "+ " "the size is marked as cut short"
	"$JAIL" -q -D "$T/p" -s flat -- sh -c 'head -c 4194304 /dev/zero > big' </dev/null
	out=$("$JAIL" list -D "$T/p" | grep flat)
	assert_not_contains "$out" "+ "
	assert_contains "$out" "M "
}

test_hostside_path_host_git_refuses_is_left_out() {
	mkrepo "$T/p"
	mkdir "$T/p/target" && ln -s target "$T/p/link"  # untracked, not ignored
	before=$(tree_hash "$T/p")
	on_small_fs 64M 20000 '
		"$JAIL" -q -D "$T/p" -- sh -c "rm link && mkdir link && echo x > link/f && echo ok > ok.txt" </dev/null
		echo "run-rc=$?"
		echo "== status"; "$JAIL" status -D "$T/p" </dev/null; echo "status-rc=$?"
		echo "== export"; "$JAIL" export -D "$T/p" </dev/null; echo "export-rc=$?"'
	assert_contains "$out" "status-rc=0"
	assert_contains "$out" "export-rc=0"
	assert_contains "$out" "A ok.txt"
	assert_contains "$out" "link/f: the host has a symlink at 'link'"
	expect_fs_usable
	assert_eq "$(tree_hash "$T/p")" "$before" "the project"
}

test_hostside_gitignore_flag_variants() {
	# the project is a subdirectory of its repository; the agent deletes a
	# .gitignore (un-hiding what it ignored) and the root rules keep the rest
	git_init "$T/r"
	mkdir -p "$T/r/app/conf" && printf 'hello\n' >"$T/r/app/README"
	printf '*.key\n' >"$T/r/.gitignore" && printf 'local.ini\n' >"$T/r/app/conf/.gitignore"
	git -C "$T/r" add -A && git -C "$T/r" commit -qm init
	printf 's\n' >"$T/r/app/conf/local.ini" && printf 'k\n' >"$T/r/app/conf/id.key"
	before=$(tree_hash "$T/r")
	on_small_fs 64M 20000 '
		"$JAIL" -q -D "$T/r/app" -- sh -c "rm conf/.gitignore" </dev/null
		"$JAIL" status -D "$T/r/app" </dev/null
		"$JAIL" apply -D "$T/r/app" </dev/null; echo "apply-rc=$?"'
	expect_fs_usable
	assert_contains "$out" "D conf/.gitignore"
	assert_contains "$out" "conf/.gitignore: no longer ignores conf/local.ini (exists on the host)"
	assert_not_contains "$out" "no longer ignores conf/id.key"
	assert_contains "$out" "apply-rc=125"
	assert_eq "$(tree_hash "$T/r")" "$before" "the repository"
}
