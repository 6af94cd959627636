# The escape suite: processes, and faults (threats 4 and 5 in DESIGN.md).
source "$TESTS/security/helpers.bash"

# canary: a host process the jail must not be able to touch.
start_canary() {
	sleep 600 &
	CANARY=$!
}
canary_alive() { kill -0 "$CANARY" 2>/dev/null || fail "the host canary process was killed"; }
stop_canary() { kill "$CANARY" 2>/dev/null || true; }

test_host_pids_invisible() {
	start_canary
	jp -- pids
	assert_eq "$rc" 0
	assert_eq "$(printf '%s\n' "$out" | grep -c .)" 2 "processes visible inside (init and the probe)"
	jp -- read "/proc/$CANARY/cmdline"
	assert_ne "$out" "$(tr '\0' ' ' <"/proc/$CANARY/cmdline")" "host canary's cmdline"
	[ -r "/proc/$CANARY/cmdline" ] || fail "positive control: the host sees it"
	canary_alive
	stop_canary
}

test_signals_to_host_processes() {
	start_canary
	jp -- kill "$CANARY" 9
	assert_eq "$rc" "$ESRCH" "kill the host canary by its pid"
	jp -- kill "$$" 9
	assert_eq "$rc" "$ESRCH" "kill the test shell (the supervisor's parent)"
	jp -- kill -1 9
	canary_alive
	jp -- kill 0 0
	assert_eq "$rc" 0 "positive control: signal to its own process group works"
	stop_canary
}

test_supervisor_unreachable_by_signal() {
	probe_setup
	# the supervisor's host pid, handed in: still no such process inside
	"$JAIL" -q --ro "$T/bin" -D "$T/p" -- "$T/bin/probe" sleep 300 >/dev/null 2>&1 &
	sup=$!
	wait_for pgrep -u "$(id -u)" -f "^$T/bin/probe sleep" >/dev/null
	kill -0 "$sup" || fail "positive control: the supervisor is running"
	# (not jp: its stray-process check would wait for the sleeping probe)
	run_jail -q -s second --ro "$T/bin" -D "$T/p" -- "$T/bin/probe" kill "$sup" 9
	assert_eq "$rc" "$ESRCH" "kill the supervisor"
	kill -0 "$sup" || fail "supervisor was killed"
	kill "$sup"
	wait "$sup" || true
	no_stray
}

test_init_not_dumpable() {
	jp -- read /proc/1/environ
	assert_eq "$rc" "$EACCES" "/proc/1/environ"
	jp -- read /proc/1/mem
	assert_eq "$rc" "$EACCES" "/proc/1/mem"
	jp -- write /proc/1/exe x
	assert_eq "$rc" "$EACCES" "/proc/1/exe for writing"
	jp -- read /proc/self/environ
	assert_eq "$rc" 0 "positive control: own environ"
	assert_contains "$out" PATH=
}

test_jail_binary_not_replaceable_through_proc() {
	probe_setup
	cp "$JAIL" "$T/jail-own"
	sum=$(sha256sum <"$T/jail-own")
	run_jail -q -D "$T/p" -- true # positive control: our own copy runs
	out=$("$T/jail-own" -q --ro "$T/bin" -D "$T/p" -- "$T/bin/probe" write /proc/1/exe x; echo "rc=$?")
	assert_contains "$out" "rc=$EACCES"
	assert_eq "$(sha256sum <"$T/jail-own")" "$sum" "the user-owned jail binary"
	host_safe
}

test_ptrace_init_refused_ptrace_child_works() {
	jp -- ptrace 1
	assert_eq "$rc" "$EPERM" "ptrace init"
	jp -- ptrace-child
	assert_eq "$rc" 0 "positive control: a debugger may trace its own child"
}

test_no_leaked_fds() {
	probe_setup
	exec 7<"$T/p/README" 8>"$T/leak" 9<"$HOME"
	jp -- fds
	exec 7<&- 8>&- 9<&-
	assert_eq "$(printf '%s\n' "$out" | tr '\n' ' ')" "0 1 2 " "fds inside"
	exec 7<"$T/p/README"
	assert_contains "$(hp fds)" 7 # positive control: the probe sees an open fd
	exec 7<&-
}

# An fd is a way back to its file: /proc/self/fd/N reopens the inode with any
# access its permissions give, whatever the fd's own mode.  A project file as
# the agent's stdin must not be written through it, nor an output file read
# back: only pipes enter the jail in their place (and sockets, terminals).
test_stdio_files_cannot_be_reopened() {
	probe_setup
	cp "$T/p/README" "$T/host-copy"
	cp "$T/p/README" "$T/readme.orig"
	# positive control: on the host the reopen writes the file given as stdin
	sh -c 'echo PWNED >/proc/self/fd/0' <"$T/host-copy"
	assert_eq "$(cat "$T/host-copy")" PWNED "the reopen works on the host"
	echo old-log-line >"$T/log"
	set +e
	"$JAIL" -q --ro "$T/bin" -D "$T/p" -- sh -c 'ls -l /proc/self/fd/ >&2
		echo PWNED >/proc/self/fd/0; echo "reopen-rc=$?" >&2; cat; echo agent-out' \
		<"$T/p/README" >>"$T/log" 2>"$T/err"
	rc=$?
	set -e
	assert_eq "$(cat "$T/p/README")" "$(cat "$T/readme.orig")" "the project file given as stdin"
	assert_eq "$rc" 0 "the agent ran (stderr: $(cat "$T/err"))"
	assert_not_contains "$(cat "$T/err")" "$T/p/README" "the project file's fd inside"
	assert_not_contains "$(cat "$T/err")" "$T/log" "the output file's fd inside"
	assert_not_contains "$(cat "$T/err")" "$T/err" "the error file's fd inside"
	# what the agent read and wrote still went where it should
	assert_contains "$(cat "$T/log")" "old-log-line"
	assert_contains "$(cat "$T/log")" "$(head -1 "$T/p/README")"
	assert_contains "$(cat "$T/log")" agent-out
	host_safe
}

