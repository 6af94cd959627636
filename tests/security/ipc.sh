# The escape suite: IPC with the host (threat 1 in DESIGN.md): abstract unix
# sockets (X11, D-Bus), agent sockets, docker.sock, SysV IPC.  Canary listeners
# on the host must see no connection; a connection from the host afterwards
# shows they would have.
source "$TESTS/security/helpers.bash"

# listener NAME: a canary listener on the host (until stop_listener), output
# in $T/NAME.log
listener() {
	probe_setup
	local log="$T/$(echo "$1" | tr -c 'a-zA-Z0-9\n' _).log"
	"$T/host/probe" listen "$1" 600 >"$log" &
	LISTENER=$!
	LOG=$log
	wait_for grep -q listening "$LOG" || fail "the canary listener did not start"
}
connections() { grep -c connection "$LOG" || true; }
connected() { [ "$(connections)" -ge 1 ]; }
stop_listener() { kill "$LISTENER" 2>/dev/null || true; wait "$LISTENER" 2>/dev/null || true; }

# only_the_hosts CASE ADDR: after the jail's attempts, the host's probe connects
# (CASE connect-unix or connect-abstract): the positive control, and a barrier,
# since the listener accepts in order and so would have counted a connection
# of the jail's first.  Then the canary saw exactly that one.
only_the_hosts() {
	hp "$1" "$2" || fail "positive control: the host's probe $1 $2"
	wait_for connected
	assert_eq "$(connections)" 1 "connections the canary saw (the host's own only)"
}

test_host_abstract_socket_unreachable() {
	name="jail-canary-$$-$RANDOM"
	listener "@$name"
	jp -- connect-abstract "$name"
	assert_eq "$rc" "$ECONNREFUSED" "connect to the host's abstract socket"
	only_the_hosts connect-abstract "$name"
	jp -- abstract-self "$name"
	assert_eq "$rc" 0 "positive control: the jail's own abstract socket works"
	stop_listener
}

test_x11_and_dbus_abstract_sockets_unreachable() {
	name="tmp/.X11-unix/X$$"
	listener "@/$name"
	jp -- connect-abstract "/$name"
	assert_eq "$rc" "$ECONNREFUSED" "X11 abstract socket"
	jp -- connect-unix "/tmp/.X11-unix/X0"
	assert_eq "$rc" "$ENOENT" "X11 path socket"
	only_the_hosts connect-abstract "/$name"
	stop_listener
}

test_ssh_agent_socket_unreachable() {
	listener "$T/agent.sock"
	SSH_AUTH_SOCK="$T/agent.sock" jp -- env SSH_AUTH_SOCK
	assert_eq "$out" "" "SSH_AUTH_SOCK inside"
	SSH_AUTH_SOCK="$T/agent.sock" jp -- connect-unix "$T/agent.sock"
	assert_eq "$rc" "$ENOENT" "the agent socket path inside"
	only_the_hosts connect-unix "$T/agent.sock"
	stop_listener
}

test_dbus_session_address_not_passed() {
	listener "$T/bus"
	DBUS_SESSION_BUS_ADDRESS="unix:path=$T/bus" jp -- env DBUS_SESSION_BUS_ADDRESS
	assert_eq "$out" ""
	jp -- connect-unix "$T/bus"
	assert_eq "$rc" "$ENOENT"
	only_the_hosts connect-unix "$T/bus"
	stop_listener
}

test_docker_socket_unreachable() {
	jp -- connect-unix /var/run/docker.sock
	assert_eq "$rc" "$ENOENT" "/var/run/docker.sock"
	jp -- connect-unix /run/docker.sock
	assert_eq "$rc" "$ENOENT" "/run/docker.sock"
	listener "$T/docker.sock"
	jp -- connect-unix "$T/docker.sock"
	assert_eq "$rc" "$ENOENT" "a docker-like socket next to the project"
	only_the_hosts connect-unix "$T/docker.sock"
	stop_listener
}

test_sysv_ipc_isolated() {
	key=$((0x4a000000 + RANDOM))
	hp shm-make "$key" || fail "positive control: create a host segment"
	hp shmget "$key" || fail "positive control: the host finds it"
	jp -- shmget "$key"
	rc_in=$rc
	ipcrm -M "$key" 2>/dev/null || true
	assert_eq "$rc_in" "$ENOENT" "the host's SysV segment inside"
	jp -- shm-self
	assert_eq "$rc" 0 "positive control: SysV IPC works inside, in its own namespace"
}

# A running jail's exec socket is in the state dir, which no jail sees unless a
# bind shows it (`--ro ~/.local` holds ~/.local/state/jail).  An agent that can
# see it must still not start commands in a jail: not in another session's
# (whose policy may be wider: --rw, --net open), not in its own.  The uid cannot
# tell (a jail maps the user's uid to itself): the supervisor refuses peers
# outside its own user namespace.
test_exec_socket_refused_from_inside_a_jail() {
	mkrepo "$T/pb"
	mkrepo "$T/pa"
	mkdir -p "$T/sig" "$XDG_STATE_HOME"
	bin=$(dirname "$JAIL")
	sees_state=(--ro "$XDG_STATE_HOME" --ro "$bin" --setenv "XDG_STATE_HOME=$XDG_STATE_HOME")
	# B's agent tries its own session once its socket is there
	"$JAIL" -D "$T/pb" --rw "$T/sig" "${sees_state[@]}" -- sh -c "
		while [ ! -S '$(session_dir "$T/pb")/exec.sock' ]; do sleep 0.1; done
		'$JAIL' exec -D '$T/pb' -- touch '$T/sig/from-self' 2>'$T/sig/self.err'
		echo \$? >'$T/sig/self.rc'
		while [ ! -e '$T/sig/go' ]; do sleep 0.1; done" </dev/null >"$T/b.out" 2>"$T/b.err" &
	b=$!
	wait_for test -e "$T/sig/self.rc" -o ! -d "/proc/$b" || fail "B: $(cat "$T/b.err")"
	[ -e "$T/sig/self.rc" ] || fail "B's agent ended early: $(cat "$T/b.err")"
	assert_eq "$(cat "$T/sig/self.rc")" 125 "jail exec into its own session from its agent"
	assert_contains "$(cat "$T/sig/self.err")" "refused from inside a jail"
	# from another project's jail
	run_jail -D "$T/pa" --no-export --ro "$T/pb" "${sees_state[@]}" -- \
		sh -c '"$1" exec -D "$2" -- touch "$3"; echo "exec-rc=$?"' sh "$JAIL" "$T/pb" "$T/sig/from-a"
	assert_contains "$out" "exec-rc=125"
	assert_contains "$err" "refused from inside a jail"
	# positive control: the same request from the host is served
	"$JAIL" exec -D "$T/pb" -- touch "$T/sig/from-host" </dev/null
	assert_file "$T/sig/from-host"
	touch "$T/sig/go"
	wait "$b" || fail "B's agent: $(cat "$T/b.err")"
	assert_no_file "$T/sig/from-self"
	assert_no_file "$T/sig/from-a"
}
