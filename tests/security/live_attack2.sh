# The escape suite, second round on the live commands (jail exec, ps, stop):
# what the host user's command does when the session it reaches into is not
# what it seems.  Each test fails on the build before its fix.
source "$TESTS/security/helpers.bash"

# What a test's agent runs until the test touches $T/sig/go: at most two
# minutes, so that a failed test leaves no jail behind.
wait_go() {
	echo "i=0; while [ ! -e '$T/sig/go' ] && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i + 1)); done"
}

lock_free() { flock -n "$1/lock" true; }
lock_taken() { ! flock -n "$1/lock" true; }

# A supervisor killed with SIGKILL (the OOM killer, a kill -9) leaves its
# running record; the next holder of the session's lock (an export, a reset,
# the next run until it writes its own record) must not make it true again.
# By then its pids may be other processes of the user's (pid reuse, which the
# test stands in for by writing a canary's pid into the record): jail stop
# must not signal them, and jail ps must not list the session.
test_stop_spares_a_process_that_took_a_dead_jails_pid() {
	probe_setup
	mkdir -p "$T/sig"
	"$JAIL" -q --no-export --rw "$T/sig" -D "$T/p" -- sh -c "touch '$T/sig/ready'; $(wait_go)" \
		</dev/null >/dev/null 2>"$T/agent.err" &
	local agent=$! sd canary holder
	wait_for test -e "$T/sig/ready" -o ! -d "/proc/$agent"
	[ -e "$T/sig/ready" ] || fail "the agent ended early: $(cat "$T/agent.err")"
	sd=$(session_dir "$T/p")
	assert_contains "$(cat "$sd/running")" "supervisor=$agent" "the record (the premise)"
	kill -9 "$agent"
	wait "$agent" 2>/dev/null || true
	wait_for lock_free "$sd"
	assert_file "$sd/running"
	sleep 600 &
	canary=$!
	sed -i "s/^supervisor=.*/supervisor=$canary/; s/^init=.*/init=$canary/" "$sd/running"
	(exec 9<"$sd/lock" && flock -x 9 && exec sleep 600) &
	holder=$!
	wait_for lock_taken "$sd"
	run_jail ps
	assert_not_contains "$out" " $canary " "jail ps lists the dead jail"
	run_jail stop -D "$T/p"
	local stop_rc=$rc stop_err=$err
	kill -0 "$canary" 2>/dev/null || fail "jail stop signalled the process that took the pid"
	kill "$canary" "$holder" 2>/dev/null || true
	wait "$canary" "$holder" 2>/dev/null || true
	assert_eq "$stop_rc" 125 "jail stop of the dead jail: $stop_err"
	assert_contains "$stop_err" "is not running"
	no_stray
}

joined_gone() { ! "$JAIL" exec -D "$T/p" -- kill -0 "$1" </dev/null >/dev/null 2>&1; }

# A jail started with SIGHUP ignored (`nohup jail ...`; a `&` in a script
# ignores SIGINT and SIGQUIT) has an init that ignores them, and a joined
# command, started for another caller, inherited that: the SIGHUP init sends
# when its client goes away did nothing, so the command ran on in the jail
# after the user's jail exec was gone (and ^C on its pty did nothing).
test_exec_command_ends_with_its_client_under_a_nohup_jail() {
	probe_setup
	mkdir -p "$T/sig"
	(trap '' HUP INT QUIT && exec "$JAIL" -q --no-export --rw "$T/sig" -D "$T/p" -- sh -c \
		"touch '$T/sig/ready'; $(wait_go)") </dev/null >/dev/null 2>"$T/agent.err" &
	local agent=$! client jpid
	wait_for test -e "$T/sig/ready" -o ! -d "/proc/$agent"
	[ -e "$T/sig/ready" ] || fail "the agent ended early: $(cat "$T/agent.err")"
	"$JAIL" exec -D "$T/p" -- sh -c "grep SigIgn /proc/self/status >'$T/sig/ign'; echo \$\$ >'$T/sig/joined.pid'; exec sleep 600" \
		</dev/null >/dev/null 2>&1 &
	client=$!
	wait_for test -s "$T/sig/joined.pid"
	jpid=$(cat "$T/sig/joined.pid")
	! joined_gone "$jpid" || fail "the joined command does not run (the premise)"
	kill "$client"
	wait "$client" 2>/dev/null || true
	wait_for joined_gone "$jpid" || true
	local ended=yes
	joined_gone "$jpid" || ended=no
	touch "$T/sig/go"
	wait "$agent" || fail "agent: $(cat "$T/agent.err")"
	assert_eq "$ended" yes "the joined command ended with its client"
	assert_eq "$(awk '{print $2}' "$T/sig/ign")" 0000000000000000 "signals the joined command ignores"
	no_stray
}