# A listening socket as stdio (socket activation) would let the agent accept
# the host's connections: it goes in as a pipe that ends at once.
test_listening_socket_stdio_not_passed() {
	probe_setup
	python3 -c '
import socket, subprocess, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(5)
r = subprocess.run(sys.argv[1:], stdin=s.fileno(), capture_output=True, text=True)
print(r.stdout)' "$JAIL" -q --ro "$T/bin" -D "$T/p" -- sh -c 'ls -l /proc/self/fd/0' >"$T/lsock"
	assert_contains "$(cat "$T/lsock")" "pipe:" "the jail's stdin"
	assert_not_contains "$(cat "$T/lsock")" "socket:" "the jail's stdin"
	host_safe
}

# jail exec hands its caller's stdio to the command: the same rule.
test_exec_stdio_files_cannot_be_reopened() {
	probe_setup
	mkdir -p "$T/sig"
	"$JAIL" -q --ro "$T/bin" --rw "$T/sig" -D "$T/p" -- sh -c "touch '$T/sig/ready';
		while [ ! -e '$T/sig/go' ]; do sleep 0.1; done" </dev/null >/dev/null 2>"$T/agent.err" &
	local agent=$!
	wait_for test -e "$T/sig/ready"
	set +e
	"$JAIL" exec -D "$T/p" -- sh -c 'ls -l /proc/self/fd/ >&2
		echo PWNED >/proc/self/fd/0; cat; echo exec-out' <"$T/p/README" >"$T/exec.out" 2>"$T/exec.err"
	rc=$?
	set -e
	touch "$T/sig/go"
	wait "$agent" || fail "agent: $(cat "$T/agent.err")"
	assert_eq "$rc" 0 "jail exec ran (stderr: $(cat "$T/exec.err"))"
	assert_not_contains "$(cat "$T/exec.err")" "$T/p/README" "the project file's fd inside"
	assert_not_contains "$(cat "$T/exec.err")" "$T/exec.out" "the output file's fd inside"
	assert_contains "$(cat "$T/exec.out")" "$(head -1 "$T/p/README")"
	assert_contains "$(cat "$T/exec.out")" exec-out
	host_safe
}

test_cwd_escape_through_proc() {
	jp -- chdir /proc/1/cwd
	assert_eq "$rc" "$EACCES" "/proc/1/cwd"
	jp -- ls /proc/1/root
	assert_eq "$rc" "$EACCES" "/proc/1/root"
	jp -- chdir /proc/self/fd/0/..
	assert_ne "$rc" 0 "/proc/self/fd/0/.."
	jp -- chdir /proc/self/cwd
	assert_eq "$rc" 0 "positive control: own cwd"
	assert_contains "$out" README
}

# kill_supervisor_mid_run [JAIL OPTIONS...]: start the probe sleeping in a
# jail, wait until it runs (its own argv, not jail's command line, which
# names it too), then SIGKILL the supervisor.
kill_supervisor_mid_run() {
	probe_setup
	"$JAIL" -q "$@" --ro "$T/bin" -D "$T/p" -- "$T/bin/probe" sleep 300 >/dev/null 2>&1 &
	local sup=$!
	wait_for pgrep -u "$(id -u)" -f "^$T/bin/probe sleep" >/dev/null ||
		fail "positive control: the probe ran"
	if [ -n "${with_net:-}" ]; then
		# this jail's pasta (helper_of), and its temp dir
		this_pasta() { pastas=$(helper_of "$sup" pasta); [ -n "$pastas" ]; }
		wait_for this_pasta || fail "positive control: pasta serves the jail"
		netdirs=$(for p in $pastas; do tr '\0' '\n' <"/proc/$p/cmdline"; done |
			grep -oE '^/tmp/jail-net\.[^/]+' | sort -u || true)
		[ -n "$netdirs" ] || fail "positive control: pasta's temp dir"
	fi
	kill -9 "$sup"
	wait "$sup" || true
	no_stray
}

test_supervisor_sigkill_leaves_nothing() {
	kill_supervisor_mid_run
	assert_eq "$(tree_hash "$T/p")" "$BEFORE"
	[ -d "$(session_dir "$T/p")/upper" ] || fail "the session survives the crash"
}

test_supervisor_sigkill_with_network_leaves_nothing() {
	local d
	with_net=1 kill_supervisor_mid_run --net open
	# pasta, which would hold the jail's netns and published ports, goes too,
	# and its temp dir (only this jail's count: other suites may run at once)
	wait_for gone $pastas || fail "pasta outlived the supervisor: $pastas"
	for d in $netdirs; do
		wait_for test ! -e "$d" || fail "temporary directory left in /tmp: $d"
	done
}

test_nothing_outlives_the_command() {
	probe_setup
	run_jail -q --ro "$T/bin" -D "$T/p" -- sh -c "setsid $T/bin/probe sleep 300 & $T/bin/probe sleep 300 & echo started"
	assert_eq "$out" started
	no_stray
}

test_setup_failure_refuses_to_start() {
	probe_setup
	expect_fail125 -D "$T/does-not-exist" -- sh -c 'echo ran > "$T/marker"'
	assert_no_file "$T/marker"
	expect_fail125 --memory nonsense -D "$T/p" -- sh -c 'echo ran > marker'
	assert_no_file "$(session_dir "$T/p")/upper/marker"
	run_jail -q -D "$T/p" -- sh -c 'echo ran > marker'
	assert_file "$(session_dir "$T/p")/upper/marker" # positive control
}
