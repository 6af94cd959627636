# Integration tests for the SNI gate: a name allowed on port 443 only is
# reached through the supervisor, which reads the ClientHello's server name
# and connects only for a name the policy allows; the name's addresses are
# never opened in the ruleset (a shared front end would serve other sites
# there).
#
# The test network is tests/networld.bash: the "public" TLS server listens
# on $PUB4:443 in S with a certificate for gate.test from the test's CA,
# which the jail's clients get as ca.crt in the project.
source "$TESTS/networld.bash"

GATE=127.0.0.3

gate_world() {
	net_world
	command -v openssl >/dev/null || fail "openssl is missing (scripts/setup installs it)"
	make_ca "$T/ca" gate.test
	bg in_s env TLS_LISTEN=0.0.0.0:443 python3 "$HELPERS/tls_echo.py" "$T/port" \
		"$T/ca/srv.crt" "$T/ca/srv.key" "$T/up.log"
	bg in_w python3 "$HELPERS/dns_server.py" "$T/dnsport" "$T/dns.log" \
		"gate.test=$PUB4" "gate.test=$PUB6" "evil.test=$PUB4" "both.test=$PUB4" "lan.test=$LAN4"
	wait_file "$T/port"
	wait_file "$T/dnsport"
	mkrepo "$T/p"
	cp "$T/ca/ca.crt" "$T/p/ca.crt"
	cp "$HELPERS/tls_split.py" "$T/p/tls_split.py"
	G=(-D "$T/p" --net allow --dns-upstream "127.0.0.1:$(cat "$T/dnsport")"
		--allow gate.test:443)
}

test_gate_carries_https_to_an_allowed_name() {
	gate_world
	run_jail "${G[@]}" -- sh -c 'getent ahostsv4 gate.test | head -1
		curl -sS -m 20 --cacert ca.crt https://gate.test/first'
	assert_eq "$rc" 0 "curl through the gate (stderr: $err)"
	assert_contains "$out" "$GATE "
	assert_contains "$out" "ok 1"
	assert_contains "$(cat "$T/up.log")" "GET /first"
	assert_not_contains "$err" "blocked"
}

test_gate_name_has_no_ipv6_answer() {
	gate_world
	run_jail "${G[@]}" -- python3 -c '
import socket
try:
    print(socket.getaddrinfo("gate.test", 443, socket.AF_INET6))
except socket.gaierror:
    print("no AAAA")'
	assert_eq "$out" "no AAAA" "(stderr: $err)"
}

test_gate_refuses_another_sni_on_the_allowed_address() {
	gate_world
	# the gate's address, as an allowed name's, with another site's name in TLS
	run_jail "${G[@]}" -- curl -sS -m 20 -k --resolve "evil.test:443:$GATE" https://evil.test/x
	assert_ne "$rc" 0 "curl with another SNI"
	assert_contains "$err" "jail: blocked tls to evil.test through the TLS gate (SNI not allowed on port 443)"
	assert_contains "$err" "jail: network: 1 connection attempt blocked"
	assert_not_contains "$(cat "$T/up.log" 2>/dev/null)" "GET /x"
	# openssl names it another way; still one line naming it
	run_jail "${G[@]}" -- sh -c "openssl s_client -connect $GATE:443 -servername Evil.Test. </dev/null"
	assert_contains "$err" "jail: blocked tls to Evil.Test. through the TLS gate"
	# with the right name in any spelling it goes through
	run_jail "${G[@]}" -- curl -sS -m 20 --cacert ca.crt https://GATE.test./upper
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "ok"
}

test_gate_never_opens_the_names_address() {
	gate_world
	# resolved in the jail first: an address-based allowlist would open
	# $PUB4:443 now, and the connection would go straight to the server
	run_jail "${G[@]}" -- sh -c "getent hosts gate.test >/dev/null
		curl -sS -m 10 -k https://$PUB4/direct"
	assert_ne "$rc" 0 "a connection to the name's real address"
	assert_contains "$err" "jail: blocked tcp $PUB4:443"
	assert_not_contains "$(cat "$T/up.log" 2>/dev/null)" "GET /direct"
}

