# The escape suite: IPC with the host (threat 1 in DESIGN.md): abstract unix
# sockets (X11, D-Bus), agent sockets, docker.sock, SysV IPC.  Canary listeners
# on the host must see no connection; a connection from the host afterwards
# shows they would have.
source "$TESTS/security/helpers.bash"

# listener NAME: a canary listener on the host for 20 s, output in $T/NAME.log
listener() {
	probe_setup
	local log="$T/$(echo "$1" | tr -c 'a-zA-Z0-9\n' _).log"
	"$T/host/probe" listen "$1" 20 >"$log" &
	LISTENER=$!
	LOG=$log
	for i in $(seq 50); do grep -q listening "$LOG" && return 0; sleep 0.1; done
	fail "the canary listener did not start"
}
connections() { grep -c connection "$LOG" || true; }
stop_listener() { kill "$LISTENER" 2>/dev/null || true; wait "$LISTENER" 2>/dev/null || true; }

test_host_abstract_socket_unreachable() {
	name="jail-canary-$$-$RANDOM"
	listener "@$name"
	jp -- connect-abstract "$name"
	assert_eq "$rc" "$ECONNREFUSED" "connect to the host's abstract socket"
	sleep 0.3
	assert_eq "$(connections)" 0 "connections the canary saw"
	hp connect-abstract "$name"
	sleep 0.3
	assert_eq "$(connections)" 1 "positive control: the host's own connection"
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
	sleep 0.3
	assert_eq "$(connections)" 0 "connections the canary saw"
	stop_listener
}

test_ssh_agent_socket_unreachable() {
	listener "$T/agent.sock"
	SSH_AUTH_SOCK="$T/agent.sock" jp -- env SSH_AUTH_SOCK
	assert_eq "$out" "" "SSH_AUTH_SOCK inside"
	SSH_AUTH_SOCK="$T/agent.sock" jp -- connect-unix "$T/agent.sock"
	assert_eq "$rc" "$ENOENT" "the agent socket path inside"
	sleep 0.3
	assert_eq "$(connections)" 0
	hp connect-unix "$T/agent.sock"
	sleep 0.3
	assert_eq "$(connections)" 1 "positive control"
	stop_listener
}

test_dbus_session_address_not_passed() {
	listener "$T/bus"
	DBUS_SESSION_BUS_ADDRESS="unix:path=$T/bus" jp -- env DBUS_SESSION_BUS_ADDRESS
	assert_eq "$out" ""
	jp -- connect-unix "$T/bus"
	assert_eq "$rc" "$ENOENT"
	sleep 0.3
	assert_eq "$(connections)" 0
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
	sleep 0.3
	assert_eq "$(connections)" 0
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
