# The third escape suite of the network side: the host's loopback and the
# host's services, attacked again after net_attack.sh and net_attack2.sh.
# Each test is an attack that held (or a hole fixed), kept so it keeps
# holding.  The test network is tests/networld.bash; nothing leaves it.
source "$TESTS/networld.bash"

# UDPSEND ADDR,PORT...: from inside, one datagram "from-jail" to each (a
# name is resolved by the jail's DNS first; broadcast allowed); prints each
# reply or failure.
UDPSEND='import socket, sys
for spec in sys.argv[1:]:
    host, port = spec.rsplit(",", 1)
    try:
        fam, _, _, _, sa = socket.getaddrinfo(host, int(port), 0, socket.SOCK_DGRAM)[0]
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        s.settimeout(3)
        s.sendto(b"from-jail", sa)
        print(spec, "reply", s.recv(100))
    except OSError as e:
        print(spec, "failed", type(e).__name__)'

# host_udp_barrier ADDR PORT LOG: a datagram "from-host" from W to ADDR,
# waited for in LOG: the server works, and what the jail's helper sent
# before it is in LOG already.
host_udp_barrier() {
	in_w python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.sendto(b"from-host", (sys.argv[1], int(sys.argv[2])))' "$1" "$2"
	wait_for grep -q from-host "$3" || fail "the host's own datagram did not arrive"
}

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
	host_udp_barrier 2a0b:1:: "$PU" "$T/host-udp.log"
	assert_not_contains "$(cat "$T/host-udp.log")" from-jail
	assert_contains "$err" "jail: dns: anycast.test answered 2a0b:1:: (the host); not opened"
}


# ATTACK: --net open and the host's other addresses.  The helper connects
# from the host, so a server bound to 0.0.0.0 or :: there (a database, a
# docker-proxy) answered the jail on each address of the host but the one
# the jail's interface shares (a second interface's, a docker bridge's),
# past the host's firewall, which does not filter the host's connections to
# itself.  Open mode promises the internet, not the host: its ruleset now
# closes the host's addresses as it closes the helper's gateway; the
# internet still answers.
test_net_open_never_reaches_the_hosts_other_addresses() {
	W_SETUP="ip link add d0 type veth peer name d1; ip link set d0 up; ip addr add 12.34.56.1/32 dev d0; ip addr add 2a0c::1/128 dev d0 nodad" net_servers
	bg in_w python3 "$HELPERS/http_server.py" "$T/p7" :: "$T/www"
	bg in_s python3 "$HELPERS/http_server.py" "$T/p8" :: "$T/www"
	wait_file "$T/p7"
	wait_file "$T/p8"
	P7=$(cat "$T/p7") P8=$(cat "$T/p8")
	in_w python3 -c "$TCP_PROBE" "12.34.56.1,$P7" "2a0c::1,$P7" | grep -c open | grep -qx 2 ||
		fail "W's server does not answer on W's own addresses"
	run_jail -D "$T/p" --net open -- python3 -c "$TCP_PROBE" "12.34.56.1,$P7" "2a0c::1,$P7" \
		"$PUB4,$P2" "$PUB6,$P8"
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "$PUB4 $P2 open"
	# IPv6 too: its neighbour discovery (to multicast addresses) passes
	assert_contains "$out" "$PUB6 $P8 open"
	assert_contains "$out" "12.34.56.1 $P7 failed"
	assert_contains "$out" "2a0c::1 $P7 failed"
	assert_contains "$err" "jail: blocked tcp 12.34.56.1:$P7"
	assert_contains "$err" "jail: blocked tcp [2a0c::1]:$P7"
}

# MLISTEN PORTFILE LOG: in W, a listener on port 5353 that joined the mDNS
# groups (224.0.0.251 on W's address, ff02::fb on v0), as avahi or
# systemd-resolved do; it logs each datagram.
MLISTEN='import os, socket, struct, sys, threading
def log(s):
    while True:
        d, a = s.recvfrom(200)
        with open(sys.argv[2], "a") as f:
            f.write(repr(d) + "\n")
s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s4.bind(("0.0.0.0", 5353))
s4.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
              socket.inet_aton("224.0.0.251") + socket.inet_aton("11.22.33.1"))
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
s6.bind(("::", 5353))
s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP,
              socket.inet_pton(socket.AF_INET6, "ff02::fb") + struct.pack("@I", socket.if_nametoindex("v0")))
threading.Thread(target=log, args=(s6,), daemon=True).start()
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("5353")
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
log(s4)'

