# The fourth escape suite of the network side: the allowlist and the host's
# services, attacked again after net_attack.sh, net_attack2.sh and
# net_attack3.sh.  Each test is an attack that held (or a hole fixed), kept so
# it keeps holding.  The test network is tests/networld.bash; nothing leaves it.
source "$TESTS/networld.bash"

# JAIL_UDP HOST PORT: from inside, a datagram from port 40000 to HOST:PORT (an
# allowed destination: the helper now holds port 40000 on the host), then
# every datagram "knock" that comes in to port 40000 is answered.
JAIL_UDP='import socket, sys
host, port = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 40000))
s.sendto(b"to-allowed", socket.getaddrinfo(host, port, socket.AF_INET, socket.SOCK_DGRAM)[0][4])
print("sent", flush=True)
s.settimeout(12)
try:
    while True:
        d, peer = s.recvfrom(100)
        print("got", d, peer, flush=True)
        if d == b"knock":
            s.sendto(b"secret-from-jail", peer)
except OSError as e:
    print("ended", type(e).__name__, flush=True)'

# KNOCK SRC DST PORT: "knock" from SRC to DST:PORT until an answer comes (or
# 4 s pass); prints what came back.
KNOCK='import socket, sys
src, dst, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((src, 0))
s.settimeout(0.2)
for i in range(20):
    s.sendto(b"knock", (dst, port))
    try:
        d, peer = s.recvfrom(100)
        print("answer", d, flush=True)
        break
    except OSError:
        pass
else:
    print("no answer", flush=True)'

# ATTACK: a conversation a host off the list starts.  The helper sends the
# jail's datagrams from a host socket bound to all the host's addresses on
# the jail's own source port, and passes in what arrives there from anyone;
# the ruleset let out every packet of a flow conntrack had seen both ways, so
# the jail's answer to a datagram from a host off the list (one on the LAN
# or the internet, that knows the port the jail chose) left as "established":
# a channel both ways to any host that can send to the host's address.
# The same socket takes what the host's own programs send to that port on
# its loopback (a statsd or syslog client whose server is not running): it
# came in too, from the gateway's address, which the jail could answer.
# The allowed host's own answer still comes in (the positive control).
test_a_host_off_the_list_cannot_start_a_conversation() {
	net_servers
	bg in_s python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", int(sys.argv[1])))
open(sys.argv[2], "w").write("up")
while True:
    d, peer = s.recvfrom(100)
    s.sendto(b"echo-" + d, peer)' "$P1" "$T/echo"
	wait_file "$T/echo"
	"$JAIL" "${NET[@]}" -- python3 -c "$JAIL_UDP" api.test "$P1" >"$T/j.out" 2>"$T/j.err" &
	local pid=$!
	wait_for grep -q sent "$T/j.out" || fail "the jail did not send (stderr: $(cat "$T/j.err"))"
	out=$(in_s python3 -c "$KNOCK" "$LAN4" 11.22.33.1 40000)
	out+=$(in_w python3 -c "$KNOCK" 127.0.0.1 127.0.0.1 40000)
	wait "$pid" || true
	local jout
	jout=$(cat "$T/j.out")
	assert_contains "$jout" "got b'echo-to-allowed'"
	assert_contains "$jout" "ended"
	assert_not_contains "$jout" "knock"
	assert_not_contains "$out" "secret-from-jail"
	assert_contains "$out" "no answer"
}

# UDP_LOG PORT READY LOG: in S, every datagram to PORT is logged in LOG.
UDP_LOG='import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind(("::", int(sys.argv[1])))
open(sys.argv[2], "w").write("up")
while True:
    d, peer = s.recvfrom(70000)
    with open(sys.argv[3], "a") as f:
        f.write("%s got %d bytes from %s\n" % (sys.argv[1], len(d), peer[0]))'

