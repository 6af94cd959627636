# Integration tests for issue 13: the agent's commits land as a series, with
# its messages and the user's authorship, each commit filtered.
#
# aider itself cannot be installed here (no PyPI), so test_series_aider_like
# drives aider's commit pattern with a script: after each edit, `git add -A;
# git commit -m "feat: ..."`, with the identity of the jail's ~/.gitconfig.

# The user's identity, as the host's git config holds it.
series_ident() {
	mkdir -p "$XDG_CONFIG_HOME/git"
	printf '[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n' >"$XDG_CONFIG_HOME/git/config"
}

series_repo() {
	git_init "$1"
	mkdir -p "$1/src"
	printf 'hello\n' >"$1/README"
	printf 'int main(void) { return 0; }\n' >"$1/src/main.c"
	printf '*.log\n.env\n' >"$1/.gitignore"
	git -C "$1" add -A
	git -C "$1" commit -q -m init
	# the agent's commits take the jail's ~/.gitconfig, not a repository's own
	git -C "$1" config --unset user.name
	git -C "$1" config --unset user.email
}

# series_agent DIR SCRIPT: the script runs in the project inside the jail, with
# a commit helper like aider's.
series_agent() {
	run_jail --no-export -D "$1" -- sh -c "cd '$1' && c() { git add -A && git commit -q -m \"\$1\"; } && $2"
	assert_eq "$rc" 0 "the agent's script: $err"
}

# Land the exported series on a fresh clone of DIR in $T/clone.
series_land() {
	run_jail export -D "$1" "${@:2}"
	assert_eq "$rc" 0 "jail export: $err"
	patches=$out
	rm -rf "$T/clone"
	git clone -q "$1" "$T/clone"
	# shellcheck disable=SC2086
	git -C "$T/clone" -c user.email=r@example.com -c user.name=Reviewer am -q $patches
	assert_eq "$(git -C "$T/clone" status --porcelain)" "" "clone clean after git am"
}

MARK_SCRIPT='mark() { echo "touch $M/$1"; }'

