# Integration tests for the network (issue #4): the allowlist, the filtering
# resolver, the denied-connection log, net=none and net=open.
#
# The test network (net_world, net_servers): tests/networld.bash.
source "$TESTS/networld.bash"

test_allowed_name_and_port_answers() {
	net_servers
	run_jail "${NET[@]}" -- curl -sS -m 10 "http://api.test:$P1/"
	assert_eq "$rc" 0 "curl to an allowed name:port (stderr: $err)"
	assert_eq "$out" hello-jail
}

test_same_name_other_port_refused_at_once() {
	net_servers
	run_jail "${NET[@]}" -- sh -c "$MS" - curl -sS -m 10 "http://api.test:$P2/"
	assert_contains "$out" "rc=7"
	# refused (7), not dropped: a dropped SYN would run into curl's -m 10 (28);
	# no timed assertion, which a slow machine could break
	assert_contains "$err" "jail: blocked tcp $PUB4:$P2 (api.test)"
	assert_contains "$err" "jail: network: 1 connection attempt blocked"
}

test_cname_of_an_allowed_name_is_followed() {
	net_servers
	run_jail "${NET[@]}" --allow "alias.test:$P1" -- curl -sS -m 10 "http://alias.test:$P1/"
	assert_eq "$rc" 0 "curl through a CNAME (stderr: $err)"
	assert_eq "$out" hello-jail
}

test_name_not_on_the_list_gets_nxdomain_and_never_leaves() {
	net_servers
	run_jail "${NET[@]}" -- python3 -c '
import socket, sys
try:
    socket.getaddrinfo("other.test", 80)
except socket.gaierror as e:
    print("gaierror", e.errno == socket.EAI_NONAME)
    sys.exit(0)
print("resolved")'
	assert_eq "$out" "gaierror True"
	assert_contains "$err" "jail: dns: refused other.test (not on the allowlist)"
	assert_contains "$err" "DNS lookups refused"
	# the upstream never saw it: no DNS exfiltration through a refused name
	assert_not_contains "$(cat "$T/dns.log" 2>/dev/null)" "other.test"
	run_jail "${NET[@]}" -- getent hosts api.test
	assert_eq "$rc" 0
	assert_contains "$out" "$PUB4"
	assert_contains "$(cat "$T/dns.log")" "api.test"
}

test_literal_ip_not_on_the_list_refused() {
	net_servers
	run_jail "${NET[@]}" -- sh -c "$MS" - curl -sS -m 10 "http://$PUB4:$P2/"
	assert_contains "$out" "rc=7"
	assert_contains "$err" "jail: blocked tcp $PUB4:$P2"
	# and allowed when named by address
	run_jail "${NET[@]}" --allow "$PUB4:$P2" -- curl -sS -m 10 "http://$PUB4:$P2/"
	assert_eq "$out" hello-jail
}

test_dns_to_another_server_is_blocked() {
	net_servers
	# the test's DNS server itself, reached directly instead of through the jail's
	run_jail "${NET[@]}" -- python3 -c "
import socket
q = bytes.fromhex('abcd01000001000000000000') + b'\x03api\x04test\x00\x00\x01\x00\x01'
for kind in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
    s = socket.socket(socket.AF_INET, kind)
    s.settimeout(3)
    try:
        s.connect(('$HOST4', $DNSP))
        s.send(q if kind == socket.SOCK_DGRAM else len(q).to_bytes(2, 'big') + q)
        s.recv(512)
        print('answered')
    except OSError as e:
        print('blocked', type(e).__name__)
"
	assert_not_contains "$out" "answered"
	assert_eq "$(grep -c blocked <<<"$out")" 2
	assert_contains "$err" "jail: blocked udp $HOST4:$DNSP"
	assert_contains "$err" "jail: blocked tcp $HOST4:$DNSP"
}

# The jail's IPv6 link-local address is tentative (duplicate address detection)
# for a second or two after the helper brings the interface up; a connection made
# in that window was seen to time out once in a full run.  Wait it out first.
V6_SETTLED='i=0; while ip -6 addr 2>/dev/null | grep -q tentative && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done;'

