# Integration tests for `jail run` (issue: the foundation).  Each test_* runs as
# an unprivileged user with its own $T and XDG_STATE_HOME; see tests/suite.sh.

test_host_tree_unchanged_after_writes() {
	mkrepo "$T/p"
	chmod 644 "$T/p/main.py"
	before=$(tree_hash "$T/p")
	run_jail -D "$T/p" -- sh -c 'echo more >> README && rm main.py && chmod 755 .gitignore &&
		mkdir -p src/deep && echo new > src/deep/new.c && mv notes.txt moved.txt'
	assert_eq "$rc" 0
	assert_eq "$(tree_hash "$T/p")" "$before" "host tree hash"
	up="$(session_dir "$T/p")/upper"
	assert_eq "$(cat "$up/README")" "$(printf 'hello\nmore')"
	assert_eq "$(stat -c %t,%T "$up/main.py")" "0,0" "whiteout for the deleted file"
	assert_eq "$(cat "$up/src/deep/new.c")" "new"
	assert_eq "$(stat -c %a "$up/.gitignore")" "755"
}

test_second_run_sees_first_runs_changes() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -- sh -c 'echo one > state.txt'
	run_jail -D "$T/p" -- cat state.txt
	assert_eq "$out" "one"
	assert_no_file "$T/p/state.txt"
}

# The overlay's work/work is removed by the view's server as it ends, after
# the jail, so the next start has nothing to set aside; one an earlier run
# left (a run without the view, or its server was killed) is set aside before
# the clone and removed the same way, and the overlay still mounts
# (workdir.h).
only_work_left() { [ "$(ls -A "$1")" = work ]; }
nothing_left() { [ -z "$(ls -A "$1")" ]; }
test_overlay_work_dir_leftovers_are_removed() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -- sh -c 'echo one > state.txt'
	w="$(session_dir "$T/p")/work"
	wait_for nothing_left "$w"
	mkdir -p "$w/work/d" "$w/work.old/a/b" && echo x >"$w/work.old/a/b/f" &&
		chmod 000 "$w/work.old/a" "$w/work"
	run_jail -D "$T/p" -- cat state.txt
	assert_eq "$rc" 0
	assert_eq "$out" "one"
	wait_for nothing_left "$w"
	run_jail -D "$T/p" -- sh -c 'echo two > state.txt && cat state.txt'
	assert_eq "$out" "two"
	wait_for nothing_left "$w"
	# with no view server, the supervisor removes what it set aside, and
	# the overlay's work/work stays for the next start to set aside
	mkdir -p "$w/work.old/c"
	run_jail -D "$T/p" --hide-start-only -- cat state.txt
	assert_eq "$out" "two"
	wait_for only_work_left "$w"
	run_jail -D "$T/p" -- cat state.txt
	assert_eq "$out" "two"
	wait_for nothing_left "$w"
}

# The project's overlay skips syncs (plan.h: its unmount synced the whole
# host filesystem); overlayfs refuses a volatile mount's work dir to the next
# mount, so each run's set-aside must leave none: runs after a volatile one
# mount, with an old set-aside dir in the way too.
test_overlay_is_volatile_and_mounts_again() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -- sh -c 'echo one > state.txt; grep " $PWD " /proc/self/mountinfo'
	assert_contains "$out" "volatile"
	w="$(session_dir "$T/p")/work"
	run_jail -D "$T/p" -- sh -c 'echo two >> state.txt'
	assert_eq "$rc" 0
	mkdir -p "$w/work.old/x" && chmod 000 "$w/work.old/x"
	run_jail -D "$T/p" -- sh -c 'echo three >> state.txt; cat state.txt'
	assert_eq "$rc" 0
	assert_eq "$out" "one
two
three"
}