test_gate_takes_a_hello_in_pieces_and_records() {
	gate_world
	run_jail "${G[@]}" -- sh -c "python3 tls_split.py $GATE 443 gate.test ca.crt writes /w &&
		python3 tls_split.py $GATE 443 gate.test ca.crt records /r"
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "ok 1"
	assert_contains "$out" "ok 2"
	assert_contains "$(cat "$T/up.log")" "GET /r"
}

test_gate_keeps_the_answer_after_the_client_half_closes() {
	gate_world
	run_jail "${G[@]}" -- python3 tls_split.py $GATE 443 gate.test ca.crt halfclose /half
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_eq "$out" "ok 1"
}

test_gate_refuses_plain_http_and_garbage() {
	gate_world
	run_jail "${G[@]}" -- curl -sS -m 20 http://gate.test:443/plain
	assert_ne "$rc" 0
	assert_contains "$err" "jail: blocked a connection to the TLS gate: not a TLS handshake"
	run_jail "${G[@]}" -- python3 -c '
import socket
s = socket.create_connection(("'$GATE'", 443))
s.sendall(bytes([22, 3, 1, 0, 0]))
print("closed" if s.recv(10) == b"" else "open")'
	assert_eq "$out" closed
	assert_contains "$err" "jail: blocked a connection to the TLS gate: a TLS record of bad length"
}

test_gate_ends_a_client_that_never_finishes_its_hello() {
	gate_world
	run_jail "${G[@]}" -- python3 -c '
import socket
s = socket.create_connection(("'$GATE'", 443))
s.settimeout(120)
s.sendall(bytes([22, 3, 1, 1, 0, 1]))
print("closed" if s.recv(10) == b"" else "open")'
	assert_eq "$out" closed "(stderr: $err)"
	assert_contains "$err" "jail: blocked a connection to the TLS gate: no ClientHello in 10 s"
}

test_gate_udp_443_is_refused_so_quic_falls_back() {
	gate_world
	# QUIC to the gate's address finds no one (curl here has no HTTP/3: a
	# client that has falls back to TCP on this refusal)
	run_jail "${G[@]}" -- python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(20)
s.connect(("gate.test", 443))
print(s.getpeername()[0])
s.send(b"\xc0quic-initial")
try:
    s.recv(100)
    print("answered")
except ConnectionRefusedError:
    print("refused")'
	assert_eq "$out" "$GATE
refused" "(stderr: $err)"
}

test_gate_beside_a_brokered_host() {
	gate_world
	export TEST_REAL_KEY=sk-ant-api03-REALkey0123456789abcdefghijklmnopqrstuvwxyz-AAAA
	# the brokered host keeps the broker's address, also when allowed on 443,
	# and the gate does not carry it (its connections end in the broker)
	run_jail "${G[@]}" --allow api.anthropic.com:443 \
		--secret "ANTHROPIC_API_KEY=broker:env:TEST_REAL_KEY for api.anthropic.com" -- sh -c "
		getent ahostsv4 api.anthropic.com | head -1
		getent ahostsv4 gate.test | head -1
		curl -sS -m 20 --cacert ca.crt https://gate.test/beside
		curl -sS -m 20 -k --resolve api.anthropic.com:443:$GATE https://api.anthropic.com/"
	assert_contains "$out" "127.0.0.2 "
	assert_contains "$out" "$GATE "
	assert_contains "$out" "ok 1"
	assert_contains "$err" "jail: blocked tls to api.anthropic.com through the TLS gate"
}