test_ipv6_blocked_unless_allowed() {
	net_servers
	[ -n "$GW6" ] || fail "the host has no IPv6 default route for the helper to copy"
	run_jail "${NET[@]}" -- sh -c "$V6_SETTLED $MS" - curl -sS -m 10 "http://[$GW6]:$P6/"
	assert_contains "$out" "rc=7"
	assert_contains "$err" "jail: blocked tcp [$GW6]:$P6"
	# the gateway stands for the host's loopback (host:PORT): allowed by
	# that name, not by the address (refused: it reads like the router)
	run_jail "${NET[@]}" --allow "host:$P6" -- sh -c "$V6_SETTLED"' exec "$@"' - curl -sS -m 10 "http://[$GW6]:$P6/"
	assert_eq "$out" hello-jail "IPv6 when allowed (stderr: $err)"
}

test_link_local_metadata_unreachable() {
	net_servers
	run_jail "${NET[@]}" -- sh -c "$MS" - curl -sS -m 5 http://169.254.169.254/
	assert_contains "$out" "rc=7"
	assert_contains "$err" "jail: blocked tcp 169.254.169.254:80"
	# an allowed name that resolves to it does not open it either
	run_jail "${NET[@]}" --allow link.test:80 -- sh -c "$MS" - curl -sS -m 5 http://link.test/
	assert_contains "$out" "rc=6"   # the address is dropped from the answer
	assert_contains "$err" "jail: dns: link.test answered 169.254.169.254 (link-local); not opened"
}

test_host_loopback_only_for_named_ports() {
	net_servers
	run_jail "${NET[@]}" -- curl -sS -m 10 "http://host.jail.internal:$P3/"
	assert_eq "$out" hello-jail "host.jail.internal:$P3 (stderr: $err)"
	run_jail "${NET[@]}" -- sh -c "$MS" - curl -sS -m 10 "http://host.jail.internal:$P2/"
	assert_contains "$out" "rc=7"
	# the jail's own 127.0.0.1 is not spliced to the host's
	run_jail "${NET[@]}" -- sh -c "$MS" - curl -sS -m 10 "http://127.0.0.1:$P3/"
	assert_contains "$out" "rc=7"
	# without host:PORT the name does not even resolve
	run_jail -D "$T/p" --net allow --dns-upstream "127.0.0.1:$DNSP" -- getent hosts host.jail.internal
	assert_ne "$rc" 0
}

# host.jail.internal names only the families where the host's server listens:
# pasta leaves a connection to the other one hanging (no reset), so a client
# trying IPv6 first would wait (curl 200 ms per connection, others longer).
test_host_name_answers_only_the_listening_family() {
	net_servers
	local base=(-D "$T/p" --net allow --dns-upstream "127.0.0.1:$DNSP")
	run_jail "${base[@]}" --allow "host:$P3" -- getent ahosts host.jail.internal
	assert_eq "$rc" 0 "resolve host.jail.internal (stderr: $err)"
	assert_contains "$out" "$GW4"
	assert_not_contains "$out" "$GW6" "127.0.0.1 only: no IPv6 answer"
	run_jail "${base[@]}" --allow "host:$P6" -- sh -c \
		'getent ahosts host.jail.internal; curl -sS -m 10 "$1"' - "http://host.jail.internal:$P6/"
	assert_contains "$out" "$GW6"
	assert_not_contains "$out" "$GW4" "::1 only: no IPv4 answer"
	assert_contains "$out" hello-jail "::1 reached through the IPv6 gateway (stderr: $err)"
	run_jail "${base[@]}" --allow "host:$P3" --allow "host:$P6" -- getent ahosts host.jail.internal
	assert_contains "$out" "$GW4"
	assert_contains "$out" "$GW6"
}

test_net_none_reaches_nothing() {
	net_servers
	run_jail -D "$T/p" -- sh -c "ip -o link | wc -l; $MS" - curl -sS -m 5 "http://$HOST4:$P3/"
	assert_eq "$(head -n1 <<<"$out")" 1 "interfaces (lo only)"
	assert_contains "$out" "rc=7"
	run_jail -D "$T/p" -- curl -sS -m 5 "http://127.0.0.1:$P3/"
	assert_ne "$rc" 0
	run_jail -D "$T/p" -- getent hosts api.test
	assert_ne "$rc" 0
}