# With syncs skipped, a run that changed the session syncs its upper dir at
# the end; one that changed nothing does not wait for the disk.
test_changed_run_syncs_the_session() {
	command -v strace >/dev/null || skip "no strace"
	mkrepo "$T/p"
	run_jail -D "$T/p" -- true
	strace -f -qq -e trace=syncfs -o "$T/st" "$JAIL" -D "$T/p" -- sh -c 'echo x > new.txt' \
		>/dev/null 2>&1 </dev/null
	assert_contains "$(cat "$T/st")" "syncfs("
	strace -f -qq -e trace=syncfs -o "$T/st" "$JAIL" -D "$T/p" -- true >/dev/null 2>&1 </dev/null
	assert_eq "$(grep -c 'syncfs(' "$T/st")" 0 "syncfs calls of a run that changed nothing"
	strace -f -qq -e trace=syncfs -o "$T/st" "$JAIL" --no-export -D "$T/p" -- true \
		>/dev/null 2>&1 </dev/null
	assert_contains "$(cat "$T/st")" "syncfs(" "--no-export: not known to be unchanged"
}

test_named_sessions_are_separate() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -s a -- sh -c 'echo A > which'
	run_jail -D "$T/p" -s b -- sh -c 'cat which 2>/dev/null || echo none'
	assert_eq "$out" "none"
	run_jail -D "$T/p" -s a -- cat which
	assert_eq "$out" "A"
}

test_reset_discards_the_session() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -- sh -c 'echo x > gone.txt'
	"$JAIL" reset --all -D "$T/p" 2>/dev/null
	run_jail -D "$T/p" -- sh -c 'test -e gone.txt && echo present || echo absent'
	assert_eq "$out" "absent"
}

test_list_shows_sessions() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -s first -- true
	run_jail -D "$T/p" -s second -- true
	out=$("$JAIL" list -D "$T/p")
	assert_contains "$out" "first"
	assert_contains "$out" "second"
}

test_ignored_files_hidden_tracked_and_untracked_visible() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -- sh -c 'ls -A; cat .env 2>&1; ls build 2>&1; cat debug.log 2>&1'
	assert_not_contains "$out" "canary-env-1234"
	assert_not_contains "$out" "out.o"
	for f in README main.py .gitignore notes.txt; do assert_contains "$out" "$f"; done
	names=$(run_jail -D "$T/p" -- ls -A; echo "$out")
	assert_not_contains "$names" ".env"
	assert_not_contains "$names" "debug.log"
	assert_not_contains "$names" "build"
}

test_show_ignored_path_stays_visible() {
	mkrepo "$T/p"
	run_jail -D "$T/p" --show build -- cat build/out.o
	assert_eq "$out" "obj"
	run_jail -D "$T/p" -- cat .env
	assert_ne "$rc" 0
}

# (A home of the test's own: the test user's real one is shared with any other
# suite running now, whose clean-up would remove the canary under this test.)
test_fake_home_holds_nothing_of_the_real_one() {
	mkrepo "$T/p"
	export HOME=$T/home
	mkdir -p "$HOME/.ssh"
	echo canary-ssh-5678 > "$HOME/.ssh/id_test_canary"
	run_jail -D "$T/p" -- sh -c 'ls -A "$HOME"; cat "$HOME/.ssh/id_test_canary" 2>&1; echo home=$HOME'
	assert_not_contains "$out" "canary-ssh-5678"
	assert_eq "$(printf '%s\n' "$out" | grep -v 'No such' | grep -v home= | sort | tr '\n' ' ')" ".bashrc .profile "
	assert_contains "$out" "home=$HOME"
}

test_environment_built_from_nothing() {
	mkrepo "$T/p"
	out=$(SSH_AUTH_SOCK=/tmp/agent.sock MY_TOKEN=canary-tok-42 "$JAIL" -D "$T/p" -- env </dev/null)
	assert_not_contains "$out" "canary-tok-42"
	assert_not_contains "$out" "SSH_AUTH_SOCK"
	names=$(printf '%s\n' "$out" | cut -d= -f1 | grep -v '^PWD$' | grep -v '^SHLVL$' | grep -v '^_$' | sort | tr '\n' ' ')
	assert_eq "$names" "HOME JAIL LANG LOGNAME PATH SHELL TERM TMPDIR USER "
}

test_env_pass_and_set() {
	mkrepo "$T/p"
	out=$(FOO=bar "$JAIL" -D "$T/p" -e FOO --setenv X=1 -- sh -c 'echo $FOO $X' </dev/null)
	assert_eq "$out" "bar 1"
}

