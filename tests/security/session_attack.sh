# The escape suite: a session's life cycle and its crash paths.  jail
# promises that nothing is lost (the host tree is never written, a session
# survives any crash) and that nothing the agent leaves in its session hurts
# the host side.  Here the session commands are killed at chosen points, run
# out of room, and fed trees the agent shaped.  Each test fails on the build
# before its fix.
source "$TESTS/security/helpers.bash"

# A project whose agent made two commits (c1 changes README, c2 adds n1).
two_commits() {
	mkrepo "$T/p"
	run_jail -q --no-export -D "$T/p" -- sh -c '
		git config user.email a@example.com && git config user.name Agent &&
		echo more >>README && git commit -qam c1 &&
		echo new >n1 && git add n1 && git commit -qm c2'
	assert_eq "$rc" 0 "the agent's commits: $err"
}

# A git that kills the jail that started it when it is asked for `git am`:
# after it landed (after), or before it ran (before).
git_killing_jail_at_am() {
	mkdir -p "$T/wrap"
	cat >"$T/wrap/git" <<EOF
#!/bin/bash
[ "\$3" = am ] && [ $1 = before ] && kill -9 \$PPID && exit 1
$(command -v git) "\$@"
rc=\$?
[ "\$3" = am ] && kill -9 \$PPID
exit \$rc
EOF
	chmod +x "$T/wrap/git"
}

# The host's subjects, newest first, on one line.
host_log() { git -C "$T/p" log --format=%s | tr '\n' ' '; }

test_apply_killed_after_git_am_keeps_the_session_consistent() {
	two_commits
	git_killing_jail_at_am after
	PATH="$T/wrap:$PATH" run_jail apply -D "$T/p"
	assert_eq "$rc" 137 "jail apply killed after git am"
	assert_eq "$(host_log)" "c2 c1 init " "what git am landed"
	# the next commands know the series landed: nothing to carry again
	run_jail status -D "$T/p"
	assert_eq "$rc" 0 "status after the kill: $err"
	assert_not_contains "$out" "c1"
	assert_not_contains "$out" "0001-"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "apply again: $err"
	assert_eq "$(host_log)" "c2 c1 init " "the host after applying again"
	assert_no_file "$T/p/.git/rebase-apply"
	assert_eq "$(git -C "$T/p" status --porcelain --untracked-files=no)" "" "host work tree"
}

# The jail dies before git am runs, and the user commits something else: the
# series did not land, and stays to apply.
test_apply_killed_before_git_am_then_other_commit_keeps_the_series() {
	two_commits
	git_killing_jail_at_am before
	PATH="$T/wrap:$PATH" run_jail apply -D "$T/p"
	assert_eq "$rc" 137 "jail apply killed before git am"
	assert_eq "$(host_log)" "init " "the host after the kill"
	echo other >"$T/p/other"
	git -C "$T/p" add other
	git -C "$T/p" commit -qm other
	run_jail status -D "$T/p"
	assert_eq "$rc" 0 "status: $err"
	assert_contains "$out" "0001-c1.patch"
	assert_contains "$out" "0002-c2.patch"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "apply: $err"
	assert_eq "$(host_log)" "c2 c1 other init " "the host after jail apply"
}

# git am stopped on a conflict; the user resolves it and continues: the
# series is the host's now, and is not carried again.
test_apply_conflict_continued_by_hand_is_not_carried_again() {
	two_commits
	printf 'hello\nhost\n' >"$T/p/README"
	git -C "$T/p" commit -qam host
	run_jail apply -D "$T/p"
	assert_ne "$rc" 0 "apply onto a conflicting host change"
	assert_file "$T/p/.git/rebase-apply"
	# while git am waits, the session says so instead of reading a half state
	run_jail status -D "$T/p"
	assert_eq "$rc" 125 "status while git am waits"
	assert_contains "$err" "git am --continue"
	printf 'hello\nmore\n' >"$T/p/README"  # the agent's side
	git -C "$T/p" add README
	git -C "$T/p" am --continue >/dev/null
	assert_eq "$(host_log)" "c2 c1 host init " "the host after git am --continue"
	run_jail status -D "$T/p"
	assert_eq "$rc" 0 "status after the user finished git am: $err"
	assert_contains "$out" "no changes"
}

# git am stopped on a conflict; the user aborts: the series stays to apply.
test_apply_conflict_aborted_keeps_the_series() {
	two_commits
	printf 'hello\nhost\n' >"$T/p/README"
	git -C "$T/p" commit -qam host
	run_jail apply -D "$T/p"
	assert_ne "$rc" 0 "apply onto a conflicting host change"
	git -C "$T/p" am --abort
	run_jail status -D "$T/p"
	assert_eq "$rc" 0 "status after git am --abort: $err"
	assert_contains "$out" "0001-c1.patch"
	assert_contains "$out" "0002-c2.patch"
	git -C "$T/p" reset -q --hard HEAD~1  # the host drops its change: it lands
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "apply after the host dropped its change: $err"
	assert_eq "$(host_log)" "c2 c1 init " "the host after jail apply"
}

# jail reset --all leaves no session behind (jail list shows none).
test_reset_all_leaves_no_session_directory() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'echo more >>README'
	assert_eq "$rc" 0 "run: $err"
	run_jail export -D "$T/p"
	assert_eq "$rc" 0 "export: $err"
	run_jail reset --all -D "$T/p"
	assert_eq "$rc" 0 "reset: $err"
	assert_no_file "$(session_dir "$T/p")"
	run_jail list -D "$T/p"
	assert_not_contains "$out" "default"
}