# An NFT_MSG_DELTABLE batch for table inet "jail", as the agent would send it.
NFT_DELETE='
import socket, struct, errno
def msg(t, flags, seq, payload):
    return struct.pack("=LHHLL", 16 + len(payload), t, flags, seq, 0) + payload
name = b"jail\0"
attr = struct.pack("=HH", 4 + len(name), 1) + name + b"\0" * ((-len(name)) % 4)
batch = (msg(0x10, 1, 1, struct.pack("=BBH", 0, 0, socket.htons(10))) +
         msg(0x0a02, 1 | 4, 2, struct.pack("=BBH", 1, 0, 0) + attr) +
         msg(0x11, 1, 3, struct.pack("=BBH", 0, 0, socket.htons(10))))
try:  # seccomp refuses netfilter netlink sockets; without it, no capability
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 12)
except OSError as e:
    print("delete table:", errno.errorcode[e.errno], "(socket)")
    raise SystemExit
s.send(batch)
s.settimeout(2)
data = s.recv(4096)
err = struct.unpack("=i", data[16:20])[0]
print("delete table:", errno.errorcode.get(-err, err))
'

test_agent_cannot_change_the_rules() {
	net_servers
	run_jail "${NET[@]}" -- sh -c "python3 -c '$NFT_DELETE';
		if command -v nft >/dev/null; then nft flush ruleset && echo flushed || echo nft-failed; fi
		$MS" - curl -sS -m 5 "http://$PUB4:$P2/"
	assert_contains "$out" "delete table: EPERM"
	assert_not_contains "$out" "flushed"
	assert_contains "$out" "rc=7"   # and the filter still stands
}

test_helper_is_gone_after_the_jail() {
	net_servers
	helper_gone_after_the_jail pasta
}

# helper_gone_after_the_jail NAME: a jail (running until its stdin, fd 7 here,
# is closed) is served by one NAME; once the jail ends, that helper is gone and
# so is its temp dir.  Only this jail's helper counts (helper_of): other jails
# of the same user, another suite's, may run at the same time.
helper_gone_after_the_jail() {
	mkfifo "$T/in"
	"$JAIL" "${NET[@]}" -- sh -c 'read -r _ || true' <"$T/in" >/dev/null 2>&1 &
	jp=$!
	exec 7>"$T/in"
	this_helper() { helpers=$(helper_of "$jp" "$1"); [ -n "$helpers" ]; }
	wait_for this_helper "$1"
	dirs=$(for pid in $helpers; do tr '\0' '\n' <"/proc/$pid/cmdline"; done |
		grep -oE '^/tmp/jail-net\.[^/]+' | sort -u || true)
	exec 7>&-
	wait $jp
	assert_eq "$(printf '%s\n' $helpers | grep -c .)" 1 "$1 processes while the jail runs"
	for pid in $helpers; do
		kill -0 "$pid" 2>/dev/null && fail "$1 $pid outlived the jail"
	done
	for d in $dirs; do
		[ ! -e "$d" ] || fail "the helper's temp dir was left behind: $d"
	done
}

test_quiet_suppresses_lines_not_the_filter() {
	net_servers
	run_jail "${NET[@]}" --quiet -- sh -c "$MS" - curl -sS -m 10 "http://api.test:$P2/"
	assert_contains "$out" "rc=7"
	assert_not_contains "$err" "jail: blocked"
	assert_not_contains "$err" "connection attempt"
}

test_net_open_has_no_filter() {
	net_servers
	run_jail -D "$T/p" --net open --dns-upstream "127.0.0.1:$DNSP" --allow "host:$P3" -- \
		curl -sS -m 10 "http://other.test:$P2/"
	assert_eq "$out" hello-jail "net=open (stderr: $err)"
	assert_not_contains "$err" "blocked"
}

