# The escape suite: ignored files that appear on the host while the agent runs
# (issue 12, part 1).  Hiding is about the whole run, not its start.
source "$TESTS/security/helpers.bash"

# A repository that ignores .env, secrets/, cache/ and *.key, with a tracked
# directory conf/, an ignored directory cache/ that exists at start, and go.txt:
# a tracked file whose content the host changes to "go" to start the check
# (a visible host edit, the positive control that host changes do reach in).
live_repo() {
	local d=$1
	git_init "$d"
	printf '.env\nsecrets/\ncache/\n*.key\n' >"$d/.gitignore"
	mkdir -p "$d/conf" "$d/cache"
	printf 'canary-app\n' >"$d/conf/app.txt"
	printf 'wait\n' >"$d/go.txt"
	git -C "$d" add .gitignore conf go.txt
	git -C "$d" commit -q -m init
	printf 'old\n' >"$d/cache/old.txt"
	printf 'SECRET=canary-at-start\n' >"$d/.env"
}

# start_hunter ARGS...: the probe in a jail on $T/p, in the background, hunting
# the names given; returns once it says it is ready.
start_hunter() {
	mkdir -p "$T/bin"
	cp "$PROBE" "$T/bin/probe"
	"$JAIL" -q --ro "$T/bin" -D "$T/p" -- sh -c \
		'mkdir agentdir && echo mine >own.key && cat own.key &&
		 '"$T"'/bin/probe hunt go.txt "$@"; r=$?; echo LISTING; ls -aR .; exit $r' \
		sh "$@" >"$T/hunt.out" 2>"$T/hunt.err" </dev/null &
	HUNTER=$!
	local i
	for i in $(seq 600); do
		grep -q '^ready' "$T/hunt.out" 2>/dev/null && return 0
		kill -0 "$HUNTER" 2>/dev/null || break
		sleep 0.1
	done
	cat "$T/hunt.err" >&2
	fail "the jail did not start"
}

# finish_hunter: tell the probe to stop, wait for it, leave its output in $out.
finish_hunter() {
	# in place: a rename over go.txt would not reach an overlay that already
	# looked the old file up
	printf 'go\n' >"$T/p/go.txt"
	set +e
	wait "$HUNTER"
	rc=$?
	set -e
	out=$(cat "$T/hunt.out")
	err=$(cat "$T/hunt.err")
}

# assert_no_leak: no open or listing in the hunt, and no content, got through.
assert_no_leak() {
	local leaks
	leaks=$(grep -E '^(LEAK|LISTED)|canary-' <<<"$out" | head -5 || true)
	assert_eq "$leaks" "" "what the agent saw of the new ignored files"
}

