# The escape suite: the caller's stdio (stdiorelay.h).  Besides a file
# (process.sh), a pipe and a socket are ways out too: an anonymous pipe
# reopens through /proc/self/fd/N the other way round, and a socket keeps the
# host's network namespace.  tests/helpers/stdio_escape.py hands each to an
# agent and says whether the host saw it escape; on the host (python3 -c
# alone) every case escapes: the positive control.
source "$TESTS/security/helpers.bash"

# escape KIND CMD...: held or escaped (the agent's output in $T/escape.log)
escape() { python3 "$TESTS/helpers/stdio_escape.py" "$@" 2>"$T/escape.log"; }

# An unconnected socket connects or sends anywhere in the host's namespace
# (loopback services, abstract unix sockets); a connected UDP one connects
# again; a connected TCP one disconnects (connect AF_UNSPEC) and connects again.
test_socket_stdio_reaches_nothing_of_the_host() {
	probe_setup
	for kind in udp udpconn tcp tcpconn unix; do
		assert_eq "$(escape "$kind" python3 -c)" escaped "positive control on the host: $kind"
		assert_eq "$(escape "$kind" "$JAIL" -q -D "$T/p" -- python3 -c)" held \
			"a $kind socket as the jail's stdin (the agent: $(cat "$T/escape.log"))"
	done
	host_safe
}

# The host's stdin pipe, written through /proc/self/fd/0, would feed what the
# caller reads next (`producer | while read t; do jail ...; done`); the host's
# stdout pipe, read through /proc/self/fd/1, gives what other processes of
# the pipeline write to it.
test_pipe_stdio_cannot_be_reversed() {
	probe_setup
	for kind in pipein pipeout; do
		assert_eq "$(escape "$kind" python3 -c)" escaped "positive control on the host: $kind"
		assert_eq "$(escape "$kind" "$JAIL" -q -D "$T/p" -- python3 -c)" held \
			"$kind (the agent: $(cat "$T/escape.log"))"
	done
	# what goes through the pipes still arrives, both ways
	assert_eq "$(printf 'a\nb\n' | "$JAIL" -q -D "$T/p" -- sh -c 'wc -l' | cat)" 2 "stdin through"
	host_safe
}

# jail exec hands its caller's stdio to the command: the same rule.
test_exec_stdio_pipes_and_sockets() {
	probe_setup
	mkdir -p "$T/sig"
	"$JAIL" -q --rw "$T/sig" -D "$T/p" -- sh -c "touch '$T/sig/ready';
		while [ ! -e '$T/sig/go' ]; do sleep 0.1; done" </dev/null >/dev/null 2>"$T/agent.err" &
	local agent=$!
	wait_for test -e "$T/sig/ready"
	local kind
	for kind in udp tcpconn unix pipein pipeout; do
		assert_eq "$(escape "$kind" "$JAIL" exec -D "$T/p" -- python3 -c)" held \
			"jail exec, $kind (the command: $(cat "$T/escape.log"))"
	done
	touch "$T/sig/go"
	wait "$agent" || fail "agent: $(cat "$T/agent.err")"
	host_safe
}
