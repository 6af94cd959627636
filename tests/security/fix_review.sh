# The escape suite: the day's fixes and start-up changes attacked again, by
# another spelling, path, timing or layer.  A test of a hole fails on the
# build before its fix; the others keep what held (and fail if it stops
# holding).
source "$TESTS/security/helpers.bash"

# What a test's agent runs until the test touches $T/sig/go: at most two
# minutes, so that a failed test leaves no jail behind.
wait_go() {
	echo "i=0; while [ ! -e '$T/sig/go' ] && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i + 1)); done"
}

# A live read (jail status while the agent runs) writes only in its own place
# (.live.XXXXXX): the series of the agent's commits and the .gitignore check
# too.  In the session dir they were the run's own export's to sweep as
# stale when the agent ended: the read, still at work, lost its repositories
# and reported the agent's commits refused.  The host's git, on the reader's
# PATH, stops the read once its third temporary repository exists, until the
# run has ended and exported.
test_live_read_scratch_outlives_the_runs_own_export() {
	probe_setup
	mkdir -p "$T/sig" "$T/gitw"
	"$JAIL" -q --rw "$T/sig" -D "$T/p" -- sh -c "cd '$T/p' &&
		echo new >new.txt && git add new.txt && git commit -qm agent-commit &&
		echo '*.tmp' >>.gitignore && touch '$T/sig/ready'
		$(wait_go)" </dev/null >"$T/agent.out" 2>"$T/agent.err" &
	local agent=$! reader sdir proot
	wait_for test -e "$T/sig/ready" -o ! -d "/proc/$agent"
	[ -e "$T/sig/ready" ] || fail "the agent ended early: $(cat "$T/agent.err")"
	sdir=$(session_dir "$T/p")
	proot=$(dirname "$sdir")
	cat >"$T/gitw/git" <<EOF
#!/bin/sh
if [ ! -e '$T/sig/stopped' ] && [ "\$(find '$proot' -maxdepth 3 -name '.export.*' | wc -l)" -ge 3 ]; then
	touch '$T/sig/stopped'
	i=0; while [ ! -e '$T/sig/release' ] && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i + 1)); done
fi
exec /usr/bin/git "\$@"
EOF
	chmod +x "$T/gitw/git"
	PATH="$T/gitw:$PATH" "$JAIL" status -D "$T/p" >"$T/st.out" 2>"$T/st.err" &
	reader=$!
	wait_for test -e "$T/sig/stopped" -o ! -d "/proc/$reader"
	[ -e "$T/sig/stopped" ] || fail "the read ended early: $(cat "$T/st.err" "$T/st.out")"
	assert_eq "$(ls -A "$sdir" | grep -E '^\.(export|flagcheck)\.' || true)" "" \
		"a live read's temporary repositories in the session dir"
	touch "$T/sig/go"
	wait "$agent" || fail "agent: $(cat "$T/agent.err")"
	touch "$T/sig/release"
	wait "$reader" || fail "jail status: $(cat "$T/st.err")"
	assert_contains "$(cat "$T/st.out")" "from the agent's 1 commit"
	assert_not_contains "$(cat "$T/st.out")" "refused"
	assert_eq "$(ls -A "$proot" | grep '^\.live\.' || true)" "" "live places left"
	host_safe
}

# The working directory's other spellings an earlier run may leave where the
# user stands: magic links other than /proc/N/fd (the starting process's own
# cwd and root, through thread-self), a chain of links past the kernel's
# limit, a FIFO (an open of it for reading would wait for a writer), a file,
# and the directory deleted.  Each run starts in the project's root.
test_cwd_other_spellings_start_in_the_project_root() {
	probe_setup
	local n
	for n in selfcwd tselfroot chain fifo file gone; do mkdir -p "$T/p/$n"; done
	BEFORE=$(tree_hash "$T/p")
	run_jail -q --no-export -D "$T/p" -- sh -c "cd '$T/p' &&
		rm -rf selfcwd tselfroot chain fifo file gone &&
		ln -s /proc/self/cwd selfcwd && ln -s /proc/thread-self/root/.. tselfroot &&
		mkdir real && ln -s real l0 && for i in \$(seq 1 45); do ln -s l\$((i - 1)) l\$i; done &&
		ln -s l45 chain && mkfifo fifo && echo x >file"
	assert_eq "$rc" 0 "the agent's traps: $err"
	for n in selfcwd tselfroot chain fifo file gone; do
		in_cwd "$n" -q --no-export -D "$T/p"
		assert_eq "$rc" 0 "run from $n: $err"
		assert_eq "$out" "$(printf '%s\nat-root' "$T/p")" "where a run from $n starts"
	done
	host_safe
}

