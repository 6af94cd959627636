# The escape suite: a running session's live features (jail exec, ps, stop,
# list, reset PATH) attacked by the agent inside it.  Each test fails on the
# build before its fix.
source "$TESTS/security/helpers.bash"

# What a test's agent runs until the test touches $T/sig/go: at most two
# minutes, so that a failed test leaves no jail behind.
wait_go() {
	echo "i=0; while [ ! -e '$T/sig/go' ] && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i + 1)); done"
}

# The fds jail's init holds (the /etc snapshot's directory among them: a host
# directory) and the ones of init seen through /proc/1: an agent's link named
# like one of the user's directories must not lead the command started there
# out of the jail.  cwd_links prints the pairs "name target" the agent leaves.
LINK_FDS=$(seq 3 16)
cwd_links() {
	local n
	for n in $LINK_FDS; do
		echo "s$n /proc/self/fd/$n"
		echo "i$n /proc/1/fd/$n"
	done
	echo "c1 /proc/1/cwd"
	echo "r1 /proc/1/root/.."
}

# A project with a host directory for each link name (where the user stands),
# which the agent (its script in $T/bin/links.sh) replaces by its link.
links_setup() {
	probe_setup
	local name target
	: >"$T/bin/links.sh"
	while read -r name target; do
		mkdir -p "$T/p/$name"
		printf 'rm -rf %s && ln -s %s %s\n' "$name" "$target" "$name" >>"$T/bin/links.sh"
	done < <(cwd_links)
	mkdir -p "$T/p/real"
	BEFORE=$(tree_hash "$T/p")
}

test_cwd_link_left_in_the_session_stays_in_the_jail() {
	links_setup
	run_jail -q --no-export --ro "$T/bin" -D "$T/p" -- sh -c "cd '$T/p' && . '$T/bin/links.sh'"
	assert_eq "$rc" 0 "the agent's links: $err"
	local name target
	while read -r name target; do
		in_cwd "$name" -q --no-export -D "$T/p"
		assert_eq "$rc" 0 "run from $name ($target): $err"
		assert_eq "$out" "$(printf '%s\nat-root' "$T/p")" "where a run from $name ($target) starts"
	done < <(cwd_links)
	host_safe
}

test_cwd_link_does_not_lead_jail_exec_out() {
	links_setup
	mkdir -p "$T/sig"
	# an earlier run left the links (and the /etc snapshot init holds open)
	run_jail -q --no-export --ro "$T/bin" -D "$T/p" -- sh -c "cd '$T/p' && . '$T/bin/links.sh'"
	assert_eq "$rc" 0 "the agent's links: $err"
	"$JAIL" -q --no-export --ro "$T/bin" --rw "$T/sig" -D "$T/p" -- sh -c "
		touch '$T/sig/ready' && $(wait_go)" \
		</dev/null >/dev/null 2>"$T/agent.err" &
	local agent=$! name target
	wait_for test -e "$T/sig/ready" -o ! -d "/proc/$agent"
	[ -e "$T/sig/ready" ] || fail "the agent ended early: $(cat "$T/agent.err")"
	while read -r name target; do
		in_cwd "$name" exec -D "$T/p"
		assert_eq "$rc" 0 "jail exec from $name ($target): $err"
		assert_eq "$out" "$(printf '%s\nat-root' "$T/p")" "where jail exec from $name ($target) starts"
	done < <(cwd_links)
	# positive control: a directory the agent left alone is entered
	in_cwd real exec -D "$T/p"
	assert_eq "$out" "$T/p/real" "where jail exec from real starts"
	touch "$T/sig/go"
	wait "$agent" || fail "agent: $(cat "$T/agent.err")"
	host_safe
}

test_cwd_positive_control_a_real_directory_is_entered() {
	links_setup
	in_cwd real -q --no-export -D "$T/p"
	assert_eq "$rc" 0 "$err"
	assert_eq "$out" "$T/p/real" "the caller's directory"
	host_safe
}

# The agent holds the joined command's pty (a pty of the jail's devpts, its own
# uid: it opens /dev/pts/N) and writes on: jail exec still ends when the
# command does, with its status, and gives the terminal back.
test_exec_ends_though_the_agent_holds_its_pty() {
	command -v script >/dev/null || fail "script(1) is missing"
	probe_setup
	mkdir -p "$T/sig"
	"$JAIL" -q --no-export --ro "$T/bin" --rw "$T/sig" -D "$T/p" -- sh -c "
		touch '$T/sig/ready'
		i=0; while [ ! -s '$T/sig/tty' ] && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i + 1)); done
		tty=\$(cat '$T/sig/tty')
		(for i in \$(seq 100); do echo agent-still-here; sleep 0.05; done; sleep 600) >\"\$tty\" 2>/dev/null &
		touch '$T/sig/held'
		$(wait_go)" </dev/null >/dev/null 2>"$T/agent.err" &
	local agent=$!
	# jail exec before the jail runs is refused: the agent would wait on
	wait_for test -e "$T/sig/ready" -o ! -d "/proc/$agent"
	[ -e "$T/sig/ready" ] || fail "the agent ended early: $(cat "$T/agent.err")"
	cat >"$T/bin/joined.sh" <<EOF
tty >'$T/sig/tty'
while [ ! -e '$T/sig/held' ]; do sleep 0.05; done
echo joined-done
exit 5
EOF
	in_pty "timeout --foreground 60 '$JAIL' exec -D '$T/p' -- sh '$T/bin/joined.sh'; echo rc=\$?"
	touch "$T/sig/go"
	wait "$agent" || fail "agent: $(cat "$T/agent.err")"
	assert_contains "$out" "joined-done"
	assert_contains "$out" "agent-still-here" "the agent's writes reached the relay (the premise)"
	assert_contains "$out" "rc=5" "jail exec ended with the command's status"
	host_safe
}