test_series_aider_like() {
	series_ident
	series_repo "$T/p"
	local M="$T/marks"
	mkdir -p "$M"
	chmod 777 "$M"
	# hostile config written before the agent commits: each would leave a mark
	# on the host if the host's git ran it
	series_agent "$T/p" "
		git config core.fsmonitor 'touch $M/fsmonitor; false' &&
		git config core.hooksPath '$T/p/hooks' &&
		git config alias.am '!touch $M/alias' &&
		git config alias.format-patch '!touch $M/alias2' &&
		git config core.sshCommand 'touch $M/ssh' &&
		git config diff.external 'touch $M/diffext' &&
		printf '#!/bin/sh\ntouch $M/hook\n' > .git/hooks/applypatch-msg && chmod +x .git/hooks/applypatch-msg &&
		printf 'int retry(void);\n' >> src/main.c && c 'feat: add retry' &&
		echo 'debug canary-log-4321' > debug.log && git add -f debug.log && git commit -q -m 'chore: keep the debug log' &&
		git config core.editor true && git tag -a v0 -m tag && git commit -q --allow-empty -m 'chore: nothing but git state' &&
		echo 'export TOKEN=canary-envrc-9876' > .envrc && printf 'docs\n' >> README && c 'feat: document it' &&
		rm .envrc && c 'chore: drop envrc' &&
		git checkout -q -b side && echo side > side.txt && c 'feat: side work' &&
		git checkout -q main && git merge -q --no-ff side -m 'Merge branch side' &&
		printf 'more\n' >> README"
	# premise: the session's .git/config holds the hostile settings
	assert_eq "$(git config -f "$(session_dir "$T/p")/upper/.git/config" alias.am)" "!touch $M/alias"
	assert_file "$(session_dir "$T/p")/upper/.git/hooks/applypatch-msg"
	run_jail export -D "$T/p"
	assert_eq "$rc" 0 "jail export: $err"
	local d
	d="$(session_dir "$T/p")/patches"
	assert_contains "$err" "series: 4 patches from the agent's 6 commits on branch 'main', then its uncommitted changes"
	assert_contains "$err" "dropped:"
	assert_contains "$err" "chore: keep the debug log"
	assert_contains "$err" "debug.log: ignored by git on the host"
	assert_contains "$err" ".envrc"
	assert_contains "$err" "linearized by first parent"
	assert_file "$d/0001-feat-add-retry.patch"
	assert_file "$d/0002-feat-document-it.patch"
	assert_file "$d/0003-Merge-branch-side.patch"
	assert_file "$d/0004-Update-README-jail-session-default.patch"
	for f in "$d"/0*.patch; do
		assert_not_contains "$(cat "$f")" "canary-envrc"
		assert_not_contains "$(cat "$f")" "canary-log"
		assert_not_contains "$(cat "$f")" "hooksPath"
	done
	series_land "$T/p"
	local want
	want=$(printf '%s\n' "Ada Lovelace <ada@example.com>" "feat: add retry" \
		"Ada Lovelace <ada@example.com>" "feat: document it" \
		"Ada Lovelace <ada@example.com>" "Merge branch side" \
		"Ada Lovelace <ada@example.com>" "Update README (jail session default)")
	assert_eq "$(git -C "$T/clone" log --reverse --format='%an <%ae>%n%s' HEAD~4..HEAD)" "$want"
	assert_eq "$(git -C "$T/clone" log -1 --format=%b HEAD~3 | grep Jail-Session)" "Jail-Session: p/default"
	assert_eq "$(cat "$T/clone/side.txt")" "side"
	assert_eq "$(cat "$T/clone/README")" "$(printf 'hello\ndocs\nmore')"
	assert_no_file "$T/clone/.envrc"
	assert_no_file "$T/clone/debug.log"
	# jail apply on the host project itself: the user's git am, the host's config
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply: $err"
	assert_eq "$(git -C "$T/p" log -1 --format=%s)" "Update README (jail session default)"
	for m in fsmonitor alias alias2 ssh diffext hook; do
		assert_no_file "$M/$m"
	done
	# applied: the next export has nothing new
	run_jail export -D "$T/p"
	assert_contains "$err" "no changes to export"
	# the agent goes on: only its new commit and new edits land the next time
	series_agent "$T/p" "printf 'int backoff(void);\n' >> src/main.c && c 'feat: add backoff' &&
		echo late > LATE.md"
	run_jail apply -D "$T/p" -m 'docs: late notes'

	assert_eq "$rc" 0 "second jail apply: $err"
	assert_contains "$err" "series: 2 patches from the agent's 1 commit"
	assert_eq "$(git -C "$T/p" log --reverse --format=%s HEAD~2..HEAD)" \
		"$(printf 'feat: add backoff\ndocs: late notes')"
	assert_eq "$(tail -n 1 "$T/p/src/main.c")" "int backoff(void);"
	assert_eq "$(cat "$T/p/README")" "$(printf 'hello\ndocs\nmore')"
	assert_eq "$(git -C "$T/p" status --porcelain)" ""
}

test_series_squash_and_message() {
	series_ident
	series_repo "$T/p"
	series_agent "$T/p" "echo one >> README && c 'feat: one' && echo two > NEW.md && c 'feat: two' && echo x >> src/main.c"
	series_land "$T/p" --squash -m 'All of it' --no-trailer
	assert_eq "$(git -C "$T/clone" log --format='%an <%ae>|%s' HEAD~1..HEAD)" "Ada Lovelace <ada@example.com>|All of it"
	assert_not_contains "$(git -C "$T/clone" log -1 --format=%B)" "Jail-Session"
	assert_eq "$(cat "$T/clone/NEW.md")" "two"
	# the policy key makes the single patch the default
	mkdir -p "$XDG_CONFIG_HOME/jail"
	printf '[export]\nseries = false\n' >"$XDG_CONFIG_HOME/jail/jail.ini"
	series_land "$T/p"
	assert_eq "$(git -C "$T/clone" log -1 --format=%s)" "Update README, main.c, add NEW.md (jail session default)"
	assert_contains "$(git -C "$T/clone" log -1 --format=%B)" "Jail-Session: p/default"
}

