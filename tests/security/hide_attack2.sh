# The escape suite: the project view (src/view) attacked again, from what
# the agent can reach beside the hidden files themselves.  A test of a hole
# fails on the build before its fix; the others keep what held.
source "$TESTS/security/helpers.bash"

# A repository that ignores .env and *.key, with one commit.
hide_repo() {
	git_init "$T/p"
	printf '.env\n*.key\n' >"$T/p/.gitignore"
	printf 'hello\n' >"$T/p/README"
	git -C "$T/p" add .gitignore README
	git -C "$T/p" commit -q -m init
}

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
	git -C "$T/p" stash -q --all
	git -C "$T/p" stash apply -q
	printf 'changed\n' >"$T/p/README" # a visible change: the positive control
	git -C "$T/p" add README
	local staged stashed readme
	staged=$(git -C "$T/p" hash-object .env)
	stashed=$(git -C "$T/p" hash-object deploy.key)
	readme=$(git -C "$T/p" hash-object README)
	run_jail -q -D "$T/p" -- sh -c "ls -a; git cat-file -p $readme;
		git cat-file -p $staged; git cat-file -p $stashed;
		git show 'stash@{0}^3' 2>&1; git fsck --unreachable --no-reflogs 2>&1 |
		while read -r _ t o; do [ \"\$t\" = blob ] && git cat-file -p \$o; done"
	assert_contains "$out" changed # the positive control: objects are readable
	assert_eq "$(grep -c -e canary -e '\.env' -e deploy.key <<<"$out")" 0 \
		"what the agent read of hidden files through git's objects"
}
