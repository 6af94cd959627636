# Integration tests for everyday workflows (issue 8): linked git worktrees,
# submodules, published ports, `jail apply`, shell completion.

# wt_setup: $T/main, a repository, and its linked worktree $T/wt on branch feat.
wt_setup() {
	mkrepo "$T/main"
	git -C "$T/main" worktree add -q -b feat "$T/wt"
}

# dir_hash DIR: tree_hash of a git dir (contents, modes, mtimes of every file).
dir_hash() { tree_hash "$1"; }

test_worktree_commit_inside_export_and_am() {
	wt_setup
	before=$(dir_hash "$T/main/.git")
	run_jail -D "$T/wt" -- sh -c "cd '$T/wt' && git status --porcelain >&2 &&
		printf 'changed\n' >>README && git add README &&
		git -c user.email=a@example.com -c user.name=Agent commit -q -m agent &&
		git log --oneline | head -n 1 && git diff HEAD~1 --stat >&2"
	assert_eq "$rc" 0 "worktree session: $err"
	assert_contains "$out" "agent"
	assert_eq "$(dir_hash "$T/main/.git")" "$before" "main .git unchanged after the session"
	assert_eq "$(git -C "$T/wt" log --oneline | wc -l)" 1 "host worktree has no new commit"
	run_jail export -D "$T/wt"
	assert_eq "$rc" 0 "export: $err"
	patch=$out
	assert_contains "$(cat "$patch")" "+changed"
	assert_eq "$(dir_hash "$T/main/.git")" "$before" "main .git unchanged after the export"
	git -C "$T/wt" am -q "$patch"
	assert_eq "$(tail -n 1 "$T/wt/README")" "changed"
	assert_eq "$(git -C "$T/main" show feat:README | tail -n 1)" "changed"
	# the ignored secret of the worktree is hidden inside (its own ignore rules)
	printf 'SECRET=wt\n' >"$T/wt/.env"
	run_jail -D "$T/wt" -- sh -c "cat '$T/wt/.env' 2>&1 || echo hidden"
	assert_contains "$out" "hidden"
}

test_two_worktrees_two_jails_at_once() {
	wt_setup
	git -C "$T/main" worktree add -q -b other "$T/wt2"
	before=$(dir_hash "$T/main/.git")
	script='git add -A && git -c user.email=a@e -c user.name=A commit -q -m "$0" && sleep 1 &&
		git log --format=%s -n 1'
	"$JAIL" -D "$T/wt" -- sh -c "cd '$T/wt' && echo one >one.txt && $script" one >"$T/o1" 2>"$T/e1" &
	p1=$!
	"$JAIL" -D "$T/wt2" -- sh -c "cd '$T/wt2' && echo two >two.txt && $script" two >"$T/o2" 2>"$T/e2" &
	p2=$!
	wait "$p1" || fail "first jail: $(cat "$T/e1")"
	wait "$p2" || fail "second jail: $(cat "$T/e2")"
	assert_eq "$(cat "$T/o1")" one
	assert_eq "$(cat "$T/o2")" two
	assert_eq "$(dir_hash "$T/main/.git")" "$before" "main .git unchanged"
	assert_contains "$(cat "$(session_dir "$T/wt")/patches/"0001-*.patch)" "one.txt"
	assert_not_contains "$(cat "$(session_dir "$T/wt")/patches/"0001-*.patch)" "two.txt"
}
