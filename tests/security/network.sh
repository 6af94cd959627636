# The escape suite: the network (threat 3 in DESIGN.md), in the test network
# of tests/networld.bash (no packet reaches the real host's network).  What
# the allowlist opens must be exactly what it names; the host side (servers
# in W, the namespace that stands for the host) shows what got through.
source "$TESTS/networld.bash"

# udp_send ADDR PORT TEXT (inside the jail): one datagram, then the answer or
# "no answer" (2 s), or the error.
UDP_SEND='import socket, sys
a, p, t = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
try:
    s.sendto(t.encode(), (a, p))
    print("answer:", s.recv(100).decode())
except socket.timeout:
    print("no answer")
except OSError as e:
    print("error:", e.errno)'

# host:PORT opens a TCP server on the host's loopback, not whatever listens
# for UDP on that port number: the helper maps UDP to the host's loopback too.
udp_on_the_host_port() {
	bg in_w python3 "$HELPERS/udp_echo.py" "$T/u3" 127.0.0.1 "$T/udp.log" "$P3"
	wait_file "$T/u3"
	# the control: the UDP server answers on the host's loopback
	in_w python3 -c "$UDP_SEND" 127.0.0.1 "$P3" control >"$T/control"
	assert_contains "$(cat "$T/control")" "answer: echo:control"
	run_jail "${NET[@]}" -- sh -c 'curl -sS -m 10 "http://$1:$2/"; python3 -c "$3" "$1" "$2" from-the-jail' \
		- "$HOST4" "$P3" "$UDP_SEND"
	assert_contains "$out" hello-jail "TCP to host:$P3 works (stderr: $err)"
	assert_not_contains "$out" "answer:" "UDP to the host's loopback port $P3"
	assert_not_contains "$(cat "$T/udp.log")" from-the-jail "the host's UDP server got nothing"
	assert_contains "$err" "jail: blocked udp $HOST4:$P3"
}

test_host_port_opens_tcp_only() {
	net_servers
	udp_on_the_host_port
}

test_host_port_opens_tcp_only_slirp4netns() {
	net_servers slirp4netns
	udp_on_the_host_port
}