test_proc_shows_only_jail_processes() {
	mkrepo "$T/p"
	sleep 300 & host_pid=$!
	run_jail -D "$T/p" -- sh -c 'ls /proc | grep -E "^[0-9]+$" | wc -l; test -e /proc/'$host_pid' && echo SEEN || echo hidden; cat /proc/1/comm'
	kill $host_pid
	lines=($out)
	# init, sh, ls, grep, wc: the host's hundreds of processes are not there
	[ "${lines[0]}" -le 6 ] || fail "expected at most 6 pids in /proc, got ${lines[0]}"
	assert_eq "${lines[1]}" "hidden"
	assert_eq "${lines[2]}" "jail"
}

test_system_is_read_only_and_host_dirs_absent() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -- sh -c 'touch /usr/x 2>/dev/null && echo WROTE-usr; touch /etc/x 2>/dev/null && echo WROTE-etc;
		touch /x 2>/dev/null && echo WROTE-root;
		for d in /root /run/user /mnt /media /srv /var/run/docker.sock /etc/shadow /etc/ssh; do test -e $d && echo "PRESENT $d"; done;
		ls /home; echo end'
	assert_not_contains "$out" "WROTE"
	assert_not_contains "$out" "PRESENT"
	# /home lists the way to the jail's home when it is there, and no other
	# home: nothing when $HOME is elsewhere (the suite's is not under /home)
	local want=
	case $HOME in /home/?*) want=${HOME#/home/} want=${want%%/*} ;; esac
	assert_eq "$(printf '%s\n' "$out" | sed '/^end$/,$d')" "$want" "what /home lists inside"
}

test_tmp_is_private_and_writable() {
	mkrepo "$T/p"
	echo host-tmp-canary > "$T/hostfile"
	run_jail -D "$T/p" -- sh -c 'echo x > /tmp/f && cat /tmp/f; ls -A "$(dirname "$PWD")"'
	assert_eq "$(printf '%s\n' "$out" | tr '\n' ' ')" "x p "
	assert_no_file "$T/f"
}

test_identity_hostname_and_network() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -- sh -c 'id -u; id -g; hostname; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "; cat /sys/class/net/lo/operstate 2>/dev/null; grep -c . /proc/net/route'
	lines=($out)
	assert_eq "${lines[0]}" "$(id -u)"
	assert_eq "${lines[1]}" "$(id -g)"
	assert_eq "${lines[2]}" "jail"
	assert_eq "${lines[3]}" "lo"
	assert_eq "${lines[4]}" "1" "only the header line in the route table"
}

test_loopback_is_up_inside() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -- python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.create_connection(s.getsockname()); print("connected")'
	assert_eq "$out" "connected"
}

test_cwd_follows_the_caller_inside_the_project() {
	mkrepo "$T/p"
	mkdir -p "$T/p/sub/dir"
	out=$(cd "$T/p/sub/dir" && "$JAIL" -- pwd </dev/null)
	assert_eq "$out" "$(realpath "$T/p/sub/dir")"
	out=$(cd "$T" && "$JAIL" -D p -- pwd </dev/null)
	assert_eq "$out" "$(realpath "$T/p")"
}

test_exit_statuses() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -- true;                  assert_eq "$rc" 0
	run_jail -D "$T/p" -- sh -c 'exit 7';        assert_eq "$rc" 7
	run_jail -D "$T/p" -- sh -c 'kill -9 $$';    assert_eq "$rc" 137
	run_jail -D "$T/p" -- sh -c 'kill -15 $$';   assert_eq "$rc" 143
	run_jail -D "$T/p" -- no-such-command-xyz;   assert_eq "$rc" 127
	assert_contains "$err" "command not found"
	printf 'x' > "$T/p/notexec"
	run_jail -D "$T/p" -- ./notexec;             assert_eq "$rc" 126
}