# export -o DIR on a filesystem that fills up half-way through the series: the
# export fails, and leaves no patch of its own there (the first of a series,
# or a patch cut short, reads as the whole change to git am).
test_export_out_of_room_leaves_no_partial_series() {
	mkrepo "$T/p"
	run_jail -q --no-export -D "$T/p" -- sh -c '
		git config user.email a@example.com && git config user.name Agent &&
		echo small >s && git add s && git commit -qm small &&
		seq 1 60000 | sed "s/^/line /" >big && git add big && git commit -qm big'
	assert_eq "$rc" 0 "the agent's commits: $err"
	mkdir -p "$T/out"
	set +e
	out=$(unshare -Urm bash -c 'mount -t tmpfs -o size=256k,mode=0700 none "$1" ||
			{ echo mount-failed; exit 0; }
		"$2" export -o "$1/x" -D "$3"; echo "export-rc=$?"
		echo "left: $(ls -A "$1/x" | tr "\n" " ")"' sh "$T/out" "$JAIL" "$T/p" 2>&1)
	set -e
	[[ "$out" == *mount-failed* ]] && skip "cannot mount a tmpfs in a user namespace here"
	assert_contains "$out" "export-rc=125"
	assert_contains "$out" "No space left on device"
	assert_contains "$out" "left: "
	assert_not_contains "${out##*left: }" ".patch"
	# with room, the same export is whole
	run_jail export -o "$T/whole" -D "$T/p"
	assert_eq "$rc" 0 "export with room: $err"
	assert_file "$T/whole/0002-big.patch"
}

# A directory the agent leaves readable but not searchable (chmod 600) opens
# and then cannot be listed: it is left out, and the rest still exports.
test_directory_without_search_permission_is_left_out() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'mkdir -p nox/sub && echo b >nox/f && chmod 600 nox &&
		echo changed >>README'
	assert_eq "$rc" 0 "the run and its export: $err"
	local cmd
	for cmd in status "diff --stat" export; do
		run_jail $cmd -D "$T/p"
		assert_eq "$rc" 0 "jail $cmd: $err"
	done
	run_jail status -D "$T/p"
	assert_contains "$out" "nox: cannot read it"
	assert_contains "$out" "M README"
	assert_contains "$(cat "$(session_dir "$T/p")"/patches/*.patch)" "+changed"
	run_jail reset --all -D "$T/p"
	assert_eq "$rc" 0 "reset: $err"
}

# jail list shows the disk a session uses: a file the agent hard-links a
# hundred times takes its blocks once, not a hundred times.
test_list_counts_a_hard_link_farm_once() {
	mkrepo "$T/p"
	run_jail -q --no-export -D "$T/p" -- sh -c 'head -c 4000000 /dev/zero | tr "\0" x >big &&
		for i in $(seq 100); do ln big h$i; done'
	assert_eq "$rc" 0 "the agent's links: $err"
	run_jail list -D "$T/p"
	local size
	size=$(awk '$1 == "default" { print $2 }' <<<"$out")
	# about 4 MiB on disk (the links add directory entries only); 100 times
	# that is 400 MiB
	[[ "$size" =~ ^([0-9.]+)M$ ]] || fail "size of the session: '$size' in: $out"
	[ "${BASH_REMATCH[1]%.*}" -lt 40 ] || fail "the farm counted per link: $size"
}

# jail status of a running session while the agent replaces files all the
# time (an editor's write-and-rename, a fifo swapped in): each read answers,
# what changed under it left out with that reason, never an error or a wait.
test_live_status_while_the_agent_renames_files() {
	mkrepo "$T/p"
	mkdir -p "$T/sig"
	local i
	for i in $(seq 20); do echo hello >"$T/p/f$i"; done
	git -C "$T/p" add . && git -C "$T/p" commit -qm files
	"$JAIL" -q --no-export --rw "$T/sig" -D "$T/p" -- python3 -c '
import os, sys, time
sig = sys.argv[1]
for i in range(1, 21):
    os.mkfifo("p%d" % i)
    with open("g%d" % i, "w") as f:
        f.write("hellx\n")
    os.rename("g%d" % i, "f%d" % i)
open(sig + "/ready", "w").close()
end = time.time() + 110
while time.time() < end and not os.path.exists(sig + "/go"):
    for i in range(1, 21):
        os.rename("f%d" % i, "t%d" % i); os.rename("p%d" % i, "f%d" % i)
        os.rename("f%d" % i, "p%d" % i); os.rename("t%d" % i, "f%d" % i)
' "$T/sig" </dev/null >/dev/null 2>"$T/agent.err" &
	local agent=$! failed=0
	wait_for test -e "$T/sig/ready" -o ! -d "/proc/$agent"
	[ -e "$T/sig/ready" ] || fail "the agent ended early: $(cat "$T/agent.err")"
	for i in $(seq 10); do
		run_jail status -D "$T/p"
		[ "$rc" = 0 ] || { failed=$((failed + 1)); echo "status $i: $err" >&2; }
	done
	touch "$T/sig/go"
	wait "$agent" || fail "agent: $(cat "$T/agent.err")"
	assert_eq "$failed" 0 "live reads that failed"
}