test_series_pathspecs_filter_the_commits() {
	series_ident
	series_repo "$T/p"
	series_agent "$T/p" "echo one >>README && c 'docs: only outside' &&
		echo both >>README && echo x >>src/main.c && c 'feat: both' &&
		echo n >src/new.c && c 'feat: only inside' && echo rest >>src/main.c && echo r >>README"
	series_land "$T/p" src
	# the commit that changes only README dropped out, the one that changes
	# both kept src/main.c alone, and the uncommitted rest is limited too
	assert_eq "$(git -C "$T/clone" log --format=%s HEAD~3..HEAD)" \
		"$(printf 'Update main.c (jail session default)\nfeat: only inside\nfeat: both')"
	assert_eq "$(git -C "$T/clone" show --format= --name-only HEAD~2)" "src/main.c"
	assert_eq "$(cat "$T/clone/README")" "hello" "README never left"
	assert_eq "$(cat "$T/clone/src/main.c")" "$(printf 'int main(void) { return 0; }\nx\nrest')"
	assert_eq "$(cat "$T/clone/src/new.c")" "n"
	assert_contains "$err" "(it changes none of the paths asked for)"
	assert_contains "$err" "not in it: 1 change outside the paths asked for"
	# a glob, and a path the agent committed only: the same filter
	series_land "$T/p" 'src/*.c'
	assert_eq "$(git -C "$T/clone" rev-list --count HEAD)" "4"
	series_land "$T/p" README
	assert_eq "$(git -C "$T/clone" log --format=%s HEAD~3..HEAD)" \
		"$(printf 'Update README (jail session default)\nfeat: both\ndocs: only outside')"
	assert_eq "$(git -C "$T/clone" show --format= --name-only HEAD~1)" "README"
	assert_no_file "$T/clone/src/new.c"
	# status tells the same story
	run_jail status -D "$T/p" src
	assert_contains "$out" "dropped:"
	assert_contains "$out" "docs: only outside"
	# apply lands the chosen paths' commits; the rest stays for the next export
	run_jail apply -D "$T/p" src
	assert_eq "$rc" 0 "jail apply src: $err"
	assert_eq "$(git -C "$T/p" log --format=%s HEAD~3..HEAD)" \
		"$(printf 'Update main.c (jail session default)\nfeat: only inside\nfeat: both')"
	assert_eq "$(cat "$T/p/README")" "hello" "README not applied"
	run_jail export -D "$T/p" -o "$T/rest"
	assert_eq "$rc" 0 "$err"
	assert_contains "$(cat "$T"/rest/*.patch)" "b/README"
	assert_not_contains "$(cat "$T"/rest/*.patch)" "src/"
}

test_series_reset_below_base_falls_back() {
	series_ident
	series_repo "$T/p"
	echo two >>"$T/p/README"
	git -C "$T/p" commit -qam second
	series_agent "$T/p" "git reset -q --hard HEAD~1 && echo fresh > F.txt && c 'feat: on an older base'"
	series_land "$T/p"
	assert_contains "$err" "does not stand on the session's base"
	assert_eq "$(cat "$T/clone/F.txt")" "fresh"
	assert_eq "$(git -C "$T/clone" rev-list --count HEAD)" "3"
}