test_pipes_pass_through() {
	mkrepo "$T/p"
	out=$(echo hi | "$JAIL" -D "$T/p" -- cat)
	assert_eq "$out" "hi"
	out=$("$JAIL" -D "$T/p" -- sh -c 'tty; true' </dev/null)
	assert_eq "$out" "not a tty"
	"$JAIL" -D "$T/p" -- sh -c 'echo to-stderr >&2' 2>"$T/e" >/dev/null </dev/null
	assert_eq "$(cat "$T/e")" "to-stderr"
}

test_pty_when_stdin_is_a_terminal() {
	mkrepo "$T/p"
	out=$(in_pty "$JAIL -D $T/p -- sh -c 'tty; test -t 0 && echo stdin-tty; stty -a | head -n 1'")
	assert_contains "$out" "/dev/pts/0"
	assert_contains "$out" "stdin-tty"
	# the host's pty is not the jail's: its number space is the jail's own devpts
	out=$(in_pty "$JAIL -D $T/p -- ls -1 /dev/pts")
	assert_eq "$(printf '%s\n' "$out" | sort | tr '\n' ' ')" "0 ptmx "
}

test_pty_exit_status_and_terminal_restored() {
	mkrepo "$T/p"
	out=$(in_pty "stty -g > $T/before; $JAIL -D $T/p -- sh -c 'exit 3'; echo rc=\$?; stty -g > $T/after")
	assert_contains "$out" "rc=3"
	assert_eq "$(cat "$T/after")" "$(cat "$T/before")" "terminal settings after the jail"
}

test_sigterm_is_forwarded() {
	mkrepo "$T/p"
	"$JAIL" -D "$T/p" -- sh -c 'trap "echo got-TERM; exit 3" TERM; echo ready; while :; do sleep 0.1; done' >"$T/o" 2>&1 </dev/null &
	jpid=$!
	wait_for grep -q ready "$T/o"
	kill -TERM $jpid
	set +e; wait $jpid; rc=$?; set -e
	assert_eq "$rc" 3
	assert_contains "$(cat "$T/o")" "got-TERM"
}

test_nothing_survives_jail_killed() {
	mkrepo "$T/p"
	marker="jail-marker-$$-$RANDOM"
	"$JAIL" -D "$T/p" -- bash -c "(exec -a $marker sleep 1000) & exec -a $marker-2 sleep 1000" </dev/null >/dev/null 2>&1 &
	jpid=$!
	wait_for pgrep -f "$marker-2" >/dev/null
	pgrep -f "$marker" >/dev/null || fail "the jail did not start"
	kill -KILL $jpid
	# the kernel reaps them: wait for that (they would live 1000 s otherwise)
	wait_for no_process "$marker"
}

test_background_processes_die_with_the_command() {
	mkrepo "$T/p"
	marker="jail-bg-$$-$RANDOM"
	run_jail -D "$T/p" -- sh -c "(exec -a $marker sleep 1000) & echo started"
	assert_eq "$out" "started"
	wait_for no_process "$marker" # a survivor would live 1000 s
}

test_same_session_twice_is_refused() {
	mkrepo "$T/p"
	"$JAIL" -D "$T/p" -- sh -c 'echo up > up.txt; sleep 60' </dev/null >/dev/null 2>&1 &
	jpid=$!
	wait_for test -e "$(session_dir "$T/p")/upper/up.txt"
	before=$(tree_hash "$T/p")
	expect_fail125 -D "$T/p" -- true
	assert_contains "$err" "in use"
	# another session of the same project runs at the same time
	run_jail -D "$T/p" -s other -- echo ok
	assert_eq "$out" "ok"
	kill $jpid; wait $jpid || true
	assert_eq "$(tree_hash "$T/p")" "$before"
}

# The next run may start while the last one's namespaces are still coming
# down (jail does not wait for that): it waits for the session, never finds it
# busy, and sees every earlier run's writes.
test_runs_back_to_back_share_the_session() {
	mkrepo "$T/p"
	local i
	for i in $(seq 20); do
		run_jail -D "$T/p" -- sh -c "echo run$i >> count.txt; exit 3"
		assert_eq "$rc" 3 "run $i: $err"
	done
	run_jail -D "$T/p" -- sh -c 'wc -l < count.txt; tail -n 1 count.txt'
	assert_eq "$out" "$(printf '20\nrun20')"
}