test_slirp4netns_fallback() {
	command -v slirp4netns >/dev/null || fail "slirp4netns is not installed"
	net_servers slirp4netns
	run_jail "${NET[@]}" -- curl -sS -m 10 "http://api.test:$P1/"
	assert_eq "$out" hello-jail "slirp4netns (stderr: $err)"
	run_jail "${NET[@]}" -- sh -c "$MS" - curl -sS -m 10 "http://api.test:$P2/"
	assert_contains "$out" "rc=7"
	run_jail "${NET[@]}" -- sh -c "$MS" - curl -sS -m 10 "http://10.0.2.3:53/"
	assert_contains "$out" "rc=7"   # slirp's own DNS forwarder is not named
	# nor opened by a name that resolves to it
	run_jail "${NET[@]}" --allow slirpdns.test:53 -- sh -c "$MS" - curl -sS -m 10 "http://slirpdns.test:53/"
	assert_contains "$out" "rc=6"   # the address is dropped from the answer
	assert_contains "$err" "jail: dns: slirpdns.test answered 10.0.2.3 (network helper); not opened"
	helper_gone_after_the_jail slirp4netns
}

test_no_helper_installed_says_so() {
	mkrepo "$T/p"
	mkdir -p "$T/emptybin"
	ln -s "$(command -v git)" "$T/emptybin/git"   # jail itself needs git, not the helpers
	run_jail_path() { local out_; set +e; out=$(PATH="$T/emptybin" "$JAIL" "$@" 2>"$T/.stderr" </dev/null); rc=$?; set -e; err=$(cat "$T/.stderr"); }
	run_jail_path -D "$T/p" --net allow --dns-upstream 127.0.0.1 -- true
	assert_eq "$rc" 125
	assert_contains "$err" "needs pasta (Debian package passt) or slirp4netns; neither is installed"
}

test_bad_allow_entry_is_refused() {
	mkrepo "$T/p"
	expect_fail125 -D "$T/p" --net allow --allow "example.com" -- true
	assert_contains "$err" "--allow example.com: expected HOST:PORT"
}

test_dns_over_tcp_is_filtered_too() {
	net_servers
	run_jail "${NET[@]}" -- env RES_OPTIONS=use-vc getent hosts api.test
	assert_eq "$rc" 0 "TCP lookup of an allowed name (stderr: $err)"
	assert_contains "$out" "$PUB4"
	assert_contains "$(cat "$T/dns.log")" "api.test tcp"   # upstream over TCP as well
	run_jail "${NET[@]}" -- env RES_OPTIONS=use-vc getent hosts other.test
	assert_ne "$rc" 0
	assert_contains "$err" "jail: dns: refused other.test"
	assert_not_contains "$(cat "$T/dns.log")" "other.test"
}

# ---- issue 12: a DNS answer never opens the host, the helper or the LAN ----

# The reproduction: host:PORT makes the helper map W's loopback to the
# gateway, and an allowed name that answers the gateway must not open W's
# 127.0.0.1:9999 (only host:9999 or the gateway's address named would).
host_loopback_by_dns() { # HELPER_ADDR [slirp4netns]
	bg in_w python3 "$HELPERS/http_server.py" "$T/p9" 127.0.0.1 "$T/www" 9999
	wait_file "$T/p9"
	run_jail "${NET[@]}" --allow host:9999 -- curl -sS -m 10 http://host.jail.internal:9999/
	assert_eq "$out" hello-jail "positive control: host:9999 named (stderr: $err)"
	run_jail "${NET[@]}" --allow evil.test:9999 -- curl -sS -m 10 http://evil.test:9999/
	assert_not_contains "$out" hello-jail
	assert_contains "$err" "jail: dns: evil.test answered $1 (network helper); not opened"
}

test_dns_answer_never_opens_the_host_loopback() {
	net_servers "evil.test=$GW4"
	host_loopback_by_dns "$GW4"
}

test_dns_answer_never_opens_the_host_loopback_slirp4netns() {
	command -v slirp4netns >/dev/null || fail "slirp4netns is not installed"
	net_servers slirp4netns "evil.test=10.0.2.2"
	host_loopback_by_dns 10.0.2.2
}