test_series_detached_head_and_amended_base() {
	series_ident
	series_repo "$T/p"
	series_agent "$T/p" "git checkout -q -b feature && echo a > A.txt && c 'feat: a' &&
		git checkout -q --detach && echo b > B.txt && c 'feat: b'"
	series_land "$T/p"
	assert_contains "$err" "series: 2 patches from the agent's 2 commits on a detached HEAD"
	assert_eq "$(git -C "$T/clone" log --reverse --format=%s HEAD~2..HEAD)" "$(printf 'feat: a\nfeat: b')"
	# an amended base: no series can stand on it, the single patch is still right
	series_repo "$T/q"
	series_agent "$T/q" "echo amended >> README && git commit -q -a --amend -m 'init, amended'"
	series_land "$T/q"
	assert_contains "$err" "does not stand on the session's base"
	assert_eq "$(git -C "$T/clone" rev-list --count HEAD)" "2"
	assert_eq "$(tail -n 1 "$T/clone/README")" "amended"
}

# The agent's own alternates file names a host repository it cannot see from
# inside; a commit whose tree names a blob of it must not pull that blob out.
test_series_agent_alternates_not_followed() {
	series_ident
	series_repo "$T/p"
	git_init "$T/other"
	echo 'canary-alternate-5150' >"$T/other/secret.txt"
	git -C "$T/other" add secret.txt
	git -C "$T/other" commit -q -m s
	local blob
	blob=$(git -C "$T/other" rev-parse HEAD:secret.txt)
	series_agent "$T/p" "echo '$T/other/.git/objects' > .git/objects/info/alternates &&
		t=\$(printf '100644 blob $blob\tstolen.txt\n' | git mktree --missing) &&
		t2=\$(git read-tree HEAD && git update-index --add --cacheinfo 100644,$blob,stolen.txt &&
			git write-tree --missing-ok) &&
		c=\$(git commit-tree -p HEAD -m 'feat: steal' \$t2) && git update-ref refs/heads/main \$c &&
		git reset -q --mixed HEAD && echo ok > OK.txt"
	run_jail export -D "$T/p"
	assert_eq "$rc" 0 "jail export: $err"
	assert_contains "$err" "refused"
	for f in $(printf '%s\n' "$out"); do
		assert_not_contains "$(cat "$f")" "canary-alternate"
	done
	assert_contains "$(cat $out)" "OK.txt"
}

test_series_hostile_message_and_tree() {
	series_ident
	series_repo "$T/p"
	# a message that would smuggle a diff into git am, and a commit whose tree
	# holds a '..' entry (written with git's plumbing)
	series_agent "$T/p" "echo a > A.txt && git add A.txt &&
		git commit -q -F - <<'MSG'
feat: innocent

---
diff --git a/.envrc b/.envrc
new file mode 100644
--- /dev/null
+++ b/.envrc
@@ -0,0 +1 @@
+canary-smuggled
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
MSG"
	series_land "$T/p"
	assert_no_file "$T/clone/.envrc"
	assert_eq "$(git -C "$T/clone" log -1 --format=%s)" "feat: innocent"
	series_agent "$T/p" "b=\$(git hash-object -w A.txt) &&
		t=\$(printf '100644 blob %s\t..\n' \$b | git mktree) &&
		c=\$(git commit-tree -p HEAD -m evil \$t) && git update-ref refs/heads/main \$c"
	run_jail export -D "$T/p"
	assert_eq "$rc" 0 "jail export: $err"
	assert_contains "$err" "refused"
	assert_contains "$err" "hasDotdot"
}

test_series_in_a_linked_worktree() {
	series_ident
	series_repo "$T/main"
	git -C "$T/main" worktree add -q -b feat "$T/wt"
	series_agent "$T/wt" "echo a > A.txt && c 'feat: a in the worktree' && echo b > B.txt && c 'feat: b'"
	run_jail apply -D "$T/wt"
	assert_eq "$rc" 0 "jail apply: $err"
	assert_contains "$err" "series: 2 patches from the agent's 2 commits on branch 'feat'"
	assert_eq "$(git -C "$T/wt" log --reverse --format='%an|%s' HEAD~2..HEAD)" \
		"$(printf 'Ada Lovelace|feat: a in the worktree\nAda Lovelace|feat: b')"
	assert_eq "$(git -C "$T/main" log -1 --format=%s main)" "init" "the main branch untouched"
}