test_ignored_files_created_during_run_stay_hidden() {
	live_repo "$T/p"
	start_hunter new.key .env secrets/s.txt conf/c.key cache/new.txt agentdir/a.key \
		deep/er/x.key
	printf 'canary-new-key\n' >"$T/p/new.key"
	printf 'SECRET=canary-env\n' >"$T/p/.env.new"
	mv "$T/p/.env.new" "$T/p/.env" # hidden at start, replaced during the run
	mkdir "$T/p/secrets"
	printf 'canary-secrets-dir\n' >"$T/p/secrets/s.txt"
	printf 'canary-existing-dir\n' >"$T/p/conf/c.key"
	printf 'canary-ignored-dir\n' >"$T/p/cache/new.txt"
	mkdir "$T/p/agentdir"
	printf 'canary-agent-dir\n' >"$T/p/agentdir/a.key"
	mkdir -p "$T/p/deep/er"
	printf 'canary-deep\n' >"$T/p/deep/er/x.key"
	finish_hunter
	assert_contains "$out" ready
	assert_contains "$out" mine # the agent's own ignored file stays visible to it
	assert_no_leak
	local listing=${out#*LISTING}
	for n in new.key .env s.txt c.key new.txt a.key x.key; do
		assert_not_contains "$listing" "$n"
	done
	assert_contains "$listing" own.key
	assert_eq "$rc" 0 "the hunter's status ($err)"
}

test_ignored_files_renamed_into_place_stay_hidden() {
	live_repo "$T/p"
	start_hunter moved.key moved2.key conf/moved3.key secrets/m.txt
	printf 'canary-outside\n' >"$T/outside.tmp"
	mv "$T/outside.tmp" "$T/p/moved.key"
	printf 'canary-stage\n' >"$T/p/stage.txt"
	mv "$T/p/stage.txt" "$T/p/moved2.key"
	# a name visible at start, renamed to an ignored one
	mv "$T/p/conf/app.txt" "$T/p/conf/moved3.key"
	mkdir "$T/stage.d"
	printf 'canary-dir-moved\n' >"$T/stage.d/m.txt"
	mv "$T/stage.d" "$T/p/secrets"
	finish_hunter
	assert_contains "$out" ready
	assert_no_leak
	local listing=${out#*LISTING}
	for n in moved.key moved2.key moved3.key secrets m.txt; do
		assert_not_contains "$listing" "$n"
	done
	assert_eq "$rc" 0 "the hunter's status ($err)"
}

# The start walk is remembered between runs (hidecache.h): what the host adds
# or removes between two runs is what the second one goes by, an ignored name
# added to a directory the first run saw included.
test_names_added_between_runs_follow_the_host() {
	live_repo "$T/p"
	"$JAIL" -q --no-export -D "$T/p" -- true
	printf 'SECRET=canary-between\n' >"$T/p/conf/later.key"
	printf 'visible\n' >"$T/p/conf/later.txt"
	mkdir "$T/p/newdir"
	printf 'SECRET=canary-newdir\n' >"$T/p/newdir/n.key"
	rm "$T/p/go.txt"
	out=$("$JAIL" -q --no-export -D "$T/p" -- sh -c \
		'ls -a . conf newdir; cat conf/later.key newdir/n.key 2>/dev/null; true')
	assert_contains "$out" later.txt
	assert_not_contains "$out" later.key
	assert_not_contains "$out" n.key
	assert_not_contains "$out" canary-
	assert_not_contains "$out" go.txt
	# and once more, from the cache the second run wrote
	printf 'SECRET=canary-third\n' >"$T/p/conf/third.key"
	out=$("$JAIL" -q --no-export -D "$T/p" -- sh -c 'ls -a conf; cat conf/third.key 2>/dev/null; true')
	assert_contains "$out" later.txt
	assert_not_contains "$out" third.key
	assert_not_contains "$out" canary-
}

# age DIR...: every stamp below (mtime, and by waiting ctime) older than the
# caches' two-second slack, so the next runs trust what they remember.
age() {
	find "$@" -path '*/.git/objects' -prune -o -exec touch -h -d '2020-01-01 00:00:00' {} +
	touch "$T/aged"
	wait_for past_slack "$T/aged"
}
past_slack() { [ "$(date +%s)" -gt $(($(stat -c %Z "$1") + 3)) ]; }

# A directory whose mtime is set back after a name was added (rsync -a, tar x,
# cp -a do that) still changed: its ctime says so, and both caches (the start
# walk's and the ignore cache) must see it, or the walk shows the new name and
# the ignore answer of the last run does not list it.
test_ignored_file_added_with_mtime_set_back_stays_hidden() {
	live_repo "$T/p"
	age "$T/p"
	"$JAIL" -q --no-export -D "$T/p" -- true
	touch -r "$T/p/conf" "$T/ref"
	printf 'SECRET=canary-set-back\n' >"$T/p/conf/later.key"
	touch -h -r "$T/ref" "$T/p/conf"
	out=$("$JAIL" -q --no-export -D "$T/p" -- sh -c 'ls -a conf; cat conf/later.key 2>/dev/null; true')
	assert_contains "$out" app.txt
	assert_not_contains "$out" later.key
	assert_not_contains "$out" canary-
}

# The user's global ignore file is often a symlink into a dotfiles checkout:
# a rule added to the file it leads to hides the name from the next run (git
# reads through the link; the link itself does not change).
test_rule_added_through_symlinked_global_ignore_hides() {
	live_repo "$T/p"
	printf 'canary-notes\n' >"$T/p/notes.txt"
	mkdir -p "$T/dot" "$T/xdg/git"
	printf 'nothing-here\n' >"$T/dot/ignore"
	ln -s "$T/dot/ignore" "$T/xdg/git/ignore"
	age "$T/p" "$T/dot" "$T/xdg"
	out=$(XDG_CONFIG_HOME=$T/xdg "$JAIL" -q --no-export -D "$T/p" -- sh -c 'cat notes.txt; true')
	assert_contains "$out" canary-notes "not ignored yet: shown"
	printf 'notes.txt\n' >"$T/dot/ignore"
	out=$(XDG_CONFIG_HOME=$T/xdg "$JAIL" -q --no-export -D "$T/p" -- sh -c 'ls -a; cat notes.txt 2>/dev/null; true')
	assert_contains "$out" go.txt
	assert_not_contains "$out" notes.txt
	assert_not_contains "$out" canary-
}

# core.excludesFile in the repository's own config is the one git goes by
# (it wins over the user's), and a rule added to it hides the name from the
# next run.
test_repository_excludes_file_is_honoured() {
	live_repo "$T/p"
	printf 'canary-notes\n' >"$T/p/notes.txt"
	printf 'canary-todo\n' >"$T/p/todo.txt"
	mkdir -p "$T/xdg/git"
	printf 'nothing-here\n' >"$T/xdg/git/ignore"
	printf 'notes.txt\n' >"$T/repo-ignore"
	git -C "$T/p" config core.excludesFile "$T/repo-ignore"
	age "$T/p" "$T/xdg" "$T/repo-ignore"
	out=$(XDG_CONFIG_HOME=$T/xdg "$JAIL" -q --no-export -D "$T/p" -- sh -c 'ls -a; cat notes.txt todo.txt 2>/dev/null; true')
	assert_contains "$out" canary-todo "not ignored: shown"
	assert_not_contains "$out" notes.txt
	assert_not_contains "$out" canary-notes
	printf 'notes.txt\ntodo.txt\n' >"$T/repo-ignore"
	out=$(XDG_CONFIG_HOME=$T/xdg "$JAIL" -q --no-export -D "$T/p" -- sh -c 'ls -a; cat todo.txt 2>/dev/null; true')
	assert_contains "$out" go.txt
	assert_not_contains "$out" todo.txt
	assert_not_contains "$out" canary-
}

# The user's config may name the global ignore file in an included file (a
# dotfiles layout); git follows the include, so jail does, run after run.
test_excludes_file_named_in_an_included_config_is_honoured() {
	live_repo "$T/p"
	printf 'canary-notes\n' >"$T/p/notes.txt"
	printf 'canary-todo\n' >"$T/p/todo.txt"
	mkdir -p "$T/xdg/git"
	printf '[include]\n\tpath = %s\n' "$T/extra.gitconfig" >"$T/xdg/git/config"
	printf '[core]\n\texcludesFile = %s\n' "$T/global-ignore" >"$T/extra.gitconfig"
	printf 'notes.txt\n' >"$T/global-ignore"
	age "$T/p" "$T/xdg" "$T/extra.gitconfig" "$T/global-ignore"
	out=$(XDG_CONFIG_HOME=$T/xdg "$JAIL" -q --no-export -D "$T/p" -- sh -c 'ls -a; cat notes.txt todo.txt 2>/dev/null; true')
	assert_contains "$out" canary-todo "not ignored: shown"
	assert_not_contains "$out" notes.txt
	assert_not_contains "$out" canary-notes
	printf '[core]\n\texcludesFile = %s\n' "$T/other-ignore" >"$T/extra.gitconfig"
	printf 'todo.txt\n' >"$T/other-ignore"
	out=$(XDG_CONFIG_HOME=$T/xdg "$JAIL" -q --no-export -D "$T/p" -- sh -c 'ls -a; cat notes.txt todo.txt 2>/dev/null; true')
	assert_contains "$out" canary-notes "no longer ignored: shown"
	assert_not_contains "$out" todo.txt
	assert_not_contains "$out" canary-todo
}

# On a first start git is asked beside the view's walk; a rule added to a
# .gitignore (in place: no directory changes) while that git runs must not be
# lost, as it would not be had git been asked after the walk.  A wrapper
# makes the edit land there: after git read the rules, before jail takes the
# answer.
test_rule_added_while_first_git_runs_hides() {
	live_repo "$T/p"
	printf 'canary-notes\n' >"$T/p/notes.txt"
	mkdir -p "$T/wrap"
	local real
	real=$(command -v git)
	cat >"$T/wrap/git" <<EOF
#!/bin/sh
case " \$* " in
*" ls-files "*"--ignored"*)
	"$real" "\$@"; r=\$?
	[ -e "$T/edited" ] || { printf 'notes.txt\\n' >>"$T/p/.gitignore"; touch "$T/edited"; }
	exit \$r ;;
esac
exec "$real" "\$@"
EOF
	chmod +x "$T/wrap/git"
	age "$T/p"
	out=$(PATH=$T/wrap:$PATH "$JAIL" -q --no-export -D "$T/p" -- sh -c 'ls -a; cat notes.txt 2>/dev/null; true')
	assert_file "$T/edited"
	assert_contains "$out" go.txt
	assert_not_contains "$out" notes.txt
	assert_not_contains "$out" canary-
}

# A repository cloned inside the project (not a submodule: the index has no
# gitlink for it) keeps its own ignore rules, and the project's git does not
# look inside it: its ignored files must still be hidden.
test_ignored_files_of_a_nested_repository_stay_hidden() {
	live_repo "$T/p"
	git_init "$T/p/vendor/lib"
	printf 'local.cfg\n' >"$T/p/vendor/lib/.gitignore"
	printf 'code\n' >"$T/p/vendor/lib/code.txt"
	git -C "$T/p/vendor/lib" add -A
	git -C "$T/p/vendor/lib" commit -q -m lib
	printf 'SECRET=canary-nested-cfg\n' >"$T/p/vendor/lib/local.cfg"
	age "$T/p"
	local run
	for run in first cached; do
		out=$("$JAIL" -q --no-export -D "$T/p" -- sh -c \
			'ls -a vendor/lib; cat vendor/lib/local.cfg 2>/dev/null; true')
		assert_contains "$out" code.txt "$run run"
		assert_not_contains "$out" local.cfg
		assert_not_contains "$out" canary-
	done
}

# The agent opens the names in a tight loop while the host creates, removes and
# re-creates them: an fd obtained in any window is a leak.
test_ignored_files_polled_during_creation_stay_hidden() {
	live_repo "$T/p"
	start_hunter race.key secrets/race.txt conf/race.key
	local i
	for i in $(seq 200); do
		printf 'canary-race\n' >"$T/p/race.key"
		mkdir -p "$T/p/secrets"
		printf 'canary-race-dir\n' >"$T/p/secrets/race.txt"
		printf 'canary-race-conf\n' >"$T/p/conf/race.key.tmp"
		mv "$T/p/conf/race.key.tmp" "$T/p/conf/race.key"
		rm -rf "$T/p/race.key" "$T/p/secrets" "$T/p/conf/race.key"
	done
	printf 'canary-race\n' >"$T/p/race.key"
	finish_hunter
	assert_contains "$out" ready
	assert_no_leak
	assert_eq "$rc" 0 "the hunter's status ($err)"
}

# --hide-start-only: the old start-time hiding, said at start; what was ignored
# at start is still hidden.
test_hide_start_only_says_so() {
	live_repo "$T/p"
	run_jail --hide-start-only -D "$T/p" -- cat .env
	assert_ne "$rc" 0 "reading .env with start-time hiding"
	assert_not_contains "$out" canary-
	assert_contains "$err" "start only"
	run_jail -D "$T/p" -- cat conf/app.txt
	assert_eq "$rc" 0 "positive control: a tracked file reads"
	assert_not_contains "$err" "start only"
}

# The view's server lives outside the jail: requests the agent can make of it
# (odd names, long paths, writes, xattrs, directories read while they change)
# must leave it serving.
test_project_view_survives_odd_requests() {
	live_repo "$T/p"
	mkdir -p "$T/bin"
	cp "$PROBE" "$T/bin/probe"
	local long
	long=$(printf 'x%.0s' $(seq 255))
	run_jail -q --ro "$T/bin" -D "$T/p" -- sh -c '
		P='"$T"'/bin/probe
		cat '"$long"' 2>/dev/null; cat "$(printf "a\nb")" 2>/dev/null
		cat conf/../conf/./app.txt >/dev/null
		$P setxattr conf/app.txt user.overlay.opaque; $P setxattr conf/app.txt trusted.overlay.redirect
		getfattr -d -m - conf/app.txt 2>/dev/null
		echo more >>conf/app.txt && mv conf/app.txt conf/b.txt && mkdir -p x/y && rm -rf conf
		for i in 1 2 3 4 5 6 7 8 9 10; do ls -laR . >/dev/null & done; wait
		cat go.txt'
	assert_eq "$rc" 0 "the jail's status ($err)"
	assert_contains "$out" wait # the project still reads after all that
}

# No extended attribute of a host file reaches the overlay through the view:
# neither the host's overlay xattrs (which would steer the overlay) nor others.
test_project_view_passes_no_host_xattrs() {
	live_repo "$T/p"
	setfattr -n user.canary -v canary-xattr "$T/p/conf/app.txt"
	setfattr -n user.overlay.opaque -v y "$T/p/conf"
	assert_contains "$(getfattr -d "$T/p/conf/app.txt")" canary-xattr # positive control
	run_jail -q -D "$T/p" -- sh -c 'getfattr -d -m - conf/app.txt conf; ls conf'
	assert_not_contains "$out" canary-xattr
	assert_not_contains "$out" overlay
	assert_contains "$out" app.txt # the lower's "opaque" directory is not opaque
}

# The server dies with the supervisor: nothing of the jail, the server
# included, outlives a killed jail.
test_project_view_server_dies_with_jail() {
	live_repo "$T/p"
	"$JAIL" -q -D "$T/p" -- sh -c 'echo ready; while :; do cat go.txt >/dev/null; done' \
		>"$T/out" 2>&1 </dev/null &
	local pid=$! i
	for i in $(seq 600); do
		grep -q ready "$T/out" && break
		sleep 0.1
	done
	grep -q ready "$T/out" || fail "the jail did not start: $(cat "$T/out")"
	pgrep -u "$(id -u)" -f -- "-D $T/p" >/dev/null || fail "positive control: no jail process"
	kill -KILL "$pid"
	# (30 s, as wait_for gives: 10 s was the suite's one shorter wait)
	for i in $(seq 300); do
		pgrep -u "$(id -u)" -f -- "-D $T/p" >/dev/null || return 0
		sleep 0.1
	done
	fail "left behind: $(pgrep -a -u "$(id -u)" -f -- "-D $T/p")"
}

# slow_git DIR: a git on PATH whose listing of ignored files waits until
# $T/release exists (the view's tree cannot be final before): the race
# between the jail's start and the view's build is then as wide as the test
# wants.  $T/git-asked appears when git is asked.
slow_git() {
	local real
	real=$(command -v git)
	mkdir -p "$1"
	cat >"$1/git" <<EOF
#!/bin/sh
case " \$* " in
*" ls-files "*"--ignored"*)
	touch "$T/git-asked"
	while [ ! -e "$T/release" ]; do sleep 0.05; done ;;
esac
exec "$real" "\$@"
EOF
	chmod +x "$1/git"
}

