# The escape suite: an attacker's review of the network side.  Each test is
# an attack tried against build/jail that held (or a hole fixed), kept so it
# keeps holding.  The test network is tests/networld.bash.
source "$TESTS/networld.bash"

# ATTACK (inside the jail): every spelling of the helper's and the "public"
# server's addresses that the ruleset did not open: the helper's link-local
# address (fe80::1, which pasta answers as the gateway), IPv4-mapped forms
# (the kernel sends them as IPv4), NAT64 of a public address, the gateway's
# IPv6 form, on a port host:PORT did not name; then ping, raw and packet
# sockets and a netlink change to the jail's own interfaces.
ATTACK='import socket, struct, subprocess, sys
pub4, gw4, gw6, p2, p3, p6 = sys.argv[1], sys.argv[2], sys.argv[3], *map(int, sys.argv[4:7])
ifx = [n for _, n in socket.if_nameindex() if n != "lo"][0]
def tcp(label, addr, port, scope=0):
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.connect((addr, port) if fam == socket.AF_INET else (addr, port, 0, scope))
        s.send(b"GET / HTTP/1.0\r\n\r\n")
        print(label, "CONNECTED", s.recv(20))
    except OSError as e:
        print(label, "failed", type(e).__name__)
idx = socket.if_nametoindex(ifx)
tcp("ll-host-port", "fe80::1", p3, idx)
tcp("ll-other-port", "fe80::1", p6, idx)
tcp("mapped-gw", "::ffff:" + gw4, p6)
tcp("gw6-other-port", gw6, p6)
tcp("mapped-pub", "::ffff:" + pub4, p2)
tcp("nat64-pub", "64:ff9b::" + pub4, p2)
for label, fam, proto in (("ping4", socket.AF_INET, socket.IPPROTO_ICMP),
                          ("ping6", socket.AF_INET6, socket.IPPROTO_ICMPV6)):
    try:
        s = socket.socket(fam, socket.SOCK_DGRAM, proto)
        s.settimeout(2)
        s.sendto(struct.pack("!BBHHH", 8 if fam == socket.AF_INET else 128, 0, 0, 1, 1) + b"x",
                 (pub4 if fam == socket.AF_INET else "64:ff9b::" + pub4, 0))
        print(label, "REPLY", s.recv(64))
    except OSError as e:
        print(label, "failed", type(e).__name__)
for label, args in (("raw", (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)),
                    ("packet", (socket.AF_PACKET, socket.SOCK_RAW, 0))):
    try:
        socket.socket(*args)
        print(label, "OPENED")
    except OSError as e:
        print(label, "failed", type(e).__name__)
r = subprocess.run(["ip", "addr", "add", "10.9.9.9/32", "dev", ifx], capture_output=True)
print("netlink", "CHANGED" if r.returncode == 0 else "failed")'

test_no_address_spelling_or_socket_kind_gets_past_the_ruleset() {
	net_servers
	run_jail "${NET[@]}" -- python3 -c "$ATTACK" "$PUB4" "$GW4" "$GW6" "$P2" "$P3" "$P6"
	assert_eq "$rc" 0 "the probe ran (stderr: $err)"
	for l in ll-host-port ll-other-port mapped-gw gw6-other-port mapped-pub nat64-pub \
		ping4 ping6 raw packet netlink; do
		assert_contains "$out" "$l failed"
	done
	assert_not_contains "$out" CONNECTED
	assert_not_contains "$out" REPLY
	assert_contains "$err" "jail: blocked tcp [fe80::1]:$P3"
	assert_contains "$err" "jail: blocked tcp $GW4:$P6"
	assert_contains "$err" "jail: blocked tcp $PUB4:$P2"
	assert_contains "$err" "jail: blocked tcp [64:ff9b::b16:212c]:$P2"
}

# DNS as a channel out: only the question the resolver rebuilt leaves, in
# lower case (the letters' case would carry a bit each), of class IN (a CHAOS
# or HESIOD query for an allowed name is refused here, not asked upstream).
test_dns_question_leaves_lower_case_and_class_in_only() {
	net_servers
	run_jail "${NET[@]}" -- python3 -c '
import socket, struct
def q(name, qtype, qclass):
    pkt = struct.pack("!6H", 0x1234, 0x0100, 1, 0, 0, 0) + b"".join(
        bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\0" + struct.pack("!HH", qtype, qclass)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(4)
    s.sendto(pkt, ("127.0.0.1", 53))
    r = s.recv(4096)
    print(name, qtype, qclass, "rcode", r[3] & 15, "echoed", r[12:12 + len(pkt) - 12] == pkt[12:])
q("aPi.TeSt", 1, 1)
q("api.test", 16, 3)
q("api.test", 16, 4)
q("api.test", 16, 1)'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "aPi.TeSt 1 1 rcode 0 echoed True"
	assert_contains "$out" "api.test 16 3 rcode 3"
	assert_contains "$out" "api.test 16 4 rcode 3"
	assert_contains "$out" "api.test 16 1 rcode 0"
	log=$(cat "$T/dns.log")
	assert_not_contains "$log" "$(printf aPi | od -An -tx1 | tr -d ' \n')"
	# upstream saw A and TXT of class IN, nothing of class 3 or 4
	assert_eq "$(grep -c '^api.test udp' <<<"$log")" 2 "(log: $log)"
	assert_not_contains "$log" "00100003"
	assert_not_contains "$log" "00100004"
	assert_contains "$err" "jail: dns: refused api.test (class 3, not IN)"
}
