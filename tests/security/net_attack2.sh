# The second escape suite of the network side: attacks on the host's
# loopback and the host's own addresses tried after net_attack.sh's fixes.
# Each test is an attack that held (or a hole fixed), kept so it keeps
# holding.  The test network is tests/networld.bash; nothing leaves it.
source "$TESTS/networld.bash"

GATE=127.0.0.3

# ATTACK: the host's own address, named literally on 443 beside a gated
# name.  In the jail that address is the jail's own (pasta gives the jail's
# interface the host's address), so the user's entry reaches nothing there;
# the gate connects from the host, where it is the host, and a server bound
# to 0.0.0.0:443 on the host answered.
test_gate_never_connects_to_the_hosts_own_address_even_named() {
	net_world
	bg in_w python3 "$HELPERS/tls_hrr.py" server 0.0.0.0 443 "$T/port" "$T/host.log"
	bg in_w python3 "$HELPERS/dns_server.py" "$T/dnsport" "$T/dns.log" \
		"self.test=11.22.33.1" "self6.test=2a0b:1::1"
	wait_file "$T/port"
	wait_file "$T/dnsport"
	mkrepo "$T/p"
	cp "$HELPERS/tls_hrr.py" "$T/p/tls_hrr.py"
	local name
	for name in self.test self6.test; do
		run_jail -D "$T/p" --net allow --dns-upstream "127.0.0.1:$(cat "$T/dnsport")" \
			--allow $name:443 --allow 11.22.33.1:443 --allow '[2a0b:1::1]:443' \
			-- python3 tls_hrr.py client $GATE 443 retry $name $name
		assert_contains "$err" "TLS gate: $name: cannot connect (its address is the host)"
	done
	assert_not_contains "$(cat "$T/host.log" 2>/dev/null)" "hello1"
}

# ATTACK: --net open with a host:PORT entry.  The helper maps its gateway to
# the host's loopback for the entry, and --net open has no ruleset: every
# other port of the host's loopback answered there too (a dev database, a
# docker socket over TCP), though host:PORT promises that port alone.
# PROBE ADDR... : inside the jail, a TCP connect to each "addr,port" (an
# IPv6 link-local one on the jail's interface); prints "ADDR PORT open" or
# "ADDR PORT failed".
PROBE='import socket, sys
ifx = [n for _, n in socket.if_nameindex() if n != "lo"][0]
for spec in sys.argv[1:]:
    addr, port = spec.rsplit(",", 1)
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(fam)
    s.settimeout(5)
    scope = socket.if_nametoindex(ifx) if addr.startswith("fe80") else 0
    try:
        s.connect((addr, int(port)) if fam == socket.AF_INET else (addr, int(port), 0, scope))
        print(addr, port, "open")
    except OSError as e:
        print(addr, port, "failed", e)'