# A cold start (no caches) starts the command before the view's tree is
# final: whatever it reads of the project waits for the tree, and then shows
# neither the ignored files at start nor one created after the walk, while git
# runs (a directory that changed meanwhile is read again and git asked again:
# late.txt, not ignored, may be shown; late.key never).
test_cold_start_reads_wait_for_the_final_view() {
	live_repo "$T/p"
	mkdir -p "$T/p/cache/sub"
	slow_git "$T/wrap"
	age "$T/p"
	PATH=$T/wrap:$PATH JAIL_DEBUG=1 "$JAIL" --no-export -D "$T/p" -- sh -c '
		echo started
		ls -a; ls -a cache 2>/dev/null && echo LIST-LEAK
		stat .env >/dev/null 2>&1 && echo STAT-LEAK
		stat cache/old.txt >/dev/null 2>&1 && echo STAT-LEAK
		cat .env late.txt late.key 2>/dev/null; echo done' >"$T/cold.out" 2>"$T/cold.err" </dev/null &
	local jail=$!
	wait_for grep -q '^started' "$T/cold.out"
	wait_for grep -q 'view: project walked' "$T/cold.err"
	wait_for test -e "$T/git-asked"
	# the command runs, git has not answered: nothing of the project yet
	assert_not_contains "$(cat "$T/cold.out")" go.txt "before the view is final"
	printf 'canary-late\n' >"$T/p/late.txt"
	printf 'canary-late-key\n' >"$T/p/late.key"
	touch "$T/release"
	wait "$jail"
	local out
	out=$(cat "$T/cold.out")
	assert_contains "$out" go.txt
	assert_contains "$out" done
	assert_not_contains "$out" .env
	assert_not_contains "$out" late.key
	assert_not_contains "$out" LEAK
	assert_not_contains "$out" canary-at-start
	assert_not_contains "$out" canary-late-key
}