# FRAGS HOST PORT FAKEPORT: from inside, datagrams to HOST:PORT (allowed)
# too big for one packet, their data full of UDP headers to FAKEPORT at
# every offset a later fragment can start at; IPv4 (the largest datagram
# there is, in both); then one small
# datagram, which arrives whole.
FRAGS='import socket, struct, sys
host, port, fake = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
hdr = struct.pack("!HHHH", 40001, fake, 8 + 11, 0)
for fam, size in ((socket.AF_INET, 65507), (socket.AF_INET6, 65527)):
    a = socket.getaddrinfo(host, port, fam, socket.SOCK_DGRAM)[0][4]
    s = socket.socket(fam, socket.SOCK_DGRAM)
    if fam == socket.AF_INET:
        s.setsockopt(socket.IPPROTO_IP, 10, 0)      # IP_MTU_DISCOVER: DONT
    else:
        s.setsockopt(socket.IPPROTO_IPV6, 23, 0)    # IPV6_MTU_DISCOVER: DONT
    for i in range(3):
        try:
            s.sendto(hdr * (size // 8) + b"\0" * (size % 8), a)
        except OSError as e:
            print("send", fam, e)
    s.sendto(b"small", a)
print("sent", flush=True)'

# ATTACK: a port the ruleset never opened, on an allowed address.  The
# output chain judges a datagram whole; the kernel cuts it into fragments
# after; pasta reads every packet as a datagram of its own, so a later
# fragment's data, where a UDP header would be, named a port of its
# choosing (a datagram to 11.22.33.44:FAKE from a jail allowed only
# api.test:P1).  No fragment leaves now; datagrams that fit still do.
test_a_fragment_never_names_a_port_of_its_own() {
	net_servers "api.test=$PUB6"
	bg in_s python3 -c "$UDP_LOG" "$P1" "$T/l1" "$T/udp.log"
	bg in_s python3 -c "$UDP_LOG" 9999 "$T/l2" "$T/udp.log"
	wait_file "$T/l1"
	wait_file "$T/l2"
	run_jail "${NET[@]}" -- python3 -c "$FRAGS" api.test "$P1" 9999
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" sent
	wait_for grep -q "$P1 got 5 bytes from ::ffff:" "$T/udp.log" ||
		fail "the small IPv4 datagram did not arrive: $(cat "$T/udp.log")"
	wait_for grep -q "$P1 got 5 bytes from 2a0b" "$T/udp.log" ||
		fail "the small IPv6 datagram did not arrive: $(cat "$T/udp.log")"
	assert_not_contains "$(cat "$T/udp.log")" "9999 got"
}

# UDP_ECHO PORT ADDR READY LOG: a UDP server on [ADDR]:PORT that answers
# every datagram and logs it in LOG.
UDP_ECHO='import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind((sys.argv[2], int(sys.argv[1])))
open(sys.argv[3], "w").write("up")
while True:
    d, peer = s.recvfrom(70000)
    s.sendto(b"answer-" + d, peer)
    with open(sys.argv[4], "a") as f:
        f.write("%s:%s got %r\n" % (sys.argv[2], sys.argv[1], d))'

# PLAY_BOTH_ENDS ADDR,PORT...: from inside, for each host off the list,
# both ends of one UDP flow on loopback, then out: a socket bound (with
# IP_FREEBIND) to the host's address sends to the jail's own, and the jail
# answers the host from that address through the interface ("reply"); or
# the jail first sends to the host over lo (SO_BINDTODEVICE), the forged
# host answers it, and the jail sends again, routed ("lo-first").
PLAY_BOTH_ENDS='import socket, subprocess, sys
me = [l.split()[3].split("/")[0] for l in subprocess.run(["ip", "-6", "-o", "addr"],
      capture_output=True, text=True).stdout.splitlines() if "scope global" in l][0]
def udp(bind=None, freebind=False, dev=None):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.settimeout(3)
    if freebind:
        s.setsockopt(socket.SOL_IP, 15, 1)  # IP_FREEBIND
    if dev:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, dev)
    if bind:
        s.bind(bind)
    return s
x = 41000
for spec in sys.argv[1:]:
    host, port = spec.rsplit(",", 1)
    for how in ("reply", "lo-first"):
        x += 1
        try:
            if how == "lo-first":
                udp((me, x), dev=b"lo").sendto(b"via-lo", (host, int(port)))
            c = udp((me, x))
            udp((host, int(port)), freebind=True).sendto(b"forged", (me, x))
            c.recvfrom(100)
            c.sendto(b"out-" + how.encode(), (host, int(port)))
            print(spec, how, "ANSWERED", c.recvfrom(100)[0])
        except OSError as e:
            print(spec, how, "failed", type(e).__name__)'

# ATTACK: both ends of a flow on loopback.  The output chain let out what
# conntrack had seen both ways ("established"), and on lo the jail is both
# ends: IPV6_FREEBIND binds a socket to any address, and the kernel sends
# from it to the jail's own address over lo (the ruleset passes lo).  The
# jail's answer to that address then left through the interface as an
# established reply: UDP both ways with any host (one off the list, here
# 2a0b:1::44), and through the gateway to the host's loopback (::1, where
# pasta maps it), in --net allow and --net open alike.  A connection that
# had a packet on lo never passes as established off lo now.
test_a_flow_played_on_loopback_never_leaves_established() {
	net_servers
	bg in_s python3 -c "$UDP_ECHO" 9999 :: "$T/l1" "$T/udp.log"
	bg in_w python3 -c "$UDP_ECHO" 9998 ::1 "$T/l2" "$T/udp.log"
	wait_file "$T/l1"
	wait_file "$T/l2"
	run_jail "${NET[@]}" -- python3 -c "$PLAY_BOTH_ENDS" "$PUB6,9999" "$GW6,9998"
	assert_eq "$rc" 0 "(stderr: $err)"
	for how in reply lo-first; do
		assert_contains "$out" "$PUB6,9999 $how failed"
		assert_contains "$out" "$GW6,9998 $how failed"
	done
	assert_contains "$err" "jail: blocked udp [$PUB6]:9999"
	run_jail -D "$T/p" --net open --allow "host:$P3" -- python3 -c "$PLAY_BOTH_ENDS" "$GW6,9998"
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "$GW6,9998 reply failed"
	assert_contains "$out" "$GW6,9998 lo-first failed"
	[ ! -e "$T/udp.log" ] || fail "a datagram arrived: $(cat "$T/udp.log")"
}