test_bad_input_one_line_exit_125() {
	mkrepo "$T/p"
	before=$(tree_hash "$T/p")
	expect_fail125 -D "$T/missing" -- true;        assert_contains "$err" "no such directory"
	expect_fail125 -D "$T/p/README" -- true;        assert_contains "$err" "not a directory"
	expect_fail125 -D "$T/p";                        assert_contains "$err" "no command"
	expect_fail125 -D "$T/p" --frobnicate -- true;   assert_contains "$err" "unknown option"
	expect_fail125 -D "$T/p" -s ../x -- true;        assert_contains "$err" "session name"
	expect_fail125 -D / -- true;                     assert_contains "$err" "system directory"
	expect_fail125 -D "$HOME" -- true;               assert_contains "$err" "home directory"
	expect_fail125 -D "$T/p" --net bogus -- true;    assert_contains "$err" "--net"
	expect_fail125 -D "$T/p" --memory lots -- true;  assert_contains "$err" "--memory"
	expect_fail125 diff --three-way -D "$T/p";       assert_contains "$err" "does not apply"
	assert_eq "$(tree_hash "$T/p")" "$before"
}

test_state_dir_on_overlay_is_refused() {
	mkrepo "$T/p"
	mkdir -p "$T/o/l" "$T/o/u" "$T/o/w" "$T/o/m"
	out=$(unshare -Urm sh -c "mount -t overlay o -o lowerdir=$T/o/l,upperdir=$T/o/u,workdir=$T/o/w,userxattr $T/o/m &&
		XDG_STATE_HOME=$T/o/m $JAIL -D $T/p -- true; echo rc=\$?" 2>&1)
	assert_contains "$out" "rc=125"
	assert_contains "$out" "overlay filesystem"
}

test_no_user_namespaces_is_one_clear_line() {
	mkrepo "$T/p"
	out=$(unshare -Ur sh -c "echo 0 > /proc/sys/user/max_user_namespaces && $JAIL -D $T/p -- true; echo rc=\$?" 2>&1)
	assert_contains "$out" "rc=125"
	# the layer that refuses, and the fix
	assert_contains "$out" "user.max_user_namespaces is 0; fix: sysctl -w user.max_user_namespaces="
	assert_eq "$(printf '%s\n' "$out" | grep -c '^jail:')" 1
}

test_doctor_reports_this_host_fit() {
	out=$("$JAIL" doctor)
	assert_contains "$out" "user namespace and overlayfs (userxattr) work"
	assert_contains "$out" "nghttp2 loads (for brokered hosts over HTTP/2)"
	assert_contains "$out" "jail can run here"
}

test_help_and_version() {
	out=$("$JAIL" --help)
	assert_contains "$out" "usage: jail"
	for s in run diff status export reset list doctor; do assert_contains "$out" "  $s "; done
	out=$("$JAIL" --version)
	assert_contains "$out" "jail "
}

test_newly_ignored_files_are_hidden_on_the_next_run() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -- ls -A
	assert_contains "$out" "notes.txt"
	sleep 1.1 # step past the cache's same-second distrust
	run_jail -D "$T/p" -- true
	echo canary-log-99 > "$T/p/sub.log"
	printf 'notes.txt\n' >> "$T/p/.gitignore"
	run_jail -D "$T/p" -- sh -c 'ls -A; cat sub.log notes.txt 2>&1'
	assert_not_contains "$out" "canary-log-99"
	assert_not_contains "$out" "untracked"
	# and a path no longer ignored comes back
	printf '.env\n' > "$T/p/.gitignore"
	run_jail -D "$T/p" -- cat notes.txt
	assert_eq "$out" "untracked"
}