# on_small_fs SIZE INODES SCRIPT: SCRIPT with the state dir on a tmpfs of its
# own (a user and mount namespace); its output in $out.
on_small_fs() {
	mkdir -p "$T/st"
	out=$(unshare -Urm bash -c 'mount -t tmpfs -o "size=$1,nr_inodes=$2,mode=0700" none "$T/st" ||
			{ echo "mount-failed"; exit 0; }
		export XDG_STATE_HOME=$T/st
		bash -c "$3"; echo "script-rc=$?"' sh "$1" "$2" "$3" 2>&1)
	if [[ "$out" == *mount-failed* ]]; then
		skip "cannot mount a tmpfs in a user namespace here"
	fi
}

# A live read that finds no room beside the session builds its repository in
# TMPDIR; killed there (jail diff | head), it must not leave it for good
# either: the next live read removes what no read holds.  The agent made its
# change as large as the state filesystem's room allows; the host's git, on
# the first reader's PATH, kills that reader once its repository exists.
test_killed_live_read_in_tmpdir_leaves_no_scratch() {
	mkrepo "$T/p"
	BEFORE=$(tree_hash "$T/p")
	mkdir -p "$T/sig" "$T/gitw" "$T/tmpd"
	cat >"$T/gitw/git" <<GIT
#!/bin/sh
case "\$PWD" in '$T/tmpd/'*/.export.*) kill -9 \$PPID; exit 1;; esac
exec /usr/bin/git "\$@"
GIT
	chmod +x "$T/gitw/git"
	on_small_fs 48M 20000 '
		"$JAIL" -q --no-export --rw "$T/sig" -D "$T/p" -- sh -c "for i in \$(seq 20); do
			head -c 700000 /dev/urandom | base64 >t\$i.txt || exit 3; done; touch $T/sig/ready
			i=0; while [ ! -e $T/sig/go ] && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i + 1)); done" \
			</dev/null >/dev/null 2>"$T/agent.err" &
		agent=$!
		while [ ! -e "$T/sig/ready" ] && [ -d /proc/$agent ]; do sleep 0.05; done
		PATH="$T/gitw:$PATH" TMPDIR="$T/tmpd" "$JAIL" status -D "$T/p" </dev/null >/dev/null 2>&1
		echo "killed-rc=$?"
		echo "left-by-killed=$(find "$T/tmpd" -name ".export.*" | wc -l)"
		TMPDIR="$T/tmpd" "$JAIL" status -D "$T/p" </dev/null; echo "status-rc=$?"
		echo "left-after-next=$(find "$T/tmpd" -name ".export.*" | wc -l)"
		touch "$T/sig/go"; wait $agent; echo "agent-rc=$?"'
	assert_contains "$out" "killed-rc=137"
	assert_contains "$out" "left-by-killed=1" "the killed read's repository in TMPDIR (the premise)"
	assert_contains "$out" "status-rc=0"
	assert_contains "$out" "20 files changed"
	assert_contains "$out" "left-after-next=0"
	assert_contains "$out" "agent-rc=0"
	host_safe
}

# The same for a read of a session that does not run (jail diff | head after
# the agent ended): its repository in TMPDIR, killed there, goes with the next
# read that finds room beside the session, or with jail reset or rm.
test_killed_read_in_tmpdir_goes_with_reset() {
	mkrepo "$T/p"
	BEFORE=$(tree_hash "$T/p")
	mkdir -p "$T/gitw" "$T/tmpd"
	cat >"$T/gitw/git" <<GIT
#!/bin/sh
case "\$PWD" in '$T/tmpd/'*/.export.*) kill -9 \$PPID; exit 1;; esac
exec /usr/bin/git "\$@"
GIT
	chmod +x "$T/gitw/git"
	on_small_fs 48M 20000 '
		"$JAIL" -q --no-export -D "$T/p" -- sh -c "for i in \$(seq 20); do
			head -c 700000 /dev/urandom | base64 >t\$i.txt || exit 3; done" </dev/null
		echo "agent-rc=$?"
		PATH="$T/gitw:$PATH" TMPDIR="$T/tmpd" "$JAIL" diff -D "$T/p" </dev/null >/dev/null 2>&1
		echo "killed-rc=$?"
		echo "left-by-killed=$(find "$T/tmpd" -name ".export.*" | wc -l)"
		TMPDIR="$T/tmpd" "$JAIL" reset --all -D "$T/p" </dev/null; echo "reset-rc=$?"
		echo "left-after-reset=$(find "$T/tmpd" -mindepth 1 | wc -l)"'
	assert_contains "$out" "agent-rc=0"
	assert_contains "$out" "killed-rc=137"
	assert_contains "$out" "left-by-killed=1" "the killed read's repository in TMPDIR (the premise)"
	assert_contains "$out" "reset-rc=0"
	assert_contains "$out" "left-after-reset=0"
	host_safe
}