# A cold `jail -- true` ends before the view is built: the server finishes
# it and writes the caches, so the next start is warm.
test_cold_true_leaves_the_caches() {
	live_repo "$T/p"
	local s real
	s=$(session_dir "$T/p")
	real=$(command -v git)
	mkdir -p "$T/wrap"
	cat >"$T/wrap/git" <<EOF
#!/bin/sh
case " \$* " in *" ls-files "*"--ignored"*) touch "$T/git-asked" ;; esac
exec "$real" "\$@"
EOF
	chmod +x "$T/wrap/git"
	age "$T/p"
	PATH=$T/wrap:$PATH "$JAIL" -q --no-export -D "$T/p" -- true
	wait_for test -s "$s/tree.cache"
	wait_for test -s "$s/ignored.cache"
	assert_file "$T/git-asked"
	rm "$T/git-asked"
	out=$(PATH=$T/wrap:$PATH "$JAIL" -q --no-export -D "$T/p" -- sh -c 'cat go.txt; ls -a')
	assert_contains "$out" wait
	assert_not_contains "$out" .env
	assert_no_file "$T/git-asked"  # warm: the cache answered
}

# The view's build failing (here: the session's hidden list cannot be
# written): one line says so, and the jail sees nothing of the project, never
# the unfiltered tree.
test_view_build_failure_shows_nothing() {
	live_repo "$T/p"
	local s
	s=$(session_dir "$T/p")
	mkdir -p "$s/hidden"
	set +e
	"$JAIL" -q --no-export -D "$T/p" -- sh -c \
		'ls -a . 2>&1; cat .env go.txt 2>&1' >"$T/f.out" 2>"$T/f.err"
	set -e
	assert_not_contains "$(cat "$T/f.out")" .gitignore
	assert_not_contains "$(cat "$T/f.out")" wait
	assert_not_contains "$(cat "$T/f.out")" canary-
	assert_contains "$(cat "$T/f.err")" "sees nothing of the project"
}