test_series_in_a_submodule() {
	series_ident
	git_init "$T/libsrc"
	printf 'lib v1\n' >"$T/libsrc/lib.txt"
	git -C "$T/libsrc" add lib.txt && git -C "$T/libsrc" commit -q -m lib
	series_repo "$T/super"
	git -C "$T/super" -c protocol.file.allow=always submodule -q add "$T/libsrc" lib
	git -C "$T/super" commit -q -m "add lib"
	series_agent "$T/super" "cd lib && printf 'lib v2\n' > lib.txt && c 'feat: lib v2' &&
		echo n > n.txt && c 'feat: lib n' && cd .. && echo top >> README && c 'feat: top'"
	run_jail apply -D "$T/super"
	assert_eq "$rc" 0 "jail apply: $err"
	assert_eq "$(git -C "$T/super/lib" log --reverse --format=%s HEAD~2..HEAD)" \
		"$(printf 'feat: lib v2\nfeat: lib n')"
	assert_eq "$(git -C "$T/super" log -1 --format=%s)" "feat: top"
	assert_eq "$(git -C "$T/super" show --stat --format= HEAD | grep -c lib || true)" "0" \
		"the superproject's patch holds no submodule change"
	# landed: nothing new next time
	run_jail export -D "$T/super"
	assert_contains "$err" "no changes to export"
}

# The agent's git gc packs its objects (the session's upper then holds a pack
# of the whole repository and its index): the series reads them through that
# index, and an index that lies or is broken refuses the series, never
# exports a wrong object.
test_series_after_git_gc_and_with_a_broken_index() {
	series_ident
	series_repo "$T/p"
	series_agent "$T/p" "echo a > A.txt && c 'feat: a' && git gc -q && echo b > B.txt && c 'feat: b'"
	local objs
	objs="$(session_dir "$T/p")/upper/.git/objects/pack"
	ls "$objs"/pack-*.idx >/dev/null || fail "premise: git gc wrote a pack in the session"
	series_land "$T/p"
	assert_eq "$(git -C "$T/clone" log --reverse --format=%s HEAD~2..HEAD)" "$(printf 'feat: a\nfeat: b')"
	# every object name in the index swapped for another: git cannot find them
	# (one name alone may belong to an object the series never reads)
	for i in "$objs"/pack-*.idx; do
		chmod u+w "$i"
		python3 -c 'import sys; p=sys.argv[1]; d=bytearray(open(p,"rb").read()); n=int.from_bytes(d[1028:1032],"big"); d[1032:1032+20*n]=b"\xff"*(20*n); open(p,"wb").write(bytes(d))' "$i"
	done
	run_jail export -D "$T/p"
	assert_eq "$rc" 0 "jail export: $err"
	assert_contains "$err" "series: "
	assert_contains "$err" "exported as one patch"
	assert_contains "$(cat $out)" "+a"
}

# The host's branch moves after the session started; the agent's git sees the
# new ref through the overlay, but those commits are the user's, not the agent's.
test_series_host_commits_are_not_the_agents() {
	series_ident
	series_repo "$T/p"
	series_agent "$T/p" "echo agent >> README && git add README"
	echo host >"$T/p/H.txt"
	git -C "$T/p" add H.txt
	git -C "$T/p" commit -q -m "the user's own commit"
	run_jail export -D "$T/p"
	assert_eq "$rc" 0 "jail export: $err"
	assert_not_contains "$err" "series:"
	assert_eq "$(printf '%s\n' "$out" | wc -l)" "1"
	assert_not_contains "$(cat "$out")" "the user's own commit"
	assert_contains "$(cat "$out")" "+agent"
}