# ATTACK: --net open with a host:PORT entry.  The helper maps its gateway to
# the host's loopback for the entry, and --net open had no ruleset: every
# other port of the host's loopback answered there too (a dev database, a
# docker socket over TCP), though host:PORT promises that port alone.
test_net_open_host_port_opens_that_port_alone() {
	net_servers
	bg in_w python3 "$HELPERS/http_server.py" "$T/p7" 127.0.0.1 "$T/www"
	wait_file "$T/p7"
	P7=$(cat "$T/p7")
	run_jail -D "$T/p" --net open --dns-upstream "127.0.0.1:$DNSP" --allow "host:$P3" -- \
		python3 -c "$PROBE" "$GW4,$P3" "$GW4,$P7" "$GW6,$P6" "$GW6,$P7" "fe80::1,$P6" \
		"fe80::1,$P3" "$PUB4,$P2"
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "$GW4 $P3 open"
	assert_contains "$out" "$PUB4 $P2 open"
	assert_not_contains "$out" "$GW4 $P7 open"
	assert_not_contains "$out" "$GW6 $P6 open"
	assert_not_contains "$out" "$GW6 $P7 open"
	assert_not_contains "$out" "fe80::1 $P6 open"
	assert_not_contains "$out" "fe80::1 $P3 open"
	assert_contains "$err" "jail: blocked tcp $GW4:$P7"
	assert_contains "$err" "jail: blocked tcp [$GW6]:$P6"
	assert_contains "$err" "jail: blocked tcp [fe80::1]:$P6"
	# the entry in another spelling, from the user's config file
	mkdir -p "$XDG_CONFIG_HOME/jail"
	printf '[net]\nallow = HOST:%s\n' "$P3" >"$XDG_CONFIG_HOME/jail/jail.ini"
	run_jail -D "$T/p" --net open --dns-upstream "127.0.0.1:$DNSP" -- \
		python3 -c "$PROBE" "$GW4,$P3" "$GW4,$P7"
	rm "$XDG_CONFIG_HOME/jail/jail.ini"
	assert_contains "$out" "$GW4 $P3 open"
	assert_contains "$out" "$GW4 $P7 failed"
	# and UDP to the entry's port is not the TCP server named either
	run_jail -D "$T/p" --net open --dns-upstream "127.0.0.1:$DNSP" --allow "host:$P3" -- \
		python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.sendto(b"x", (sys.argv[1], int(sys.argv[2])))
    s.settimeout(3)
    s.recv(10)
except OSError as e:
    print("udp failed", e)' "$GW4" "$P3"
	assert_contains "$out" "udp failed"
	assert_contains "$err" "jail: blocked udp $GW4:$P3"
}

test_net_open_host_port_opens_that_port_alone_slirp4netns() {
	net_servers slirp4netns
	bg in_w python3 "$HELPERS/http_server.py" "$T/p7" 127.0.0.1 "$T/www"
	wait_file "$T/p7"
	P7=$(cat "$T/p7")
	run_jail -D "$T/p" --net open --dns-upstream "127.0.0.1:$DNSP" --allow "host:$P3" -- \
		python3 -c "$PROBE" "$HOST4,$P3" "$HOST4,$P7" "$PUB4,$P2"
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "$HOST4 $P3 open"
	assert_contains "$out" "$PUB4 $P2 open"
	assert_not_contains "$out" "$HOST4 $P7 open"
	assert_contains "$err" "jail: blocked tcp $HOST4:$P7"
}

# ATTACK: DNS rebinding onto an address the host got after the jail started
# (a DHCP lease, a VPN, an IPv6 temporary address).  The host's addresses
# were listed once at start, so an allowed name answering the new one opened
# it, and a server bound to 0.0.0.0 on the host answered the jail there.
test_dns_never_opens_an_address_the_host_got_later() {
	# W takes the address when the jail says it is running
	W_SETUP=$(when_jail_runs "ip addr add 12.34.56.78/32 dev v0") \
		net_servers "late.test=12.34.56.78"
	bg in_w python3 "$HELPERS/http_server.py" "$T/p7" 0.0.0.0 "$T/www"
	wait_file "$T/p7"
	P7=$(cat "$T/p7")
	run_across_change "${NET[@]}" --allow "late.test:$P7" -- \
		"curl -sS -m 10 http://late.test:$P7/ && echo LATE-OPEN"
	assert_not_contains "$out" LATE-OPEN
	assert_contains "$err" "jail: dns: late.test answered 12.34.56.78 (the host); not opened"
}