# A repository cloned inside the project has its credentials withheld by the
# view's server while the jail runs: the command looks into it before the
# redacted copy exists (the overlay then takes the directory as the lower
# layer's alone), and still reads only the copy.
test_nested_credentials_withheld_when_looked_up_before_the_copy() {
	live_repo "$T/p"
	git_init "$T/lib"
	printf 'lib\n' >"$T/lib/lib.txt"
	git -C "$T/lib" add -A
	git -C "$T/lib" commit -q -m lib
	git clone -q "$T/lib" "$T/p/vendor/dep"
	git -C "$T/p/vendor/dep" remote set-url origin "https://u:canaryNEST77@example.com/dep.git"
	slow_git "$T/wrap"
	PATH=$T/wrap:$PATH "$JAIL" -q --no-export -D "$T/p" -- sh -c '
		echo started
		ls -a vendor/dep/.git >/dev/null
		cat vendor/dep/.git/config; git -C vendor/dep remote get-url origin' \
		>"$T/n.out" 2>"$T/n.err" </dev/null &
	local jail=$!
	wait_for grep -q '^started' "$T/n.out"
	wait_for test -e "$T/git-asked"
	touch "$T/release"
	wait "$jail" || fail "the jail failed: $(cat "$T/n.err")"
	local out
	out=$(cat "$T/n.out")
	assert_not_contains "$out" canary
	assert_contains "$out" "https://example.com/dep.git"
}

