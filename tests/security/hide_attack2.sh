# The escape suite: the project view (src/view) attacked again, from what
# the agent can reach beside the hidden files themselves.  A test of a hole
# fails on the build before its fix; the others keep what held.
source "$TESTS/security/helpers.bash"

# The object store is shown as it is (git works inside), so a hidden file's
# content that git once stored is there as a blob: staged by mistake and
# unstaged again (a dangling loose object), or kept by `git stash --all`
# (reachable from refs/stash).  The view withholds those objects: git
# inside finds them missing.
test_hidden_content_not_readable_as_a_git_object() {
	hide_repo
	printf 'SECRET=canary-staged-once\n' >"$T/p/.env"
	git -C "$T/p" add -f .env
	git -C "$T/p" rm -q --cached .env
	printf 'canary-stashed-key\n' >"$T/p/deploy.key"
	mkdir "$T/p/secrets"
	printf '{"db": "canary-stashed-json"}\n' >"$T/p/secrets/prod.json"
	git -C "$T/p" stash -q --all
	git -C "$T/p" stash apply -q
	printf 'changed\n' >"$T/p/README" # a visible change: the positive control
	git -C "$T/p" add README
	local staged stashed json readme
	staged=$(git -C "$T/p" hash-object .env)
	stashed=$(git -C "$T/p" hash-object deploy.key)
	json=$(git -C "$T/p" hash-object secrets/prod.json)
	readme=$(git -C "$T/p" hash-object README)
	run_jail -q -D "$T/p" -- sh -c "ls -a; git cat-file -p $readme;
		git cat-file -p $staged; git cat-file -p $stashed; git cat-file -p $json;
		git show 'stash@{0}^3' 2>&1; git fsck --unreachable --no-reflogs 2>&1 |
		while read -r _ t o; do [ \"\$t\" = blob ] && git cat-file -p \$o; done"
	assert_contains "$out" changed # the positive control: objects are readable
	assert_eq "$(grep -c -e canary -e '\.env' -e deploy.key <<<"$out")" 0 \
		"what the agent read of hidden files through git's objects"
}

# The agent cannot read a withheld object, but its id is in sight (the
# stash's tree, or the host's hash of a file it guesses): a tree of its own
# that names the id (git mktree --missing) and a commit on it would have the
# export fill the blob in from the host's store, and the patch carry the
# hidden content under a new name.  The series is refused instead.
test_withheld_object_named_in_a_commit_is_not_exported() {
	hide_repo
	printf 'SECRET=canary-named\n' >"$T/p/.env"
	git -C "$T/p" add -f .env
	git -C "$T/p" rm -q --cached .env
	local id sdir
	id=$(git -C "$T/p" hash-object .env)
	run_jail -q -D "$T/p" -- sh -c "git cat-file -p $id;
		t=\$(printf '100644 blob %s\tleak.txt\n100644 blob %s\tREADME\n100644 blob %s\t.gitignore\n' \
			$id \$(git rev-parse HEAD:README) \$(git rev-parse HEAD:.gitignore) |
			git mktree --missing) &&
		c=\$(git commit-tree -p HEAD -m leak \$t) && git update-ref HEAD \$c &&
		echo agent-change >>README && git log --oneline"
	assert_contains "$out" leak # the positive control: the commit was made
	assert_eq "$(grep -c canary <<<"$out")" 0 "what the agent read of the object"
	"$JAIL" -q export -D "$T/p" >/dev/null 2>&1 || true
	sdir=$(session_dir "$T/p")
	assert_contains "$(cat "$sdir"/patches/*.patch)" agent-change # the export happened
	assert_eq "$(cat "$sdir"/patches/*.patch | grep -c canary)" 0 \
		"the hidden content in the exported patches"
}

# A git directory is shown as the host has it, and no ignore rule reaches
# in there; but a per-repository credential store (credential.helper
# 'store --file=.git/.git-credentials', a common recipe) is not git's own:
# a file of a secret-shaped name there is not shown, in the project's .git
# and in a nested repository's, while git itself keeps working.
test_credential_store_in_a_git_dir_not_readable() {
	hide_repo
	git -C "$T/p" config credential.helper 'store --file=.git/.git-credentials'
	printf 'https://u:canary-store@example.com\n' >"$T/p/.git/.git-credentials"
	git_init "$T/p/vendor/tool"
	printf 'https://u:canary-nested@example.com\n' >"$T/p/vendor/tool/.git/.git-credentials"
	git -C "$T/p" branch credentials-fix # a ref of a secret-shaped name: the user's
	run_jail -q -D "$T/p" -- sh -c 'git log --format=%s; git branch; ls -a .git vendor/tool/.git;
		cat .git/.git-credentials vendor/tool/.git/.git-credentials'
	assert_contains "$out" init # the positive control: git works
	assert_contains "$out" credentials-fix
	assert_eq "$(grep -c -e canary -e git-credentials <<<"$out")" 0 \
		"what the agent saw of the credential stores in git directories"
}

# A linked worktree's common git dir lies outside the project and is
# overlaid as the host has it: the repository's credential store there is
# not shown either (a whiteout in the session's layer over it).
test_credential_store_in_a_worktrees_common_dir_not_readable() {
	git_init "$T/main"
	printf 'hello\n' >"$T/main/README"
	git -C "$T/main" add README
	git -C "$T/main" commit -q -m init
	printf 'https://u:canary-common@example.com\n' >"$T/main/.git/.git-credentials"
	git -C "$T/main" worktree add -q "$T/p" 2>/dev/null
	run_jail -q -D "$T/p" -- sh -c "git log --format=%s; ls -a '$T/main/.git';
		cat '$T/main/.git/.git-credentials'"
	assert_contains "$out" init # the positive control: git works
	assert_eq "$(grep -c -e canary -e git-credentials <<<"$out")" 0 \
		"what the agent saw of the common dir's credential store"
	assert_eq "$(cat "$T/main/.git/.git-credentials")" https://u:canary-common@example.com \
		"the host's file"
}

# What the jail shows anyway is not withheld: an .env copied from a tracked
# .env.example, not edited yet, has the example's blob, which git inside
# must still read (git show, git diff); an empty hidden file withholds
# nothing (every empty file has git's empty blob).
test_withheld_objects_spare_what_a_shown_file_holds() {
	hide_repo
	printf 'SECRET=changeme\n' >"$T/p/.env.example"
	: >"$T/p/empty.txt"
	git -C "$T/p" add .env.example empty.txt
	git -C "$T/p" commit -q -m example
	cp "$T/p/.env.example" "$T/p/.env"
	: >"$T/p/empty.key"
	run_jail -q -D "$T/p" -- sh -c 'git show HEAD:.env.example; git show HEAD:empty.txt &&
		echo empty-ok; cat .env'
	assert_contains "$out" SECRET=changeme
	assert_contains "$out" empty-ok
	assert_eq "$(printf '%s\n' "$out" | grep -c SECRET)" 1 "the example alone, not the .env"
}

# What the last start found is taken again only while the index is the same:
# once the tracked example holds other content, the .env's blob is no
# longer one a shown file has, and it is withheld again.
test_withheld_objects_follow_the_index_between_runs() {
	hide_repo
	printf 'SECRET=canary-example\n' >"$T/p/.env.example"
	git -C "$T/p" add .env.example
	git -C "$T/p" commit -q -m example
	cp "$T/p/.env.example" "$T/p/.env"
	local id
	id=$(git -C "$T/p" hash-object .env)
	run_jail -q -D "$T/p" -- git cat-file -p "$id"
	assert_contains "$out" SECRET=canary-example "the example's blob, shown by the index"
	printf 'SECRET=changeme\n' >"$T/p/.env.example"
	git -C "$T/p" commit -q -am "another example"
	run_jail -q -D "$T/p" -- sh -c "git cat-file -p $id 2>&1; echo done"
	assert_contains "$out" done
	assert_not_contains "$out" canary-example "the .env's blob once the index no longer has it"
}
