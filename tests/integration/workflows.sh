# Integration tests for everyday workflows (issue 8): linked git worktrees,
# submodules, published ports, `jail apply`, shell completion.

# wt_setup: $T/main, a repository, and its linked worktree $T/wt on branch feat.
wt_setup() {
	mkrepo "$T/main"
	git -C "$T/main" worktree add -q -b feat "$T/wt"
}

test_worktree_export_uses_its_own_index_and_ignore_rules() {
	wt_setup
	# tracked and ignored on the worktree's branch only
	printf 'feat\n' >"$T/wt/feat-only.txt"
	printf 'wt-secret.txt\n' >>"$T/wt/.gitignore"
	git -C "$T/wt" add feat-only.txt .gitignore && git -C "$T/wt" commit -q -m feat
	printf 'SECRET=wt\n' >"$T/wt/wt-secret.txt"
	run_jail -D "$T/wt" -- sh -c "cd '$T/wt' && printf 'more\n' >>feat-only.txt &&
		{ cat wt-secret.txt 2>/dev/null || echo hidden; }"
	assert_eq "$rc" 0 "agent: $err"
	assert_eq "$out" "hidden" "ignored by the worktree's own .gitignore"
	p=$(cat "$(session_dir "$T/wt")"/patches/0001-*.patch)
	assert_contains "$p" "diff --git a/feat-only.txt b/feat-only.txt"
	assert_not_contains "$p" "new file mode"
	git -C "$T/wt" am -q "$(session_dir "$T/wt")"/patches/0001-*.patch
	assert_eq "$(cat "$T/wt/feat-only.txt")" "$(printf 'feat\nmore')"
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

test_forged_gitdir_file_shows_nothing_of_the_host() {
	# an unpacked archive can hold a .git file naming any directory
	mkdir -p "$T/secret/worktrees/x" "$T/p"
	printf 'canary-secret\n' >"$T/secret/key"
	printf 'gitdir: %s/secret/worktrees/x\n' "$T" >"$T/p/.git"
	printf '../..\n' >"$T/secret/worktrees/x/commondir"
	run_jail -D "$T/p" -- sh -c "cat '$T/secret/key' 2>&1 || echo unseen"
	assert_eq "$rc" 0 "jail: $err"
	assert_contains "$out" "unseen"
	assert_not_contains "$out" "canary-secret"
	assert_contains "$err" "not a worktree"
}

test_two_worktrees_two_jails_at_once() {
	wt_setup
	git -C "$T/main" worktree add -q -b other "$T/wt2"
	before=$(dir_hash "$T/main/.git")
	# each jail commits, then waits until the other has committed too: the
	# two run at the same time (not a fixed sleep that hopes they overlap)
	mkdir "$T/sig"
	script='git add -A && git -c user.email=a@e -c user.name=A commit -q -m "$0" && touch "$1/$0" &&
		i=0; while [ ! -e "$1/one" ] || [ ! -e "$1/two" ]; do
			[ $i -lt 1200 ] || { echo "the other jail never committed" >&2; exit 9; }
			sleep 0.05; i=$((i + 1)); done && git log --format=%s -n 1'
	"$JAIL" -D "$T/wt" --rw "$T/sig" -- sh -c "cd '$T/wt' && echo one >one.txt && $script" one "$T/sig" \
		>"$T/o1" 2>"$T/e1" &
	p1=$!
	"$JAIL" -D "$T/wt2" --rw "$T/sig" -- sh -c "cd '$T/wt2' && echo two >two.txt && $script" two "$T/sig" \
		>"$T/o2" 2>"$T/e2" &
	p2=$!
	wait "$p1" || fail "first jail: $(cat "$T/e1")"
	wait "$p2" || fail "second jail: $(cat "$T/e2")"
	assert_eq "$(cat "$T/o1")" one
	assert_eq "$(cat "$T/o2")" two
	assert_eq "$(dir_hash "$T/main/.git")" "$before" "main .git unchanged"
	assert_contains "$(cat "$(session_dir "$T/wt")/patches/"0001-*.patch)" "one.txt"
	assert_not_contains "$(cat "$(session_dir "$T/wt")/patches/"0001-*.patch)" "two.txt"
}

# serve_inside NET-ARGS...: a jail (in the background) that runs two HTTP servers
# on its loopback, ports $in_pub (published on the host as $host_pub, a port
# free on the host now) and $in_priv (not published), until fd 7 (its stdin,
# a fifo) is closed.  The inner ports are on the jail's own loopback.
serve_inside() {
	in_pub=$((20000 + RANDOM % 10000)) in_priv=$((30000 + RANDOM % 10000))
	host_pub=$(free_port)
	mkdir -p "$T/p"
	mkfifo "$T/serve.in"
	"$JAIL" -D "$T/p" --no-export "$@" --publish "$in_pub:$host_pub" -- sh -c "
		mkdir /tmp/www && echo served-from-jail >/tmp/www/index.html && cd /tmp/www || exit 1
		python3 -m http.server $in_pub --bind 127.0.0.1 >/dev/null 2>&1 & a=\$!
		python3 -m http.server $in_priv --bind 127.0.0.1 >/dev/null 2>&1 & b=\$!
		grep -c . /proc/net/route; read -r _; kill \$a \$b" \
		<"$T/serve.in" >"$T/serve.out" 2>"$T/serve.err" &
	serve_pid=$!
	exec 7>"$T/serve.in"
}

# reach PORT: the host's curl to its own 127.0.0.1:PORT, retried while the jail
# starts (30 s at most).
reach() {
	local end=$((SECONDS + 30))
	until curl -s -m 5 "http://127.0.0.1:$1/index.html"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}

published_port_checks() {
	got=$(reach "$host_pub") || fail "published port not reached: $(cat "$T/serve.err")"
	assert_eq "$got" "served-from-jail"
	# the unpublished server, by its own port and by any other: nothing answers
	if curl -s -m 1 "http://127.0.0.1:$in_priv/index.html"; then fail "unpublished port reached"; fi
	if curl -s -m 1 "http://127.0.0.1:$in_pub/index.html"; then fail "inner port reached directly"; fi
	# only the host's loopback listens
	ss -Htln "sport = :$host_pub" >"$T/ss"
	assert_contains "$(cat "$T/ss")" "127.0.0.1:$host_pub"
	assert_not_contains "$(cat "$T/ss")" "*:$host_pub"
	exec 7>&-
	wait "$serve_pid" || fail "jail: $(cat "$T/serve.err")"
}

test_publish_with_net_none() {
	serve_inside
	published_port_checks
	assert_eq "$(cat "$T/serve.out")" 1 "no route out: /proc/net/route holds its header only"
}

test_publish_with_net_allow() {
	serve_inside --net allow
	published_port_checks
}

test_publish_from_the_policy_key() {
	in_pub=$((20000 + RANDOM % 10000)) host_pub=$(free_port)
	mkdir -p "$T/p" "$XDG_CONFIG_HOME/jail"
	printf '[net]\npublish = %s:%s\n' "$in_pub" "$host_pub" >"$XDG_CONFIG_HOME/jail/jail.ini"
	mkfifo "$T/in"
	"$JAIL" -D "$T/p" --no-export -- sh -c "mkdir /tmp/w && echo from-policy >/tmp/w/index.html &&
		cd /tmp/w && { python3 -m http.server $in_pub --bind 127.0.0.1 >/dev/null 2>&1 & } &&
		read -r _; kill \$!" <"$T/in" >/dev/null 2>"$T/e" &
	exec 7>"$T/in"
	got=$(reach "$host_pub") || fail "not reached: $(cat "$T/e")"
	assert_eq "$got" from-policy
	exec 7>&-
	wait || true
}

test_publish_refuses_bad_values() {
	mkdir -p "$T/p"
	expect_fail125 -D "$T/p" --publish 0 -- true
	expect_fail125 -D "$T/p" --publish 80:x -- true
	expect_fail125 -D "$T/p" --publish 8080:9000 --publish 8081:9000 -- true
	expect_fail125 -D "$T/p" --publish 99999 -- true
}

# apply_repo: $T/r, a repository with a longer file, and a session that edited it.
apply_repo() {
	mkrepo "$T/r"
	seq 1 30 >"$T/r/nums.txt"
	git -C "$T/r" add nums.txt && git -C "$T/r" commit -q -m nums
	run_jail -D "$T/r" --no-export -- sh -c "cd '$T/r' && sed -i 's/^25\$/twenty-five/' nums.txt"
	assert_eq "$rc" 0 "agent: $err"
}

test_apply_clean_tree_then_only_new_changes() {
	apply_repo
	head0=$(git -C "$T/r" rev-parse HEAD)
	run_jail apply -D "$T/r"
	assert_eq "$rc" 0 "jail apply: $err"
	assert_contains "$err" "nums.txt"
	assert_eq "$(sed -n 25p "$T/r/nums.txt")" "twenty-five"
	assert_eq "$(git -C "$T/r" rev-parse HEAD~1)" "$head0" "one new commit"
	assert_eq "$(git -C "$T/r" status --porcelain --untracked-files=no)" "" "clean after apply"
	meta=$(cat "$(session_dir "$T/r")/meta")
	assert_contains "$meta" "applied=$(git -C "$T/r" rev-parse HEAD)"
	# nothing new: nothing to export
	run_jail export -D "$T/r"
	assert_eq "$rc" 0 "export: $err"
	assert_eq "$out" ""
	# the agent goes on: the next export carries only the new change
	run_jail -D "$T/r" -- sh -c "cd '$T/r' && sed -i 's/^3\$/three/' nums.txt"
	assert_contains "$err" "land it: git -C $T/r am "
	run_jail export -D "$T/r"
	assert_eq "$rc" 0 "export: $err"
	p=$(cat "$out")
	assert_contains "$p" "+three"
	assert_not_contains "$p" "twenty-five"
	run_jail apply -D "$T/r"
	assert_eq "$rc" 0 "second apply: $err"
	assert_eq "$(sed -n 3p "$T/r/nums.txt")" "three"
	assert_eq "$(git -C "$T/r" rev-list --count "$head0..HEAD")" 2
}

test_apply_three_way_on_a_tree_that_moved_on() {
	apply_repo
	sed -i 's/^5$/five-on-host/' "$T/r/nums.txt"
	git -C "$T/r" commit -q -am "host moves on"
	run_jail apply -D "$T/r" -3
	assert_eq "$rc" 0 "jail apply -3: $err"
	assert_eq "$(sed -n 5p "$T/r/nums.txt")" "five-on-host" "the host's change stays"
	assert_eq "$(sed -n 25p "$T/r/nums.txt")" "twenty-five" "the agent's change lands"
	assert_eq "$(git -C "$T/r" log --format=%s -n 2 | tail -n 1)" "host moves on"
}

test_apply_refused_on_conflicting_dirty_tree() {
	apply_repo
	head0=$(git -C "$T/r" rev-parse HEAD)
	printf 'my uncommitted work\n' >>"$T/r/nums.txt"
	expect_fail125 apply -D "$T/r"
	assert_contains "$err" "uncommitted changes to 'nums.txt'"
	assert_eq "$(tail -n 1 "$T/r/nums.txt")" "my uncommitted work"
	assert_eq "$(git -C "$T/r" rev-parse HEAD)" "$head0" "no commit"
	assert_not_contains "$(cat "$(session_dir "$T/r")/meta")" "applied="
	# dirty elsewhere is fine
	git -C "$T/r" checkout -q nums.txt
	printf 'more\n' >>"$T/r/README"
	run_jail apply -D "$T/r"
	assert_eq "$rc" 0 "apply with an unrelated dirty file: $err"
	assert_eq "$(tail -n 1 "$T/r/README")" "more"
}

# super_setup: $T/super with an initialised submodule at lib/ (from $T/libsrc).
super_setup() {
	git_init "$T/libsrc"
	printf 'lib v1\n' >"$T/libsrc/lib.txt"
	printf '.env\n' >"$T/libsrc/.gitignore"
	git -C "$T/libsrc" add lib.txt .gitignore && git -C "$T/libsrc" commit -q -m lib
	mkrepo "$T/super"
	git -C "$T/super" -c protocol.file.allow=always submodule -q add "$T/libsrc" lib
	git -C "$T/super" commit -q -m "add lib"
	git -C "$T/super/lib" config user.email t@example.com
	git -C "$T/super/lib" config user.name Tester
	printf 'LIB_SECRET=canary-lib\n' >"$T/super/lib/.env"
}

test_submodule_edited_exported_applied() {
	super_setup
	run_jail -D "$T/super" --no-export -- sh -c "cd '$T/super' &&
		printf 'lib v2\n' >lib/lib.txt && printf 'new in lib\n' >lib/added.txt &&
		printf 'top\n' >>README && git -C lib status --porcelain >&2 &&
		{ cat lib/.env 2>/dev/null || echo 'lib secret hidden'; }"
	assert_eq "$rc" 0 "agent: $err"
	assert_contains "$err" " M lib.txt"
	assert_eq "$out" "lib secret hidden" "a submodule's ignored file is hidden"
	run_jail export -D "$T/super"
	assert_eq "$rc" 0 "export: $err"
	main=$(sed -n 1p <<<"$out") sub=$(sed -n 2p <<<"$out")
	assert_eq "$sub" "$(session_dir "$T/super")/patches/submodules/lib/0001-jail-session-default.patch"
	assert_contains "$(cat "$main")" "+top"
	assert_not_contains "$(cat "$main")" "lib"
	assert_not_contains "$(cat "$main")" "160000"
	assert_contains "$(cat "$sub")" "+lib v2"
	assert_contains "$(cat "$sub")" "b/added.txt"
	assert_contains "$err" "submodule lib:"
	run_jail status -D "$T/super"
	assert_contains "$out" "submodule lib:"
	run_jail apply -D "$T/super"
	assert_eq "$rc" 0 "apply: $err"
	assert_eq "$(cat "$T/super/lib/lib.txt")" "lib v2"
	assert_eq "$(cat "$T/super/lib/added.txt")" "new in lib"
	assert_eq "$(tail -n 1 "$T/super/README")" "top"
	assert_eq "$(git -C "$T/super/lib" status --porcelain)" "" "the submodule's change committed"
	assert_eq "$(git -C "$T/super/lib" log --format=%s -n 1)" "Update lib.txt, add added.txt (jail session default)"
}

test_submodule_not_initialised_left_out() {
	super_setup
	git clone -q "$T/super" "$T/clone"
	run_jail -D "$T/clone" -- sh -c "cd '$T/clone' && printf 'x\n' >lib/stray.txt && printf 'top\n' >>README"
	assert_eq "$rc" 0 "agent: $err"
	assert_contains "$err" "not initialised on the host"
	p=$(cat "$(session_dir "$T/clone")"/patches/0001-*.patch)
	assert_contains "$p" "+top"
	assert_not_contains "$p" "diff --git a/lib/stray.txt"
	assert_no_file "$(session_dir "$T/clone")/patches/submodules"
}

# completion_file NAME: the completion script as installed (DATADIR filled in).
completion_file() {
	mkdir -p "$T/comp" "$T/share/policies"
	sed "s|@DATADIR@|$T/share|" "$TESTS/../completions/$1" >"$T/comp/$1"
}

test_completions_know_every_flag() {
	flags=$("$JAIL" --help 2>&1 | grep -oE -- '--[a-z][a-z-]+' | sort -u)
	[ -n "$flags" ] || fail "no flags in jail --help"
	for f in $flags; do
		grep -q -- "$f" "$TESTS/../completions/jail.bash" || fail "jail.bash lacks $f"
		grep -q -- "$f" "$TESTS/../completions/_jail" || fail "_jail lacks $f"
	done
}

test_bash_completion_loads_and_completes() {
	completion_file jail.bash
	printf '[net]\nmode = none\n' >"$T/share/policies/shipped.ini"
	mkdir -p "$XDG_CONFIG_HOME/jail/policies" && : >"$XDG_CONFIG_HOME/jail/policies/mine.ini"
	mkrepo "$T/p"
	"$JAIL" -D "$T/p" -s feature-x --no-export -- true
	"$JAIL" -D "$T/p" -s other --no-export -- true
	mkdir -p "$T/bin" && ln -s "$JAIL" "$T/bin/jail"
	comp() { # WORDS...: the completions of the last word
		PATH="$T/bin:$PATH" bash --norc --noprofile -c 'source "$1" || exit 9; shift
			COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _jail
			printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' bash "$T/comp/jail.bash" "$@" 2>"$T/comp.err"
	}
	assert_eq "$(comp jail ap)" "apply "
	assert_eq "$(comp jail exp)" "export "
	assert_eq "$(comp jail apply --thr)" "--three-way "
	assert_eq "$(comp jail --pub)" "--publish "
	assert_eq "$(comp jail --net a)" "allow "
	assert_eq "$(comp jail diff -D "$T/p" -s "")" "feature-x other "
	assert_eq "$(comp jail -p "")" "mine shipped "
	assert_eq "$(cat "$T/comp.err")" "" "no errors"
}

test_zsh_completion_loads_and_completes() {
	command -v zsh >/dev/null || fail "zsh is not installed (scripts/setup installs it)"
	completion_file _jail
	printf '[net]\nmode = none\n' >"$T/share/policies/shipped.ini"
	mkdir -p "$T/bin" && ln -s "$JAIL" "$T/bin/jail"
	mkrepo "$T/p"
	"$JAIL" -D "$T/p" -s feature-x --no-export -- true
	out=$(zsh_complete "jail app" "apply  -- land")
	assert_contains "$out" "apply  -- land the change in the project with git am"
	assert_not_contains "$out" "_jail:"
	assert_not_contains "$out" "command not found"
	assert_contains "$(zsh_complete "jail diff -D $T/p -s " "-s feature-x")" "-s feature-x"
	assert_contains "$(zsh_complete "jail -p shi" "-p shipped")" "-p shipped"
	assert_contains "$(zsh_complete "jail apply --thr" "--three-way")" "--three-way"
	# loading it by name defines the completion without errors
	out=$(zsh -f -c "fpath=($T/comp \$fpath); autoload -U compinit; compinit -u -D; print -r -- \$_comps[jail]" 2>&1)
	assert_eq "$out" "_jail"
}

test_diff_shows_submodule_changes_under_their_path() {
	super_setup
	run_jail -D "$T/super" --no-export -- sh -c "cd '$T/super' && printf 'lib v2\n' >lib/lib.txt &&
		printf 'top\n' >>README"
	assert_eq "$rc" 0 "agent: $err"
	run_jail diff -D "$T/super"
	assert_contains "$out" "diff --git a/README b/README"
	assert_contains "$out" "diff --git a/lib/lib.txt b/lib/lib.txt"
	run_jail diff -D "$T/super" --name-status
	assert_eq "$out" "$(printf 'M\tREADME\nM\tlib/lib.txt')"
	run_jail diff -D "$T/super" --stat
	assert_contains "$out" " lib/lib.txt | 2 +-"
}

test_reset_forgets_worktree_commits_and_applied_state() {
	wt_setup
	run_jail -D "$T/wt" --no-export -- sh -c "cd '$T/wt' && echo x >x.txt && git add x.txt &&
		git -c user.email=a@e -c user.name=A commit -q -m inside"
	assert_eq "$rc" 0 "agent: $err"
	run_jail apply -D "$T/wt"
	assert_eq "$rc" 0 "apply: $err"
	assert_file "$(session_dir "$T/wt")/applied"
	run_jail reset --all -D "$T/wt"
	assert_eq "$rc" 0 "reset: $err"
	assert_no_file "$(session_dir "$T/wt")/applied"
	assert_no_file "$(session_dir "$T/wt")/git-upper"
	run_jail -D "$T/wt" -- sh -c "cd '$T/wt' && git log --format=%s"
	assert_eq "$rc" 0 "after reset: $err"
	# the host's commits from jail apply (the agent's commit, landed as a series:
	# issue 13), not the agent's own repository inside
	assert_eq "$out" "$(printf "inside\ninit")"
}

test_submodule_in_a_subdirectory_project() {
	super_setup
	mkdir -p "$T/super/pkg" && printf 'pkg\n' >"$T/super/pkg/pkg.txt"
	git -C "$T/super" add pkg && git -C "$T/super" commit -q -m pkg
	git -C "$T/super" -c protocol.file.allow=always submodule -q add "$T/libsrc" pkg/lib
	git -C "$T/super" commit -q -m "add pkg/lib"
	printf 'SUB_SECRET=x\n' >"$T/super/pkg/lib/.env"
	run_jail -D "$T/super/pkg" -- sh -c "cd '$T/super/pkg' && printf 'lib v3\n' >lib/lib.txt &&
		printf 'more\n' >>pkg.txt && { cat lib/.env 2>/dev/null || echo hidden; }"
	assert_eq "$rc" 0 "agent: $err"
	assert_eq "$out" "hidden"
	d=$(session_dir "$T/super/pkg")/patches
	assert_not_contains "$(cat "$d"/0001-*.patch)" "lib.txt"
	assert_contains "$(cat "$d"/0001-*.patch)" "+more"
	assert_contains "$(cat "$d"/submodules/lib/0001-*.patch)" "+lib v3"
}