# A project without git hides secret-shaped names; the session's list of what
# was hidden is the last start's.  A host key that appears where the agent
# wrote a file of its own (x.pem), or below a directory it replaced (d/, now
# opaque: the host's entries read as deletions), was in no list: a diff
# against it would carry the host's key into the patch.
nogit_agent_over_host_keys() {
	mkdir -p "$T/p/d"
	printf 'hi\n' >"$T/p/a.txt"
	printf 'dd\n' >"$T/p/d/keep.txt"
	"$JAIL" -q -D "$T/p" -- sh -c \
		'echo agent-wrote >x.pem; rm -rf d; mkdir d; echo mine >d/mine.txt' >/dev/null 2>&1
	wait_for test -s "$(session_dir "$T/p")/tree.cache"
	printf 'canary-host-key\n' >"$T/p/x.pem"
	printf 'canary-host-key2\n' >"$T/p/d/y.pem"
}

assert_no_host_keys() {
	assert_contains "$1" mine "$2"
	assert_not_contains "$1" canary-host-key "$2"
}

test_export_leaves_out_a_host_key_added_after_the_run() {
	nogit_agent_over_host_keys
	assert_no_host_keys "$("$JAIL" diff -D "$T/p" 2>&1)" "jail diff"
	"$JAIL" export -D "$T/p" >/dev/null 2>&1 || true
	assert_no_host_keys "$(cat "$(session_dir "$T/p")"/patches/*.patch)" "the patch"
}