test_pty_window_size_follows_the_terminal() {
	mkrepo "$T/p"
	out=$(in_pty "stty cols 123 rows 45; $JAIL -D $T/p -- stty size")
	assert_eq "$out" "45 123"
	# a resize while the command runs reaches it as SIGWINCH with the new size
	sock="$T/tmux.sock"
	tmux -S "$sock" new-session -d -x 80 -y 24 \
		"$JAIL -D $T/p -- sh -c 'trap \"stty size > winch.txt\" WINCH; echo ready > ready.txt; i=0; while [ ! -s winch.txt ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i+1)); done'"
	up="$(session_dir "$T/p")/upper"
	wait_for test -e "$up/ready.txt"
	tmux -S "$sock" resize-window -x 100 -y 30
	wait_for test -s "$up/winch.txt"
	tmux -S "$sock" kill-server 2>/dev/null || true
	assert_eq "$(cat "$up/winch.txt")" "30 100"
}

test_persistent_home_survives_runs_fresh_does_not() {
	mkrepo "$T/p"
	run_jail -D "$T/p" --home persistent -- sh -c 'echo kept > ~/.state'
	run_jail -D "$T/p" --home persistent -- cat .state
	out=$(cd "$T/p" && "$JAIL" --home persistent -- sh -c 'cat ~/.state' </dev/null)
	assert_eq "$out" "kept"
	run_jail -D "$T/p" -- sh -c 'cat ~/.state 2>/dev/null || echo fresh'
	assert_eq "$out" "fresh"
	assert_no_file "$HOME/.state"
}

test_binds_and_tmpfs() {
	mkrepo "$T/p"
	mkdir -p "$T/ro" "$T/rw"
	echo data > "$T/ro/f"
	run_jail -D "$T/p" --ro "$T/ro" --rw "$T/rw" --tmpfs /scratch -- sh -c \
		"cat $T/ro/f; touch $T/ro/g 2>/dev/null && echo ro-WRITABLE; echo w > $T/rw/out; touch /scratch/x && echo scratch-ok"
	assert_eq "$(printf '%s\n' "$out" | tr '\n' ' ')" "data scratch-ok "
	assert_eq "$(cat "$T/rw/out")" "w"
	assert_no_file "$T/ro/g"
}

# (A home of the test's own, as above: another suite's clean-up of the shared
# real home removed the file between the jail and the check.)
test_copy_into_home_is_never_written_back() {
	mkrepo "$T/p"
	export HOME=$T/home
	mkdir -p "$HOME/.config/tool"
	echo setting=1 > "$HOME/.config/tool/conf"
	run_jail -D "$T/p" --copy "~/.config/tool/conf" -- sh -c 'cat ~/.config/tool/conf; echo changed > ~/.config/tool/conf'
	assert_eq "$out" "setting=1"
	assert_eq "$(cat "$HOME/.config/tool/conf")" "setting=1"
}

test_hide_patterns_hide_tracked_paths_until_dropped() {
	mkrepo "$T/p"
	mkdir -p "$T/p/keys/deep"
	echo canary-pem-31 > "$T/p/keys/deep/server.pem"
	echo canary-tracked-32 > "$T/p/config.secret"
	git -C "$T/p" add -f keys config.secret && git -C "$T/p" commit -qm more
	run_jail -D "$T/p" --hide '*.secret' --hide keys -- sh -c 'ls -A; cat config.secret keys/deep/server.pem 2>&1'
	assert_not_contains "$out" "canary-pem-31"
	assert_not_contains "$out" "canary-tracked-32"
	assert_not_contains "$(printf '%s\n' "$out" | grep -v '^cat:')" "keys"
	assert_contains "$out" "README"
	# a hidden path is not exported as a deletion either
	out=$("$JAIL" status -D "$T/p" 2>&1)
	assert_not_contains "$out" "config.secret"
	assert_not_contains "$out" "server.pem"
	# without the patterns the paths come back
	run_jail -D "$T/p" -- cat config.secret
	assert_eq "$out" "canary-tracked-32"
}

# etc_listing: every name of the jail's /etc two levels down, with a symlink's
# target and a file's checksum (what a program could read there).
etc_listing='for f in /etc/* /etc/*/*; do
	if [ -L "$f" ]; then echo "L $f $(readlink "$f")";
	elif [ -f "$f" ]; then echo "F $f $(md5sum < "$f" 2>/dev/null)";
	elif [ -d "$f" ]; then echo "D $f"; fi; done'