# The jail's /dev is the agent's (a tmpfs of its uid): a /dev/ptmx it replaced
# must not steer what init, with its capabilities, opens for jail exec's pty.
test_exec_pty_ignores_the_agents_dev_ptmx() {
	command -v script >/dev/null || fail "script(1) is missing"
	probe_setup
	mkdir -p "$T/sig"
	"$JAIL" -q --no-export --ro "$T/bin" --rw "$T/sig" -D "$T/p" -- sh -c "
		rm /dev/ptmx && ln -s /proc/self/fd/0 /dev/ptmx && readlink /dev/ptmx >'$T/sig/ready'
		$(wait_go)" </dev/null >/dev/null 2>"$T/agent.err" &
	local agent=$!
	wait_for test -e "$T/sig/ready" -o ! -d "/proc/$agent"
	assert_eq "$(cat "$T/sig/ready" 2>/dev/null)" /proc/self/fd/0 "the agent's link (the premise): $(cat "$T/agent.err")"
	in_pty "timeout --foreground 60 '$JAIL' exec -D '$T/p' -- tty; echo rc=\$?"
	touch "$T/sig/go"
	wait "$agent" || fail "agent: $(cat "$T/agent.err")"
	assert_contains "$out" "/dev/pts/"
	assert_contains "$out" "rc=0"
	host_safe
}

# A live read (`jail diff`/`status` while the agent runs) builds its scratch
# repository beside the session, as large as the agent made its change; one
# killed on the way (`jail diff | head` ends by SIGPIPE, ^C) must not leave
# it for good: the next live read removes what no read holds, and only that.
test_killed_live_reads_leave_no_scratch() {
	probe_setup
	mkdir -p "$T/sig"
	"$JAIL" -q --no-export --ro "$T/bin" --rw "$T/sig" -D "$T/p" -- sh -c "cd '$T/p' && mkdir big &&
		for i in \$(seq 64); do seq 20000 >big/f\$i; done && touch '$T/sig/ready'
		$(wait_go)" </dev/null >/dev/null 2>"$T/agent.err" &
	local agent=$! proot holder
	wait_for test -e "$T/sig/ready" -o ! -d "/proc/$agent"
	[ -e "$T/sig/ready" ] || fail "the agent ended early: $(cat "$T/agent.err")"
	proot=$(dirname "$(session_dir "$T/p")")
	# what a read killed at any point leaves, and one a read of now holds
	mkdir -p "$proot/.live.killed/objects" "$proot/.live.inuse"
	seq 100000 >"$proot/.live.killed/objects/pack"
	(exec 9<"$proot/.live.inuse" && flock -x 9 && exec sleep 600) &
	holder=$!
	wait_for sh -c "! flock -n '$proot/.live.inuse' true"
	"$JAIL" diff -D "$T/p" 2>/dev/null | head -1 >"$T/head.out" || true
	assert_contains "$(cat "$T/head.out")" "diff --git"
	run_jail status -D "$T/p"
	assert_eq "$rc" 0 "live status: $err"
	assert_contains "$out" "64 files changed"
	assert_no_file "$proot/.live.killed"
	[ -d "$proot/.live.inuse" ] || fail "a live read's place in use was removed"
	assert_eq "$(ls -A "$proot" | grep '^\.live\.' | grep -v '^\.live\.inuse$' || true)" "" \
		"live places left (the killed jail diff's included)"
	kill "$holder"
	wait "$holder" 2>/dev/null || true
	touch "$T/sig/go"
	wait "$agent" || fail "agent: $(cat "$T/agent.err")"
	# and jail rm of the project's last session takes what is left with it
	mkdir -p "$proot/.live.killed2/objects"
	run_jail rm -D "$T/p"
	assert_eq "$rc" 0 "rm: $err"
	assert_no_file "$proot" || fail "left: $(ls -A "$proot")"
	host_safe
}

# The session commands name the project: its path, whatever bytes it holds (a
# directory an applied patch made), is printed escaped, never raw to the host
# terminal: ps, list, stop, the "in use" refusal, reset and rm.
test_session_commands_print_the_project_escaped() {
	local p="$T/$(printf 'evil\033]0;owned\007dir')" all
	mkrepo "$p"
	mkdir -p "$T/sig"
	"$JAIL" -q --no-export --rw "$T/sig" -D "$p" -- sh -c "cd \"\$1\" && echo x >new.txt &&
		touch '$T/sig/ready'; $(wait_go)" sh "$p" </dev/null >/dev/null 2>"$T/agent.err" &
	local agent=$!
	wait_for test -e "$T/sig/ready" -o ! -d "/proc/$agent"
	[ -e "$T/sig/ready" ] || fail "the agent ended early: $(cat "$T/agent.err")"
	run_jail ps
	all="$out$err"
	run_jail list --all
	all+="$out$err"
	run_jail -D "$p" -- true
	assert_eq "$rc" 125 "a second run in the session"
	assert_contains "$err" "is in use"
	all+="$out$err"
	run_jail stop -D "$p"
	assert_eq "$rc" 0 "stop: $err"
	all+="$out$err"
	wait "$agent" || true
	run_jail reset --all -D "$p"
	assert_eq "$rc" 0 "reset: $err"
	all+="$out$err"
	run_jail -q --no-export -D "$p" -- true
	run_jail rm -D "$p"
	assert_eq "$rc" 0 "rm: $err"
	all+="$out$err"
	assert_contains "$all" "evil\\x1b]0;owned\\x07dir" "the project, escaped"
	assert_not_contains "$all" $'\033'
	assert_not_contains "$all" $'\007'
}