# While the view's server builds the next run's tree the list is still the
# last run's: a diff or export meanwhile must not show the keys either.
test_diff_while_the_view_is_built_leaves_out_a_new_host_key() {
	nogit_agent_over_host_keys
	slow_git "$T/wrap"
	PATH=$T/wrap:$PATH "$JAIL" -q --no-export -D "$T/p" -- sh -c 'echo started; cat a.txt' \
		>"$T/run.out" 2>&1 </dev/null &
	local jail=$!
	wait_for test -e "$T/git-asked"
	local during
	during=$("$JAIL" diff -D "$T/p" 2>&1)
	touch "$T/release"
	wait "$jail" || fail "the jail failed: $(cat "$T/run.out")"
	assert_no_host_keys "$during" "jail diff during the build"
	assert_no_host_keys "$("$JAIL" diff -D "$T/p" 2>&1)" "jail diff after the run"
}

# A repository whose git cannot list what it ignores (a corrupt index, one a
# newer git wrote) still has ignored files: taken for a project without git,
# it showed all but the secret-shaped ones.  The jail sees nothing instead,
# with the view and with --hide-start-only, and one line says why.
test_git_that_cannot_list_ignored_files_shows_nothing() {
	live_repo "$T/p"
	printf 'canary-dump\n' >"$T/p/dump.sql"
	printf 'dump.sql\n' >>"$T/p/.gitignore"
	printf 'DIRCgarbage' >"$T/p/.git/index"
	local mode
	for mode in "" --hide-start-only; do
		set +e
		"$JAIL" -q --no-export $mode -D "$T/p" -- sh -c 'ls -a; cat dump.sql' \
			>"$T/g.out" 2>"$T/g.err" </dev/null
		set -e
		assert_not_contains "$(cat "$T/g.out")" canary "$mode"
		assert_not_contains "$(cat "$T/g.out")" dump.sql "$mode"
		assert_contains "$(cat "$T/g.err")" "git cannot list the ignored files" "$mode"
	done
}

# At start, the whiteouts a --hide-start-only run left for paths no longer
# hidden are removed, by the path in the session's list: the agent may have
# made a directory on that path a link in its layer.  Followed, it led the
# removal into another session's upper dir, whose whiteout then no longer
# hid the host's .env from that session's running agent.
test_stale_whiteouts_are_not_removed_through_the_agents_links() {
	live_repo "$T/p"
	mkdir -p "$T/p/d/x" "$T/p/x"
	printf 'kept\n' | tee "$T/p/d/x/kept.txt" >"$T/p/x/kept.txt"
	git -C "$T/p" add d x
	git -C "$T/p" commit -q -m kept
	printf 'SECRET=canary-other-session\n' >"$T/p/x/.env"
	printf 'SECRET=canary-d\n' >"$T/p/d/x/.env"
	local other
	other=$(session_dir "$T/p" other)/upper
	"$JAIL" -q --no-export --hide-start-only -D "$T/p" -- sh -c "rm -rf d && ln -s $other d"
	rm "$T/p/d/x/.env"
	"$JAIL" -q --no-export --hide-start-only -s other -D "$T/p" -- true
	assert_eq "$(stat -c %F "$other/x/.env" 2>&1)" "character special file" "set-up"
	"$JAIL" -q --no-export -D "$T/p" -- true
	"$JAIL" -q --no-export --hide-start-only -D "$T/p" -- true
	assert_eq "$(stat -c %F "$other/x/.env" 2>&1)" "character special file" \
		"the other session's whiteout"
}