# A commit's symlink goes out only as the final export carries it: links that
# read as inside the project but lead out through others (d/up -> .., then
# d/ssh -> up/../.ssh) never reach any patch of the series, and a link that
# lives only in the history stays behind too.
test_series_symlink_chains_never_in_a_patch() {
	series_ident
	series_repo "$T/p"
	series_agent "$T/p" "
		mkdir d && ln -s .. d/up && ln -s up/../.ssh d/ssh && ln -s d/up/.. top &&
		ln -s README readme-link && c 'feat: links' &&
		ln -s src/../.. gone && c 'feat: a link for a while' && rm gone && c 'chore: drop it' &&
		echo more >> README && c 'docs: more'"
	series_land "$T/p"
	local p
	for p in $patches; do
		# (the commit messages name what was left out; the diffs must not carry it)
		assert_not_contains "$(cat "$p")" "diff --git a/d/ssh"
		assert_not_contains "$(cat "$p")" "diff --git a/d/up"
		assert_not_contains "$(cat "$p")" "diff --git a/top"
		assert_not_contains "$(cat "$p")" "diff --git a/gone"
	done
	assert_eq "$(readlink "$T/clone/readme-link")" "README" "the link inside went out"
	assert_no_file "$T/clone/d/ssh"
	assert_no_file "$T/clone/gone"
	assert_contains "$err" "symlink"
}

# A name git takes for .git in the agent's uncommitted rest is left out, as in
# the single patch: git am would refuse the patch that holds it.
test_series_names_git_takes_for_dot_git_left_out() {
	series_ident
	series_repo "$T/p"
	series_agent "$T/p" "echo a > A.txt && c 'feat: a' && mkdir -p .GIT/hooks && echo x > .GIT/hooks/post-merge && echo b >> README"
	series_land "$T/p"
	assert_contains "$err" ".GIT/hooks/post-merge: a name git takes for .git"
	assert_eq "$(cat "$T/clone/A.txt")" a "the agent's commit landed"
	assert_eq "$(tail -n 1 "$T/clone/README")" b "the uncommitted rest landed"
	assert_no_file "$T/clone/.GIT"
}

# An author the agent set (GIT_AUTHOR_NAME, --author, a repository config of its
# own) lands under that name: the summary names it, so a colleague's name forged
# on the agent's work is seen before `git am`.  Commits under the user's own
# identity say nothing more.
test_series_summary_names_a_foreign_author() {
	series_ident
	series_repo "$T/p"
	series_agent "$T/p" 'echo a >> README && c "feat: mine" &&
		echo b >> README && git add -A &&
		git -c user.name="Linus T" -c user.email=lt@example.org commit -qm "fix: someone else"'
	run_jail status -D "$T/p"
	assert_eq "$rc" 0 "status: $err"
	assert_contains "$out" "fix: someone else (author: Linus T <lt@example.org>)"
	assert_contains "$out" "feat: mine"
	assert_not_contains "$out" "feat: mine (author"
	# an identity of the repository's own (a work address) is the user's too
	git -C "$T/p" config user.name "Ada at work"
	git -C "$T/p" config user.email ada@work.example
	run_jail -s w --no-export -D "$T/p" -- sh -c 'echo c >> README && git commit -qam "feat: at work"'
	assert_eq "$rc" 0 "the agent at work: $err"
	run_jail status -s w -D "$T/p"
	assert_contains "$out" "feat: at work"
	assert_not_contains "$out" "(author"
}

# The user's identity for what jail commits itself (an uncommitted change's
# patch) is kept between runs with the stamps of the user's config files:
# an edit there, even one of the same size, is the next export's author.
test_series_author_follows_an_edit_of_the_users_config() {
	series_ident
	series_repo "$T/p"
	series_agent "$T/p" 'echo a >> README'
	run_jail export -D "$T/p"
	assert_eq "$rc" 0 "export: $err"
	assert_contains "$(cat $out)" "From: Ada Lovelace <ada@example.com>"
	printf '[user]\n\tname = Ada Lovelacx\n\temail = ada@example.com\n' >"$XDG_CONFIG_HOME/git/config"
	series_agent "$T/p" 'echo b >> README'
	run_jail export -D "$T/p"
	assert_eq "$rc" 0 "export: $err"
	assert_contains "$(cat $out)" "From: Ada Lovelacx <ada@example.com>"
}