test_dns_private_answer_refused_unless_named() {
	net_servers "lan.test=$LAN4"
	run_jail "${NET[@]}" -- curl -sS -m 10 "http://$LAN4:$P1/"
	assert_contains "$err" "jail: blocked tcp $LAN4:$P1"
	run_jail "${NET[@]}" --allow "lan.test:$P1" -- curl -sS -m 10 "http://lan.test:$P1/"
	assert_not_contains "$out" hello-jail
	assert_contains "$err" "jail: dns: lan.test answered $LAN4 (private); not opened"
	# named by address it is reachable, also through the name
	run_jail "${NET[@]}" --allow "lan.test:$P1" --allow "$LAN4:$P1" -- curl -sS -m 10 "http://lan.test:$P1/"
	assert_eq "$out" hello-jail "an address named in --allow (stderr: $err)"
	assert_not_contains "$err" "not opened"
}

# Every other spelling of a refused address, behind a CNAME, mixed with a
# public one (TTL 0): the refused ones are dropped from the answer and never
# opened, the public one is kept and reachable.
test_dns_mixed_answer_keeps_only_the_public_address() {
	net_servers "mix.test=$LAN4" "mix.test=127.0.0.1" "mix.test=$PUB4@0" "mix.test=$GW4" \
		"mix.test=100.64.1.1" "mix.test=::ffff:127.0.0.1" "mix.test=64:ff9b::7f00:1" \
		"mix.test=::1" "mix.test=2002:7f00:1::1" "mix.test=::127.0.0.1" "mix.test=fe80::1" \
		"mix.test=fd00::5" "mix.test=$GW6" "mix.test=11.22.33.1" "mix.test=::ffff:$GW4" \
		"mix.test=64:ff9b::$GW4" "mix.test=2002:b16:21fe::1" "cn.test=>mix.test"
	run_jail "${NET[@]}" --allow "cn.test:$P1" -- sh -c \
		'getent ahostsv4 cn.test; getent ahostsv6 cn.test; curl -sS -m 10 "$1"' - "http://cn.test:$P1/"
	assert_contains "$out" hello-jail
	assert_contains "$out" "$PUB4"
	for a in "$LAN4" 127.0.0.1 "$GW4" 100.64.1.1 ::ffff:127.0.0.1 64:ff9b::7f00:1 2002:7f00:1::1 \
		::127.0.0.1 fe80::1 fd00::5 "$GW6" 11.22.33.1 "::ffff:$GW4" "64:ff9b::b16:21fe" \
		2002:b16:21fe::1; do
		assert_not_contains "$out" "$a "
	done
	for a in "$LAN4 (private)" "127.0.0.1 (loopback)" "$GW4 (network helper)" \
		"100.64.1.1 (shared)" "::ffff:127.0.0.1 (loopback)" "64:ff9b::7f00:1 (loopback)" \
		"::1 (loopback)" "2002:7f00:1::1 (loopback)" "::127.0.0.1 (loopback)" \
		"fe80::1 (link-local)" "fd00::5 (private)" "$GW6 (network helper)" \
		"11.22.33.1 (the host)" "::ffff:$GW4 (network helper)" \
		"64:ff9b::b16:21fe (network helper)" "2002:b16:21fe::1 (network helper)"; do
		assert_contains "$err" "jail: dns: cn.test answered $a; not opened"
	done
	# and none of them was opened: the loopback of W stays closed behind them
	run_jail "${NET[@]}" --allow "cn.test:$P3" -- curl -sS -m 10 "http://cn.test:$P3/"
	assert_not_contains "$out" hello-jail
}

# ---- issue 12: the resolver ----