# libssl mapped in the supervisor of a jail that runs (ARGS...) while it
# has carried one request through the gate: "yes" or "no"
ssl_mapped_while_gating() {
	local tag=$1
	shift
	"$JAIL" "${G[@]}" "$@" -- sh -c "curl -sS -m 20 --cacert ca.crt https://gate.test/$tag >/dev/null
		sleep 60" >/dev/null 2>&1 </dev/null &
	local jpid=$!
	wait_for grep -q "GET /$tag" "$T/up.log" || fail "no request through the gate"
	local pids any=no
	# this test's jail only (its project dir): another suite of this user may
	# run the same jail with a brokered secret, libssl mapped, at the same time
	# ($JAIL is a wrapper here: match the arguments; the leading blank keeps
	# the pattern from reading as an option of pgrep)
	local mine=" -D $T/p .*--allow gate.test:443"
	pids=$(pgrep -u "$(id -u)" -f -- "$mine") || fail "no jail process found"
	for p in $pids; do
		grep -q libssl "/proc/$p/maps" 2>/dev/null && any=yes
	done
	kill $pids "$jpid" 2>/dev/null
	wait "$jpid" 2>/dev/null
	wait_for no_process "$mine"
	echo "$any"
}

test_gate_loads_no_openssl() {
	gate_world
	export TEST_REAL_KEY=sk-ant-api03-REALkey0123456789abcdefghijklmnopqrstuvwxyz-AAAA
	assert_eq "$(ssl_mapped_while_gating plain)" no "libssl mapped with no secret brokered"
	# the control: a brokered secret loads it
	assert_eq "$(ssl_mapped_while_gating brokered \
		--secret "K=broker:env:TEST_REAL_KEY for api.anthropic.com")" yes
}

test_name_on_other_ports_keeps_the_address_path() {
	gate_world
	run_jail "${G[@]}" --allow both.test:443 --allow both.test:8443 -- getent ahostsv4 both.test
	assert_contains "$out" "$PUB4"
	# and a gated name's private answer is still not connected to
	run_jail "${G[@]}" --allow lan.test:443 -- curl -sS -m 20 -k https://lan.test/
	assert_ne "$rc" 0
	assert_contains "$err" "TLS gate: lan.test: cannot connect (its address is"
}

# A server that answers every first ClientHello with a HelloRetryRequest
# (tests/helpers/tls_hrr.py) behind gate.test, and the jail's options.
hrr_world() {
	net_world
	bg in_s python3 "$HELPERS/tls_hrr.py" server 0.0.0.0 443 "$T/port" "$T/up.log"
	bg in_w python3 "$HELPERS/dns_server.py" "$T/dnsport" "$T/dns.log" \
		"gate.test=$PUB4" "evil.test=$PUB4"
	wait_file "$T/port"
	wait_file "$T/dnsport"
	mkrepo "$T/p"
	cp "$HELPERS/tls_hrr.py" "$T/p/tls_hrr.py"
	H=(-D "$T/p" --net allow --dns-upstream "127.0.0.1:$(cat "$T/dnsport")"
		--allow gate.test:443)
}

test_gate_checks_the_hello_after_a_retry_request() {
	hrr_world
	# TLS 1.3's second ClientHello is in the clear too, and a front end may
	# pick the site by it: it must name the same host
	run_jail "${H[@]}" -- python3 tls_hrr.py client $GATE 443 retry gate.test GATE.test.
	assert_eq "$out" "hrr
closed" "(stderr: $err)"
	wait_for grep -q "hello2 GATE.test." "$T/up.log"
	run_jail "${H[@]}" -- python3 tls_hrr.py client $GATE 443 retry gate.test evil.test
	assert_contains "$out" "hrr"
	assert_contains "$err" "jail: blocked tls to evil.test through the TLS gate (a second ClientHello, after a HelloRetryRequest, named another host than gate.test)"
	# sent before the retry request came: the gate holds it until then
	run_jail "${H[@]}" -- python3 tls_hrr.py client $GATE 443 pipelined gate.test evil.test
	assert_contains "$err" "jail: blocked tls to evil.test through the TLS gate (a second ClientHello"
	# in the first hello's record: a server reads it as the next message
	run_jail "${H[@]}" -- python3 tls_hrr.py client $GATE 443 samerecord gate.test evil.test
	assert_contains "$err" "jail: blocked a connection to the TLS gate: a ClientHello not alone in its TLS record"
	assert_not_contains "$(cat "$T/up.log")" "hello2 evil.test"
	assert_contains "$(cat "$T/up.log")" "hello1 gate.test"
}

