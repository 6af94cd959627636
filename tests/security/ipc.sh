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
