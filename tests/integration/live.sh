# live.sh — sessions whose jail is running: status/diff while the agent works,
# jail ps, jail stop, jail exec (issue 14).

# start_agent PROJECT [SESSION] [JAIL ARGS...] -- SCRIPT: run SCRIPT in a jail in
# the background (stdout/stderr in $T/agent.out/.err, pid in $agent); the
# script sees $SIG, a directory shared with the host, for marker files.
start_agent() {
	local p=$1 s=$2
	shift 2
	mkdir -p "$T/sig"
	"$JAIL" -D "$p" -s "$s" --rw "$T/sig" "$@" </dev/null >"$T/agent.out" 2>"$T/agent.err" &
	agent=$!
}

# wait_for FILE: until it exists (60 s at most).
wait_for() {
	local i
	for ((i = 0; i < 600; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	fail "timed out waiting for $1"
}

# wait_agent: the background jail's exit status in $agent_rc.
wait_agent() {
	set +e
	wait "$agent"
	agent_rc=$?
	set -e
}

test_status_and_diff_while_the_agent_runs() {
	mkrepo "$T/p"
	start_agent "$T/p" default -- sh -c "cd '$T/p' && echo live >live.txt && echo more >>README &&
		touch '$T/sig/ready' && while [ ! -e '$T/sig/go' ]; do sleep 0.1; done"
	wait_for "$T/sig/ready"
	run_jail status -D "$T/p"
	assert_eq "$rc" 0 "live status: $err"
	assert_contains "$out" "A live.txt"
	assert_contains "$out" "M README"
	assert_contains "$err" "is running"
	run_jail diff -D "$T/p" live.txt
	assert_eq "$rc" 0 "live diff: $err"
	assert_contains "$out" "+live"
	assert_not_contains "$out" "README"
	# what changes the session is refused while it runs
	expect_fail125 export -D "$T/p"
	assert_contains "$err" "in use"
	expect_fail125 reset -D "$T/p" README
	assert_contains "$err" "is running"
	touch "$T/sig/go"
	wait_agent
	assert_eq "$agent_rc" 0 "agent: $(cat "$T/agent.err")"
	# the live reads left nothing behind, and the run's own export worked
	assert_contains "$(cat "$T/agent.err")" "2 files changed"
	assert_eq "$(ls -A "$(dirname "$(session_dir "$T/p")")" | grep -c '^\.live')" 0 "scratch left"
}

test_ps_lists_running_jails_of_every_project() {
	mkrepo "$T/p"
	mkrepo "$T/q"
	start_agent "$T/p" work -- sh -c "cd '$T/p' && echo a >a.txt && touch '$T/sig/ready' &&
		while [ ! -e '$T/sig/go' ]; do sleep 0.1; done"
	wait_for "$T/sig/ready"
	run_jail -D "$T/q" --no-export -- true
	run_jail ps
	assert_eq "$rc" 0 "$err"
	head=${out%%$'\n'*}
	for col in PROJECT SESSION PID UPTIME CHANGED COMMAND; do assert_contains "$head" "$col"; done
	line=$(printf '%s\n' "$out" | grep " work ")
	assert_contains "$line" "$T/p"
	assert_contains "$line" " $agent "
	assert_contains "$line" "sh -c"
	assert_eq "$(awk '{print $5}' <<<"$line")" 1 "files changed"
	assert_not_contains "$out" "$T/q"
	touch "$T/sig/go"
	wait_agent
	assert_not_contains "$("$JAIL" ps)" "$T/p"
}

test_stop_ends_a_running_jail_with_its_summary() {
	mkrepo "$T/p"
	start_agent "$T/p" default -- sh -c "cd '$T/p' && echo s >stopped.txt && touch '$T/sig/ready' &&
		while :; do sleep 0.1; done"
	wait_for "$T/sig/ready"
	run_jail stop -D "$T/p"
	assert_eq "$rc" 0 "stop: $err"
	assert_contains "$err" "stopped"
	wait_agent
	assert_eq "$agent_rc" 143 "SIGTERM ended the command"
	assert_contains "$(cat "$T/agent.err")" "A stopped.txt"
	expect_fail125 stop -D "$T/p"
	assert_contains "$err" "is not running"
}

test_stop_kills_a_command_that_ignores_sigterm() {
	mkrepo "$T/p"
	start_agent "$T/p" default -- sh -c "cd '$T/p' && trap '' TERM && echo k >k.txt &&
		touch '$T/sig/ready' && while :; do sleep 0.1; done"
	wait_for "$T/sig/ready"
	run_jail stop -D "$T/p" --timeout 1
	assert_eq "$rc" 0 "stop: $err"
	assert_contains "$err" "killing it"
	wait_agent
	assert_eq "$agent_rc" 137 "SIGKILL after the timeout"
	assert_contains "$(cat "$T/agent.err")" "A k.txt"
}

# agent_waiting PROJECT [JAIL ARGS...]: an agent that writes work.txt (not
# committed), records its pid and pid namespace, and waits for $T/sig/go.
agent_waiting() {
	local p=$1
	shift
	mkdir -p "$T/bin" && cp "$PROBE" "$T/bin/probe"
	start_agent "$p" default --ro "$T/bin" "$@" -- sh -c "cd '$p' && echo uncommitted >work.txt &&
		echo \$\$ >'$T/sig/agent.pid' && readlink /proc/self/ns/pid >'$T/sig/agent.ns' &&
		readlink /proc/self/ns/net >'$T/sig/agent.netns' && touch '$T/sig/ready' && while [ ! -e '$T/sig/go' ]; do sleep 0.1; done"
	wait_for "$T/sig/ready"
}

finish_agent() {
	touch "$T/sig/go"
	wait_agent
	assert_eq "$agent_rc" 0 "agent: $(cat "$T/agent.err")"
}

test_exec_joins_the_running_session() {
	mkrepo "$T/p"
	agent_waiting "$T/p"
	cd "$T/p"
	run_jail exec -- sh -c "cat work.txt && readlink /proc/self/ns/pid &&
		kill -0 \$(cat '$T/sig/agent.pid') && echo sees-agent && pwd"
	assert_eq "$rc" 0 "exec: $err"
	assert_eq "$out" "$(printf 'uncommitted\n%s\nsees-agent\n%s' "$(cat "$T/sig/agent.ns")" "$T/p")"
	# the agent's network namespace (init makes it, not the clone: netns.h)
	run_jail exec -- readlink /proc/self/ns/net
	assert_eq "$out" "$(cat "$T/sig/agent.netns")" "exec's network namespace"
	assert_ne "$out" "$(readlink /proc/self/ns/net)" "the host's network namespace"
	# no capabilities, the jail's seccomp filter and one more layer
	run_jail exec -- sh -c 'grep -E "^(CapEff|NoNewPrivs|Seccomp_filters)" /proc/self/status'
	assert_contains "$out" "CapEff:	0000000000000000"
	assert_contains "$out" "NoNewPrivs:	1"
	assert_contains "$out" "Seccomp_filters:	2"
	# the host is not inside: its files and environment are not
	HOST_ONLY_VAR=leak run_jail exec -- sh -c 'echo "[$HOST_ONLY_VAR]"; ls ~/.ssh 2>&1 | head -1'
	assert_contains "$out" "[]"
	# stdin, stdout, exit status
	out=$(printf 'piped\n' | "$JAIL" exec -- sh -c 'cat; exit 7') && rc=0 || rc=$?
	assert_eq "$out" "piped"
	assert_eq "$rc" 7 "exit status"
	run_jail exec -- no-such-command-here
	assert_eq "$rc" 127
	# what exec wrote is in the session, as the agent's work is
	run_jail exec -- sh -c 'echo joined >joined.txt'
	finish_agent
	assert_contains "$(cat "$T/agent.err")" "A joined.txt"
}

test_exec_cannot_ptrace_the_agent() {
	mkrepo "$T/p"
	agent_waiting "$T/p"
	run_jail exec -D "$T/p" -- "$T/bin/probe" ptrace "$(cat "$T/sig/agent.pid")"
	assert_eq "$rc" 1 "ptrace the agent: EPERM"
	finish_agent
}

test_exec_may_ptrace_when_the_policy_allows_it() {
	if [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" != 0 ]; then
		skip "Yama ptrace_scope refuses ptrace of non-descendants here"
	fi
	mkrepo "$T/p"
	agent_waiting "$T/p" --allow-syscall ptrace
	run_jail exec -D "$T/p" -- "$T/bin/probe" ptrace "$(cat "$T/sig/agent.pid")"
	assert_eq "$rc" 0 "ptrace allowed back by the policy: $err"
	finish_agent
}

test_exec_from_a_terminal_gets_a_pty_of_the_jail() {
	command -v script >/dev/null || fail "script(1) is missing"
	mkrepo "$T/p"
	agent_waiting "$T/p"
	out=$(in_pty "'$JAIL' exec -D '$T/p' -- sh -c 'tty; echo status \$?; exit 3'; echo rc=\$?")
	assert_contains "$out" "/dev/pts/"
	assert_contains "$out" "status 0"
	assert_contains "$out" "rc=3"
	finish_agent
}

test_exec_needs_a_running_session_of_ones_own() {
	mkrepo "$T/p"
	run_jail -D "$T/p" --no-export -- true
	expect_fail125 exec -D "$T/p" -- true
	assert_contains "$err" "is not running"
	expect_fail125 exec -D "$T/p"
	assert_contains "$err" "no command given"
	agent_waiting "$T/p"
	# the channel: a socket only its owner can reach, in a directory only the
	# owner can enter (the supervisor checks SO_PEERCRED on each connection too:
	# tests/multiuser/exec.sh tries it as another user)
	assert_eq "$(stat -c %a "$(session_dir "$T/p")/exec.sock")" 600 "socket mode"
	assert_eq "$(stat -c %a "$(session_dir "$T/p")")" 700 "session dir mode"
	# a second run in the session points at exec
	expect_fail125 -D "$T/p" -- true
	assert_contains "$err" "jail exec -s default -- COMMAND"
	finish_agent
	assert_no_file "$(session_dir "$T/p")/exec.sock"
}

test_exec_command_ends_with_its_client() {
	mkrepo "$T/p"
	agent_waiting "$T/p"
	"$JAIL" exec -D "$T/p" -- sh -c "echo \$\$ >'$T/sig/joined.pid'; exec sleep 1000" \
		</dev/null >/dev/null 2>&1 &
	client=$!
	wait_for "$T/sig/joined.pid"
	run_jail exec -D "$T/p" -- kill -0 "$(cat "$T/sig/joined.pid")"
	assert_eq "$rc" 0 "the joined command runs"
	kill "$client"
	wait "$client" || true
	for ((i = 0; i < 600; i++)); do
		run_jail exec -D "$T/p" -- kill -0 "$(cat "$T/sig/joined.pid")"
		[ "$rc" != 0 ] && break
		sleep 0.1
	done
	assert_ne "$rc" 0 "the joined command ended with its client"
	finish_agent
}

# jail ps, status and exec look whether a session runs by taking its lock,
# shared, for a moment: a run that starts then waits that out and runs, and
# is not refused as "in use" (live3's review).
test_a_run_waits_out_a_look_at_its_session() {
	command -v flock >/dev/null || skip "no flock(1)"
	mkrepo "$T/p"
	run_jail -D "$T/p" -- true
	local lock
	lock="$(session_dir "$T/p")/lock"
	flock -s "$lock" -c "touch '$T/held'; sleep 0.5" &
	local holder=$!
	wait_for "$T/held"
	run_jail -D "$T/p" -- echo ran
	wait "$holder"
	assert_eq "$rc" 0 "a run beside a look: $err"
	assert_eq "$out" "ran"
}
