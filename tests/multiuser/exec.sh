# multiuser/exec.sh — what one user's running jail keeps from another user
# (issue 14: "jail exec cannot be used to reach a session of another user").
#
# Two identities are needed, so tests/run runs this file as root (it creates
# $USER_A, "jailtest", and $USER_B, "jailtest2"); every jail, probe and client
# here runs as one of the two unprivileged users through runuser: root only
# sets the scene and reads /proc to name the agent's pid.  Run as anyone else,
# the tests skip and say so.

two_users() {
	[ "$(id -u)" = 0 ] || skip "acting as two users needs root: run tests/run as root (it creates jailtest and jailtest2)"
	if [ -z "${USER_A:-}" ] || [ -z "${USER_B:-}" ] || ! id "$USER_A" >/dev/null 2>&1 ||
		! id "$USER_B" >/dev/null 2>&1; then
		skip "no second test user (tests/run as root creates jailtest2)"
	fi
	command -v runuser >/dev/null || skip "runuser(1) is missing"
	chmod 755 "$T"
	local u
	for u in "$USER_A" "$USER_B"; do
		mkdir -p "$T/$u"
		chown "$u:" "$T/$u"
	done
}

# as USER CMD...: CMD as USER, with a clean environment and USER's own state
# and config dirs (STATE=DIR before it: that state dir instead).
as() {
	local u=$1
	shift
	runuser -u "$u" -- env -i PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 USER="$u" \
		HOME="$(getent passwd "$u" | cut -d: -f6)" XDG_CONFIG_HOME="$T/$u/config" \
		XDG_STATE_HOME="${STATE:-$T/$u/state}" "$@"
}

# as_run USER CMD...: as, with stdout in $out, stderr in $err, status in $rc.
as_run() {
	set +e
	out=$(as "$@" 2>"$T/.stderr" </dev/null)
	rc=$?
	set -e
	err=$(cat "$T/.stderr")
}

# A's agent: writes work.txt in its project, records its pid namespace and its
# pid there, and waits for $T/A/go.  Sets $pa (A's project), $sock (the exec
# socket), $agent (the background runuser) and $host_pid (the agent's pid as
# the host sees it).
start_a_agent() {
	pa="$T/$USER_A/p"
	mkrepo "$pa"
	chown -R "$USER_A:" "$pa"
	mkdir -p "$T/$USER_A/sig"
	chown "$USER_A:" "$T/$USER_A/sig"
	local sig="$T/$USER_A/sig"
	as "$USER_A" "$JAIL" -D "$pa" --rw "$sig" -- sh -c "cd '$pa' && echo secret-work >work.txt &&
		echo \$\$ >'$sig/agent.pid' && readlink /proc/self/ns/pid >'$sig/agent.ns' &&
		touch '$sig/ready' && while [ ! -e '$sig/go' ]; do sleep 0.1; done" \
		</dev/null >"$T/agent.out" 2>"$T/agent.err" &
	agent=$!
	wait_for -t 60 test -e "$sig/ready"
	sock="$(XDG_STATE_HOME="$T/$USER_A/state" session_dir "$pa")/exec.sock"
	assert_file "$sock"
	local p ns nspid
	host_pid=
	ns=$(cat "$sig/agent.ns")
	nspid=$(cat "$sig/agent.pid")
	for p in $(pgrep -u "$USER_A"); do
		[ "$(readlink "/proc/$p/ns/pid" 2>/dev/null)" = "$ns" ] || continue
		[ "$(awk '/^NSpid:/ {print $NF}' "/proc/$p/status" 2>/dev/null)" = "$nspid" ] && host_pid=$p
	done
	[ -n "$host_pid" ] || fail "the agent's host pid not found"
}

finish_a_agent() {
	touch "$T/$USER_A/sig/go"
	set +e
	wait "$agent"
	agent_rc=$?
	set -e
	assert_eq "$agent_rc" 0 "A's agent: $(cat "$T/agent.err")"
}

