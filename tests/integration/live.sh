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
	head=$(printf '%s\n' "$out" | head -1)
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
