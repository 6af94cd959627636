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
