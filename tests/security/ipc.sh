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

# The network namespace (abstract sockets, loopback, interfaces) is the
# jail's own in every mode: init makes it while it builds the root, or the
# clone does (--net none with a published port: netns.h).
test_network_namespace_is_the_jails_own() {
	probe_setup
	host=$(readlink /proc/self/ns/net)
	port=$(free_port)
	for mode in "--net none" "--net none --publish $port" "--net allow" "--net open"; do
		if [ "$mode" != "--net none" ] && ! command -v pasta >/dev/null &&
		   ! command -v slirp4netns >/dev/null; then
			continue
		fi
		# shellcheck disable=SC2086 # the mode is words
		run_jail -q $mode --no-export -D "$T/p" -- sh -c 'readlink /proc/self/ns/net; ip -o link | grep -c "lo:.*UP"'
		assert_eq "$rc" 0 "$mode: $err"
		assert_contains "$(head -n1 <<<"$out")" "net:[" "$mode"
		assert_ne "$(head -n1 <<<"$out")" "$host" "$mode: the host's network namespace"
		assert_eq "$(tail -n1 <<<"$out")" 1 "$mode: the jail's loopback is up"
	done
}

# Init's unshare of the network namespace failing (user.max_net_namespaces
# used up in a namespace above) ends the start: the command never runs in the
# host's namespace.  The limit is set in a user namespace of the test's own.
test_network_namespace_failure_fails_closed() {
	probe_setup
	unshare -Ur true 2>/dev/null || skip "no nested user namespace for the test"
	local mode
	for mode in "--net none" "--net none --publish $(free_port)" "--net allow" "--net open"; do
		set +e
		# shellcheck disable=SC2086 # the mode is words
		out=$(unshare -Ur sh -c 'echo 0 >/proc/sys/user/max_net_namespaces && exec "$@"' sh \
			"$JAIL" -q $mode --no-export -D "$T/p" -- sh -c 'echo RAN; readlink /proc/self/ns/net' 2>&1)
		rc=$?
		set -e
		assert_eq "$rc" 125 "$mode with no network namespace left: $out"
		assert_not_contains "$out" RAN "$mode: the command ran"
	done
	# positive control: the same start without the limit runs
	out=$(unshare -Ur "$JAIL" -q --no-export -D "$T/p" -- sh -c 'echo RAN' 2>&1)
	assert_contains "$out" RAN "positive control: jail in the test's user namespace"
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

# A running jail's exec socket is in the state dir, which no jail sees: a bind
# that would show it (`--ro ~/.local` holds ~/.local/state/jail) finds it
# covered.  And an agent that reaches a socket anyway (here: a hard link the
# test makes beside the project) must still not start commands in a jail: not
# in another session's (whose policy may be wider: --rw, --net open), not in
# its own.  The uid cannot tell (a jail maps the user's uid to itself): the
# supervisor refuses peers outside its own user namespace.
#
# exec_client SOCKET FILE: jail exec's request, sent by hand: `touch FILE`.
# Prints the answer's type (3: refused) and text.
exec_client() {
	python3 - "$1" "$2" <<'PY'
import array, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
words = [b"touch", sys.argv[2].encode()]
body = b"".join(w + b"\0" for w in words) + b"/\0"
head = struct.pack("=IIIIHH", 0x6a6f696e, 0, len(words), len(body), 0, 0)
s.sendmsg([head + body], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [0, 1, 2]))])
m = s.recv(4096)
print("answer", struct.unpack("=I", m[:4])[0], m[8:].split(b"\0")[0].decode())
PY
}

test_exec_socket_refused_from_inside_a_jail() {
	mkrepo "$T/pb"
	mkrepo "$T/pa"
	mkdir -p "$T/sig" "$T/sock" "$XDG_STATE_HOME"
	bin=$(dirname "$JAIL")
	declare -f exec_client >"$T/sig/client.sh"
	"$JAIL" -D "$T/pb" --rw "$T/sig" --ro "$T/sock" -- sh -c "touch '$T/sig/ready';
		while [ ! -e '$T/sig/try' ]; do sleep 0.1; done
		bash -c '. \"$T/sig/client.sh\"; exec_client \"$T/sock/exec.sock\" \"$T/sig/from-self\"' \
			>'$T/sig/self.out' 2>&1
		while [ ! -e '$T/sig/go' ]; do sleep 0.1; done" </dev/null >"$T/b.out" 2>"$T/b.err" &
	b=$!
	wait_for test -e "$T/sig/ready" -o ! -d "/proc/$b" || fail "B: $(cat "$T/b.err")"
	[ -e "$T/sig/ready" ] || fail "B's agent ended early: $(cat "$T/b.err")"
	ln "$(session_dir "$T/pb")/exec.sock" "$T/sock/exec.sock"
	# B's agent, through the link, into its own session
	touch "$T/sig/try"
	wait_for test -s "$T/sig/self.out"
	assert_contains "$(cat "$T/sig/self.out")" "answer 3 jail exec is refused from inside a jail"
	# another project's agent, through the link
	run_jail -D "$T/pa" --no-export --ro "$T/sock" --ro "$T/sig" -- \
		bash -c '. "$1"; exec_client "$2" "$3"' sh "$T/sig/client.sh" "$T/sock/exec.sock" "$T/sig/from-a"
	assert_contains "$out" "answer 3 jail exec is refused from inside a jail"
	# the state dir a bind would show is covered: jail exec finds no session
	run_jail -D "$T/pa" --no-export --ro "$XDG_STATE_HOME" --ro "$bin" --ro "$T/pb" \
		--setenv "XDG_STATE_HOME=$XDG_STATE_HOME" -- sh -c 'ls -A "$1/jail"; echo listed;
		"$2" exec -D "$3" -- true; echo "exec-rc=$?"' sh "$XDG_STATE_HOME" "$JAIL" "$T/pb"
	assert_contains "$out" "exec-rc=125"
	assert_eq "$(sed -n '1p' <<<"$out")" "listed" "the state dir inside"
	# positive control: the same request from the host, through the same link, is served
	exec_client "$T/sock/exec.sock" "$T/sig/from-host" >/dev/null
	wait_for test -e "$T/sig/from-host"
	touch "$T/sig/go"
	wait "$b" || fail "B's agent: $(cat "$T/b.err")"
	assert_no_file "$T/sig/from-self"
	assert_no_file "$T/sig/from-a"
}