# ATTACK: an address the host takes as its own by a "local" route (AnyIP:
# "ip route add local 12.34.56.0/24 dev lo"), on no interface: the list of
# interface addresses missed it, and 0.0.0.0 servers answer there.  The same
# through the TLS gate, even when the address is named on 443.
test_dns_and_gate_never_open_an_anyip_address_of_the_host() {
	W_SETUP="ip route add local 12.34.56.0/24 dev lo" net_servers "any.test=12.34.56.78"
	bg in_w python3 "$HELPERS/http_server.py" "$T/p7" 0.0.0.0 "$T/www"
	bg in_w python3 "$HELPERS/tls_hrr.py" server 0.0.0.0 443 "$T/port" "$T/host.log"
	wait_file "$T/p7"
	wait_file "$T/port"
	P7=$(cat "$T/p7")
	cp "$HELPERS/tls_hrr.py" "$T/p/tls_hrr.py"
	run_jail "${NET[@]}" --allow "any.test:$P7" -- \
		sh -c "curl -sS -m 10 http://any.test:$P7/ && echo ANY-OPEN"
	assert_not_contains "$out" ANY-OPEN
	assert_contains "$err" "jail: dns: any.test answered 12.34.56.78 (the host); not opened"
	run_jail "${NET[@]}" --allow any.test:443 --allow 12.34.56.78:443 -- \
		python3 tls_hrr.py client $GATE 443 retry any.test any.test
	assert_contains "$err" "TLS gate: any.test: cannot connect (its address is the host)"
	assert_not_contains "$(cat "$T/host.log" 2>/dev/null)" "hello1"
}

# ATTACK: the gateway named literally beside a host:PORT entry.  The helper
# maps its gateway to the host's loopback then, so "--allow GW:P7" (read as
# the router's port) opened the host's loopback port P7, which host:PORT
# did not name.  Refused at start with the way out.
test_gateway_named_literally_beside_host_port_is_refused() {
	net_servers
	bg in_w python3 "$HELPERS/http_server.py" "$T/p7" 127.0.0.1 "$T/www"
	wait_file "$T/p7"
	P7=$(cat "$T/p7")
	run_jail "${NET[@]}" --allow "$GW4:$P7" -- curl -sS -m 10 "http://$GW4:$P7/"
	assert_eq "$rc" 125 "(out: $out)"
	assert_not_contains "$out" hello-jail
	assert_contains "$err" "--allow $GW4:$P7: with host:PORT entries pasta maps $GW4 to the host's loopback"
	run_jail "${NET[@]}" --allow "[$GW6]:$P7" -- true
	assert_eq "$rc" 125
	assert_contains "$err" "--allow [$GW6]:$P7: with host:PORT entries"
	# without a host:PORT entry the gateway is the router's, and named, open
	run_jail -D "$T/p" --net allow --dns-upstream "127.0.0.1:$DNSP" --allow "$GW4:$P7" -- true
	assert_eq "$rc" 0 "(stderr: $err)"
}

# ATTACK (held): more spellings of the host with a host:PORT entry, against a
# host server bound to 0.0.0.0 on another port: the jail's own loopback and
# "this host" (the jail's, not the host's), the host's address (pasta gives
# it to the jail's interface: the jail's own too), the subnet's broadcast,
# the gateway spelled as IPv4-compatible and 6to4, and the entry's port on
# the gateway's IPv6 twin for a server on 127.0.0.1 only.
test_more_spellings_of_the_host_reach_nothing_else() {
	net_servers
	bg in_w python3 "$HELPERS/http_server.py" "$T/p7" 0.0.0.0 "$T/www"
	wait_file "$T/p7"
	P7=$(cat "$T/p7")
	run_jail "${NET[@]}" -- python3 -c "$PROBE" "$GW4,$P3" "127.0.0.2,$P7" "0.0.0.0,$P7" \
		"::,$P7" "11.22.33.1,$P7" "11.22.33.255,$P7" "::$GW4,$P7" "2002:b16:21fe::,$P7" \
		"$GW4,$P7" "$GW6,$P7"
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "$GW4 $P3 open"
	assert_eq "$(grep -c ' open$' <<<"$out")" 1 "(out: $out)"
	assert_contains "$err" "jail: blocked tcp $GW4:$P7"
	assert_contains "$err" "jail: blocked tcp [$GW6]:$P7"
	assert_contains "$err" "jail: blocked tcp [2002:b16:21fe::]:$P7"
}