test_etc_snapshot_shows_what_the_copy_shows() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -- sh -c "grep ' /etc ' /proc/self/mountinfo; $etc_listing"
	assert_eq "$rc" 0
	assert_not_contains "$out" "/.etc/"
	copied=$(grep -v ' /etc ' <<<"$out")
	man=$(ls "$XDG_STATE_HOME/jail/.etc/" | grep -v '\.')
	[ -n "$man" ] || fail "a snapshot's manifest after the first run"
	run_jail -D "$T/p" -- sh -c "grep ' /etc ' /proc/self/mountinfo; $etc_listing"
	assert_eq "$rc" 0
	assert_contains "$out" "/.etc/" # the second run binds the snapshot
	assert_eq "$(grep -v ' /etc ' <<<"$out")" "$copied" "/etc, snapshot against copy"
	assert_eq "$(stat -c %a "$XDG_STATE_HOME/jail/.etc")" 700 "the snapshots' directory"
}

test_etc_snapshot_with_a_changed_stamp_is_not_used() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -- true
	dir="$XDG_STATE_HOME/jail/.etc"
	man="$dir/$(ls "$dir" | grep -v '\.')"
	# as if an entry of the host's /etc had changed since the snapshot was made
	# (the first stamp is /etc's own: its mtime)
	sed -i '0,/^s [0-9]/s/^s [0-9]*\./s 3./' "$man"
	grep -q '^s 3\.' "$man" || fail "positive control: the manifest was edited"
	run_jail -D "$T/p" -- grep ' /etc ' /proc/self/mountinfo
	assert_not_contains "$out" "/.etc/"
	# and a new one is made, which the next run takes
	run_jail -D "$T/p" -- grep ' /etc ' /proc/self/mountinfo
	assert_contains "$out" "/.etc/"
}

# snapshots: the directories of /etc snapshots, oldest first
snapshots() { find "$XDG_STATE_HOME/jail/.etc" -mindepth 1 -maxdepth 1 -type d | sort; }
# stale_snapshot: as if the host's /etc had changed since the newest manifest
stale_snapshot() {
	find "$XDG_STATE_HOME/jail/.etc" -maxdepth 1 -type f -exec sed -i '0,/^s [0-9]/s/^s [0-9]*\./s 3./' {} +
}