# ATTACK: --net open and multicast.  The helper sends a datagram to a
# multicast group from the host, whose own listeners of that group take it
# in (mDNS, LLMNR, SSDP: avahi, systemd-resolved, a media server), besides
# the LAN's.  Open mode's ruleset now refuses multicast and broadcast (the
# limited one, and the host's subnets'; this pasta sends no broadcast, a
# later one might); a
# datagram from the host itself reaches the listener (the control, and a
# barrier: it comes after anything the jail's helper sent).
test_net_open_never_sends_multicast_to_the_hosts_listeners() {
	net_servers
	bg in_w python3 -c "$MLISTEN" "$T/ml" "$T/mcast.log"
	bg in_s python3 "$HELPERS/udp_echo.py" "$T/pu" 0.0.0.0 "$T/pub-udp.log"
	wait_file "$T/ml"
	wait_file "$T/pu"
	PU=$(cat "$T/pu")
	# (the jail's interface has the name of W's: pasta's way)
	run_jail -D "$T/p" --net open -- python3 -c "$UDPSEND" "224.0.0.251,5353" \
		"ff02::fb%v0,5353" "255.255.255.255,5353" "11.22.33.255,5353" "$PUB4,$PU"
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "$PUB4,$PU reply b'echo:from-jail'"
	in_w python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("11.22.33.1"))
s.sendto(b"from-host", ("224.0.0.251", 5353))'
	wait_for grep -q from-host "$T/mcast.log" || fail "the host's own datagram did not arrive"
	assert_not_contains "$(cat "$T/mcast.log")" from-jail
	assert_contains "$err" "jail: blocked udp 224.0.0.251:5353"
	assert_contains "$err" "jail: blocked udp [ff02::fb]:5353"
	assert_contains "$err" "jail: blocked udp 255.255.255.255:5353"
	assert_contains "$err" "jail: blocked udp 11.22.33.255:5353"
}

# ATTACK: --net open and an address the host takes while the jail runs (a
# VPN, a docker network made meanwhile, a DHCP lease): the ruleset closed
# the host's addresses of the start only.  The jail tries the new address
# until it is refused (each try answered "open" before the fix), and the
# internet still answers.
test_net_open_closes_an_address_the_host_takes_later() {
	W_SETUP="ip link add d0 type veth peer name d1; ip link set d0 up
		$(when_jail_runs "ip addr add 12.34.56.1/32 dev d0")" net_servers
	bg in_w python3 "$HELPERS/http_server.py" "$T/p7" :: "$T/www"
	wait_file "$T/p7"
	P7=$(cat "$T/p7")
	run_across_change -D "$T/p" --net open -- "python3 -c '
import socket, sys, time
for i in range(100):
    s = socket.socket()
    s.settimeout(5)
    try:
        s.connect((\"12.34.56.1\", $P7))
    except OSError as e:
        print(\"refused after\", i, \"tries\")
        break
    s.close()
    time.sleep(0.1)
else:
    print(\"NEW-ADDRESS-OPEN\")
s = socket.create_connection((\"$PUB4\", $P2), 5)
print(\"internet open\")
'"
	assert_not_contains "$out" NEW-ADDRESS-OPEN
	assert_contains "$out" "refused after"
	assert_contains "$out" "internet open"
	assert_contains "$err" "jail: blocked tcp 12.34.56.1:$P7"
}

# ATTACK: --net open and the host's IPv6 subnet-router anycast address (as
# in the first test, but with no DNS answer to check): a datagram to it
# reached the host's UDP servers bound to ::.  Open mode's ruleset closes the
# anycast address of each of the host's prefixes with its addresses.
test_net_open_never_reaches_the_hosts_anycast_address() {
	W_SETUP="echo 1 >/proc/sys/net/ipv6/conf/all/forwarding" net_servers
	bg in_w python3 "$HELPERS/udp_echo.py" "$T/pu" :: "$T/host-udp.log"
	wait_file "$T/pu"
	PU=$(cat "$T/pu")
	bg in_s python3 "$HELPERS/udp_echo.py" "$T/ps" :: "$T/pub-udp.log" "$PU"
	wait_file "$T/ps"
	run_jail -D "$T/p" --net open -- python3 -c "$UDPSEND" "2a0b:1::,$PU" "$PUB6,$PU"
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "$PUB6,$PU reply b'echo:from-jail'"
	host_udp_barrier 2a0b:1:: "$PU" "$T/host-udp.log"
	assert_not_contains "$(cat "$T/host-udp.log")" from-jail
	assert_contains "$err" "jail: blocked udp [2a0b:1::]:$PU"
}
