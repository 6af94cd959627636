# The third escape suite of the network side: the host's loopback and the
# host's services, attacked again after net_attack.sh and net_attack2.sh.
# Each test is an attack that held (or a hole fixed), kept so it keeps
# holding.  The test network is tests/networld.bash; nothing leaves it.
source "$TESTS/networld.bash"

# UDPSEND ADDR,PORT...: from inside, one datagram "from-jail" to each (a
# name is resolved by the jail's DNS first); prints each reply or failure.
UDPSEND='import socket, sys
for spec in sys.argv[1:]:
    host, port = spec.rsplit(",", 1)
    try:
        fam, _, _, _, sa = socket.getaddrinfo(host, int(port), 0, socket.SOCK_DGRAM)[0]
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.settimeout(3)
        s.sendto(b"from-jail", sa)
        print(spec, "reply", s.recv(100))
    except OSError as e:
        print(spec, "failed", type(e).__name__)'

# ATTACK: the host's IPv6 subnet-router anycast address.  A host that
# forwards IPv6 (a router, a VPN or container host) owns the address of each
# of its prefixes with an all-zero interface part (2a0b:1:: of 2a0b:1::/64):
# on no interface's list, and not a "local" route but an "anycast" one, so an
# allowed name answering it was opened, and a datagram to it reached the
# host's UDP servers bound to :: (a DNS forwarder, syslog, mDNS).  A public
# address on the same port still answers (the probe works).
test_dns_never_opens_the_hosts_anycast_address() {
	W_SETUP="echo 1 >/proc/sys/net/ipv6/conf/all/forwarding" \
		net_servers "anycast.test=2a0b:1::" "pub6.test=$PUB6"
	bg in_w python3 "$HELPERS/udp_echo.py" "$T/pu" :: "$T/host-udp.log"
	wait_file "$T/pu"
	PU=$(cat "$T/pu")
	bg in_s python3 "$HELPERS/udp_echo.py" "$T/ps" :: "$T/pub-udp.log" "$PU"
	wait_file "$T/ps"
	in_w ip -6 route get 2a0b:1:: | grep -q '^anycast' || fail "W does not own 2a0b:1:: as anycast"
	run_jail "${NET[@]}" --allow "anycast.test:$PU" --allow "pub6.test:$PU" -- \
		python3 -c "$UDPSEND" "anycast.test,$PU" "pub6.test,$PU"
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "pub6.test,$PU reply b'echo:from-jail'"
	assert_contains "$out" "anycast.test,$PU failed"
	assert_not_contains "$(cat "$T/host-udp.log" 2>/dev/null)" from-jail
	assert_contains "$err" "jail: dns: anycast.test answered 2a0b:1:: (the host); not opened"
}