# A mount of the user's own below /etc needs its mount point made there: with a
# snapshot made (read-only, shared by every run) the run still starts, /etc
# copied, and the mount is there; a run without one binds the snapshot again.
test_etc_snapshot_not_used_with_a_mount_below_etc() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -- true
	run_jail -D "$T/p" -- grep ' /etc ' /proc/self/mountinfo
	assert_contains "$out" "/.etc/" "positive control: the snapshot is bound"
	run_jail -D "$T/p" --tmpfs /etc/jail-test-tmpfs -- sh -c \
		"touch /etc/jail-test-tmpfs/x && echo made; grep ' /etc ' /proc/self/mountinfo; true"
	assert_eq "$rc" 0 "$err"
	assert_contains "$out" made
	assert_not_contains "$out" "/.etc/"
	host=
	snap=$(snapshots | head -1)
	for f in /etc/ssh /etc/login.defs /etc/fstab /etc/adduser.conf; do
		[ -e "$f" ] && [ ! -e "$snap/${f#/etc/}" ] && { host=$f; break; }
	done
	if [ -n "$host" ]; then
		run_jail -D "$T/p" --ro "$host" -- ls -d "$host"
		assert_eq "$rc" 0 "--ro $host: $err"
		assert_eq "$out" "$host"
	fi
	for snap in "$XDG_STATE_HOME"/jail/.etc/*.*; do
		assert_no_file "$snap/jail-test-tmpfs"
	done
	run_jail -D "$T/p" -- grep ' /etc ' /proc/self/mountinfo
	assert_contains "$out" "/.etc/" "a run without the mount binds the snapshot"
}

test_etc_snapshot_old_ones_removed_unless_a_jail_holds_them() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -- true
	first=$(snapshots)
	[ -n "$first" ] || fail "positive control: a snapshot"
	# a running jail holds the snapshot it binds
	# (it says so through a bound dir: other tests of this user run sleep too)
	mkdir "$T/mark"
	"$JAIL" -q -s bg -D "$T/p" --rw "$T/mark" -- sh -c "touch '$T/mark/up'; exec sleep 60" \
		>/dev/null 2>&1 &
	bg=$!
	wait_for test -e "$T/mark/up"
	stale_snapshot
	touch -d '2 hours ago' "$first"
	run_jail -D "$T/p" -- true # copies, and makes a second snapshot
	assert_eq "$(snapshots | wc -l)" 2 "snapshots while a jail holds the first"
	assert_contains "$(snapshots)" "$first"
	kill "$bg"
	wait "$bg" || true
	wait_for gone "$bg"
	# once no jail holds it, the next snapshot's making removes it
	second=$(snapshots | grep -v "$first")
	stale_snapshot
	touch -d '2 hours ago' "$first"
	run_jail -D "$T/p" -- true
	wait_for sh -c "! test -d '$first'"
	assert_contains "$(snapshots)" "$second" "a minute-young snapshot is kept"
}

# A snapshot another manifest names (a run with another network has its own)
# stays when a new one is made.
test_etc_snapshot_of_another_network_kept() {
	mkrepo "$T/p"
	run_jail -D "$T/p" --net none -- true
	run_jail -D "$T/p" --net allow -- true
	run_jail -D "$T/p" --net allow -- grep ' /etc ' /proc/self/mountinfo
	assert_eq "$rc" 0 "$err"
	allow_dir=$(sed -n 's|.*/\.etc/\([^ ]*\) /etc .*|\1|p' <<<"$out")
	[ -n "$allow_dir" ] || fail "positive control: --net allow binds a snapshot"
	assert_eq "$(snapshots | wc -l)" 2 "one snapshot each for --net none and allow"
	for d in $(snapshots); do touch -d '2 hours ago' "$d"; done
	# --net none's snapshot goes stale: making its new one removes only the old
	for m in $(find "$XDG_STATE_HOME/jail/.etc" -maxdepth 1 -type f); do
		grep -q "^d $allow_dir\$" "$m" || sed -i '0,/^s [0-9]/s/^s [0-9]*\./s 3./' "$m"
	done
	run_jail -D "$T/p" --net none -- true
	assert_eq "$(snapshots | wc -l)" 2 "the old --net none snapshot removed, a new one made"
	[ -d "$XDG_STATE_HOME/jail/.etc/$allow_dir" ] || fail "--net allow's snapshot was removed"
}

# A file as stdio goes in as a pipe (stdiorelay.h); what the command writes
# arrives whole, stdout and stderr to one file in the order they were
# written, and a file as stdin reads to its end.
test_stdio_files_are_relayed_in_order() {
	mkrepo "$T/p"
	seq 1 20000 >"$T/in"
	set +e
	"$JAIL" -q -D "$T/p" -- sh -c 'for i in 1 2 3 4 5; do echo out$i; echo err$i >&2; done
		wc -l; exit 3' <"$T/in" >"$T/both" 2>&1
	rc=$?
	set -e
	assert_eq "$rc" 3 "the command's status"
	assert_eq "$(grep -v '^jail: ' "$T/both" | tr '\n' ' ')" "out1 err1 out2 err2 out3 err3 out4 err4 out5 err5 20000 "
	# closed stdin stays closed, and a pipe end never takes its place
	"$JAIL" -q -D "$T/p" -- sh -c '[ -e /proc/self/fd/0 ] && echo open || echo closed' \
		0<&- >"$T/closed" 2>/dev/null
	assert_eq "$(cat "$T/closed")" closed "a closed stdin inside"
}

test_dev_null_stdio_goes_in_as_is() {
	mkrepo "$T/p"
	# /dev/null reopened is /dev/null: no pipe (a pipe would show as pipe:[N])
	"$JAIL" -q -D "$T/p" -- sh -c 'echo "$(readlink /proc/$$/fd/0) $(readlink /proc/$$/fd/1)" >&2' \
		</dev/null >/dev/null 2>"$T/links"
	assert_eq "$(grep -v '^jail: ' "$T/links" | tr '\n' ' ')" "/dev/null /dev/null " "stdio from /dev/null"
}
