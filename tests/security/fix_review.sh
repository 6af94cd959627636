# The escape suite: the day's fixes and start-up changes attacked again, by
# another spelling, path, timing or layer.  Each test fails on the build
# before its fix.
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

# in_cwd NAME [JAIL ARGS...]: from the host's $T/p/NAME, a command that prints
# where it runs (as the jail sees it) and "at-root" when that is the project's
# root (the fallback for a directory that is gone or leads out).
in_cwd() {
	local name=$1
	shift
	cd "$T/p/$name"
	run_jail "$@" -- sh -c \
		'readlink /proc/self/cwd; [ "$(stat -c %d:%i .)" = "$(stat -c %d:%i "$1")" ] && echo at-root; true' \
		sh "$T/p"
	cd "$T"
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