test_exec_cannot_reach_another_users_session() {
	two_users
	start_a_agent
	# a command that ran in A's jail would leave its mark in A's --rw dir
	local marks="$T/$USER_A/sig" client="$TESTS/helpers/joinclient.py"
	# every path is known to B; B's own jail exec finds no session of its own
	as_run "$USER_B" "$JAIL" exec -D "$pa" -- touch "$marks/b-own"
	assert_eq "$rc" 125 "B's jail exec on A's project: $err"
	# B pointing jail at A's state dir: not even readable
	STATE="$T/$USER_A/state" as_run "$USER_B" "$JAIL" exec -D "$pa" -- touch "$marks/b-state"
	assert_eq "$rc" 125 "B's jail exec with A's state dir: $err"
	# B speaking the protocol to A's socket itself: the directory refuses it
	as_run "$USER_B" python3 "$client" "$sock" "$pa" touch "$marks/b-direct"
	assert_eq "$out" "connect: Permission denied" "B connects to A's socket"
	# now A loosens every mode of its state (a umask, a careless chmod): the
	# supervisor's own check of the peer's uid (SO_PEERCRED) still refuses B
	local sdir
	sdir=$(dirname "$sock")
	as "$USER_A" chmod go+rwx "$T/$USER_A/state" "$T/$USER_A/state/jail" "$(dirname "$sdir")"
	as "$USER_A" find "$sdir" -maxdepth 1 -exec chmod go+rwX {} +
	assert_eq "$(stat -c %a "$sock")" 666 "the socket's mode, loosened"
	as_run "$USER_B" python3 "$client" "$sock" "$pa" touch "$marks/b-loose"
	assert_eq "$out" "error: this session belongs to another user" "B on a world-writable socket"
	assert_eq "$rc" 2
	STATE="$T/$USER_A/state" as_run "$USER_B" "$JAIL" exec -D "$pa" -- touch "$marks/b-loose-exec"
	assert_eq "$rc" 125 "B's jail exec on the loosened session: $err"
	assert_contains "$err" "belongs to another user"
	# the same request from A itself runs: the client and the paths are right
	as_run "$USER_A" python3 "$client" "$sock" "$pa" touch "$marks/a-direct"
	assert_eq "$out" "exit 0" "A's own request: $err"
	assert_file "$marks/a-direct"
	for m in b-own b-state b-direct b-loose b-loose-exec; do assert_no_file "$marks/$m"; done
	finish_a_agent
}

test_proc_of_another_users_jail_is_closed() {
	two_users
	start_a_agent
	# A reaches its own jail's files through /proc (the paths are right) ...
	as_run "$USER_A" cat "/proc/$host_pid/root$pa/work.txt"
	assert_eq "$out" "secret-work" "A through /proc/PID/root: $err"
	# ... B does not: not its root, cwd, environment, memory or fds
	local f
	for f in "root$pa/work.txt" "cwd/work.txt" environ mem "fd/0"; do
		as_run "$USER_B" cat "/proc/$host_pid/$f"
		assert_ne "$rc" 0 "B read /proc/$host_pid/$f"
		assert_not_contains "$out" "secret-work"
	done
	# nor enter its namespaces (setns needs CAP_SYS_ADMIN over A's user namespace)
	if command -v nsenter >/dev/null; then
		as_run "$USER_B" nsenter -t "$host_pid" -U -m -p --preserve-credentials -- cat "$pa/work.txt"
		assert_ne "$rc" 0 "B entered A's namespaces: $out"
		assert_not_contains "$out" "secret-work"
	fi
	# nor signal it (a jail stop from B included)
	as_run "$USER_B" kill -TERM "$host_pid"
	assert_ne "$rc" 0 "B signalled A's agent"
	STATE="$T/$USER_A/state" as_run "$USER_B" "$JAIL" stop -D "$pa"
	assert_ne "$rc" 0 "B's jail stop of A's session: $err"
	kill -0 "$host_pid" || fail "A's agent is gone"
	finish_a_agent
}