# A query followed by bytes of the agent's (an extra record, junk) is not sent
# upstream; a plain one and one with an OPT record of the agent's go upstream
# as jail's own rebuilt question.
test_dns_forwards_only_a_rebuilt_question() {
	net_servers
	run_jail "${NET[@]}" -- python3 -c '
import socket
def q(qid, ar=0):
    return qid.to_bytes(2, "big") + bytes([1, 0, 0, 1, 0, 0, 0, 0, 0, ar]) + b"\x03api\x04test\x00\x00\x01\x00\x01"
opt = b"\x00\x00\x29\x10\x00\x00\x00\x00\x00\x00\x0c\x00\x0a\x00\x08cafecafe"  # a cookie
junk_rr = b"\x00\x00\x10\x00\x01\x00\x00\x00\x00\x00\x04beef"                  # TXT in additional
for label, pkt in (("junk", q(1) + b"deadbeefdeadbeef"), ("extra", q(2, 1) + junk_rr),
                   ("optjunk", q(3, 1) + opt + b"deadbeef"), ("opt", q(4, 1) + opt), ("plain", q(5))):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(3)
    s.sendto(pkt, ("127.0.0.1", 53))
    try:
        r = s.recv(4096)
        print(label, "answered", r[:2] == pkt[:2] and (r[3] & 0xf))
    except socket.timeout:
        print(label, "no answer")
'
	assert_contains "$out" "junk no answer"
	assert_contains "$out" "extra no answer"
	assert_contains "$out" "optjunk no answer"
	assert_contains "$out" "opt answered 0"
	assert_contains "$out" "plain answered 0"
	log=$(cat "$T/dns.log")
	assert_eq "$(grep -c '^api.test udp' <<<"$log")" 2 "queries upstream (log: $log)"
	assert_not_contains "$log" "$(printf deadbeef | od -An -tx1 | tr -d ' \n')"
	assert_not_contains "$log" "$(printf beef | od -An -tx1 | tr -d ' \n')"
	assert_not_contains "$log" "$(printf cafecafe | od -An -tx1 | tr -d ' \n')"
}

# Stalled and trickling TCP clients of the jail's resolver hold no one up:
# a UDP and a TCP lookup are answered and a blocked connection is reported
# while they stay connected.  (Deadlines only to fail instead of hanging.)
SLOW_CLIENTS='
import socket, sys, time
held = []
for i in range(24):
    s = socket.socket()
    s.setblocking(False)
    try:
        s.connect(("127.0.0.1", 53))
    except BlockingIOError:
        pass
    held.append(s)
time.sleep(0.2)
for s in held[::2]:
    try:
        s.send(b"\x00")  # half a length prefix, then nothing
    except OSError:
        pass
def q(qid):
    return qid.to_bytes(2, "big") + bytes([1, 0, 0, 1, 0, 0, 0, 0, 0, 0]) + b"\x03api\x04test\x00\x00\x01\x00\x01"
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.settimeout(20)
u.sendto(q(0x1111), ("127.0.0.1", 53))
try:
    r = u.recv(4096)
    print("udp", r[:2] == b"\x11\x11" and r[7] == 1, flush=True)
except socket.timeout:
    print("udp timeout", flush=True)
try:
    t = socket.create_connection(("127.0.0.1", 53), timeout=20)
    t.sendall(b"\x00\x1a" + q(0x2222))
    n = int.from_bytes(t.recv(2, socket.MSG_WAITALL), "big")
    r = t.recv(n, socket.MSG_WAITALL)
    print("tcp", r[:2] == b"\x22\x22" and r[7] == 1, flush=True)
except OSError as e:
    print("tcp", type(e).__name__, flush=True)
c = socket.socket()
c.settimeout(20)
try:
    c.connect((sys.argv[1], int(sys.argv[2])))
    print("connected", flush=True)
except OSError as e:
    print("refused", type(e).__name__, flush=True)
time.sleep(100)
'

test_slow_tcp_dns_client_stalls_nothing() {
	net_servers
	"$JAIL" "${NET[@]}" -- python3 -c "$SLOW_CLIENTS" "$PUB4" "$P2" >"$T/out" 2>"$T/err" </dev/null &
	jp=$!
	echo $jp >>"$T/.pids"
	for _ in $(seq 600); do
		grep -q '^refused\|^connected' "$T/out" && grep -q "jail: blocked tcp $PUB4:$P2" "$T/err" && break
		kill -0 $jp 2>/dev/null || break
		sleep 0.1
	done
	out=$(cat "$T/out") err=$(cat "$T/err")
	assert_contains "$err" "jail: blocked tcp $PUB4:$P2"
	kill $jp
	wait $jp || true
	assert_contains "$out" "udp True"
	assert_contains "$out" "tcp True"
	assert_contains "$out" "refused ConnectionRefusedError"
}