test_gate_never_connects_to_the_hosts_loopback() {
	net_world
	bg in_w python3 "$HELPERS/tls_hrr.py" server 127.0.0.1 443 "$T/port" "$T/host.log"
	bg in_w python3 "$HELPERS/dns_server.py" "$T/dnsport" "$T/dns.log" \
		"loop.test=127.0.0.1" "loop6.test=::1" "any.test=0.0.0.0"
	wait_file "$T/port"
	wait_file "$T/dnsport"
	mkrepo "$T/p"
	cp "$HELPERS/tls_hrr.py" "$T/p/tls_hrr.py"
	# an address named literally is one the jail reaches; 127.0.0.1 there is
	# the jail's own loopback, but the gate connects from the host's
	local name
	for name in loop.test loop6.test any.test; do
		run_jail -D "$T/p" --net allow --dns-upstream "127.0.0.1:$(cat "$T/dnsport")" \
			--allow $name:443 --allow 127.0.0.1:443 --allow '[::1]:443' --allow 0.0.0.0:443 \
			-- python3 tls_hrr.py client $GATE 443 retry $name $name
		assert_contains "$err" "TLS gate: $name: cannot connect (its address is"
	done
	assert_not_contains "$(cat "$T/host.log" 2>/dev/null)" "hello1"
}

test_gate_takes_a_literal_address_only_on_443() {
	gate_world
	# a private address named with another port opens that port only: the
	# address path never reached its 443, nor may the gate
	run_jail "${G[@]}" --allow lan.test:443 --allow "$LAN4:8443" -- \
		curl -sS -m 20 -k https://lan.test/lan8443
	assert_ne "$rc" 0
	assert_contains "$err" "TLS gate: lan.test: cannot connect (its address is private)"
	assert_not_contains "$(cat "$T/up.log" 2>/dev/null)" "GET /lan8443"
	# named on 443 it is the user's to reach
	run_jail "${G[@]}" --allow lan.test:443 --allow "$LAN4:443" -- \
		curl -sS -m 20 -k https://lan.test/lan443
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$(cat "$T/up.log")" "GET /lan443"
}

test_gate_carries_a_real_hello_retry() {
	net_world
	make_ca "$T/ca" gate.test
	# a server that takes P-256 only: curl's first hello offers an X25519
	# key share, so the server asks again (HelloRetryRequest)
	bg in_s sh -c 'exec openssl s_server -accept 443 -cert "$1/ca/srv.crt" \
		-key "$1/ca/srv.key" -groups P-256 -tls1_3 -www -trace >"$1/srv.log" 2>&1' sh "$T"
	bg in_w python3 "$HELPERS/dns_server.py" "$T/dnsport" "$T/dns.log" "gate.test=$PUB4"
	wait_file "$T/dnsport"
	wait_for in_s sh -c "ss -ltn | grep -q ':443 '"
	mkrepo "$T/p"
	cp "$T/ca/ca.crt" "$T/p/ca.crt"
	run_jail -D "$T/p" --net allow --dns-upstream "127.0.0.1:$(cat "$T/dnsport")" \
		--allow gate.test:443 -- curl -sS -m 20 -v --cacert ca.crt https://gate.test/
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "s_server"
	assert_contains "$err" "TLSv1.3"
	assert_not_contains "$err" "blocked"
	# the server's trace: the first hello, its retry request, the second
	assert_eq "$(grep -c 'ClientHello, Length' "$T/srv.log")" 2 "$(cat "$T/srv.log")"
}

test_gate_never_connects_to_the_hosts_own_address() {
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
			--allow $name:443 -- python3 tls_hrr.py client $GATE 443 retry $name $name
		assert_contains "$err" "TLS gate: $name: cannot connect (its address is the host)"
	done
	assert_not_contains "$(cat "$T/host.log" 2>/dev/null)" "hello1"
}
