# Integration tests for brokered secrets (issue #18): the agent holds a
# placeholder; the supervisor terminates TLS for the brokered host with a
# per-session CA and puts the real value in the credential header only.
#
# Everything runs in a user and network namespace W the test makes (a veth
# with a default route, so pasta has an interface to follow, and nothing
# behind it): the jail's supervisor runs in W, and the "upstream" is a TLS
# server on W's loopback with a certificate for api.anthropic.com from a test
# CA.  The supervisor trusts that CA through SSL_CERT_FILE (OpenSSL's own
# variable for the host's trust store) and reaches the server through
# JAIL_TEST_BROKER_UPSTREAM; the name it verifies stays api.anthropic.com.

HELPERS=$TESTS/helpers
HOSTNAME_B=api.anthropic.com
REAL_KEY=sk-ant-api03-REALkey0123456789abcdefghijklmnopqrstuvwxyz-AAAA

bg() { "$@" & echo $! >>"$T/.pids"; }
cleanup_bg() { [ -f "$T/.pids" ] && kill $(cat "$T/.pids") 2>/dev/null; true; }
wait_file() { wait_for test -s "$1" || fail "did not appear: $1"; }

# broker_world [CERT_NAME] [SERVER_CA_DIR]: W, the upstream, the project;
# $JAIL runs in W with the host trusting $T/ca only.
broker_world() {
	trap cleanup_bg EXIT
	command -v openssl >/dev/null || fail "openssl is missing (scripts/setup installs it)"
	[ -e /dev/net/tun ] || skip "the host has no /dev/net/tun (pasta and slirp4netns need it)"
	make_ca "$T/ca" "${1:-$HOSTNAME_B}"
	local srv=$T/ca
	if [ -n "${2:-}" ]; then make_ca "$2" "$HOSTNAME_B"; srv=$2; fi
	bg unshare -U -n --map-current-user --keep-caps sh -c '
		set -e
		ip link set lo up
		ip link add v0 type veth peer name v1
		ip link set v0 up; ip link set v1 up
		ip addr add 11.22.33.1/24 dev v0
		ip route add default via 11.22.33.254 dev v0
		echo $$ >'"$T"'/.w.tmp; mv '"$T"'/.w.tmp '"$T"'/.w
		exec sleep 1000'
	wait_file "$T/.w"
	W=$(cat "$T/.w")
	bg nsenter --preserve-credentials -U -n -t "$W" \
		python3 "$HELPERS/tls_echo.py" "$T/port" "$srv/srv.crt" "$srv/srv.key" "$T/up.log"
	wait_file "$T/port"
	printf '#!/bin/sh\nexec nsenter --preserve-credentials -U -n -t %s env SSL_CERT_FILE=%s JAIL_TEST_BROKER_UPSTREAM=127.0.0.1:%s %s "$@"\n' \
		"$W" "$T/ca/ca.crt" "$(cat "$T/port")" "$JAIL" >"$T/jail-in-w"
	chmod +x "$T/jail-in-w"
	JAIL=$T/jail-in-w
	mkrepo "$T/p"
	export TEST_REAL_KEY=$REAL_KEY
	B=(-D "$T/p" --net allow --dns-upstream 127.0.0.1:9
		--secret "ANTHROPIC_API_KEY=broker:env:TEST_REAL_KEY for $HOSTNAME_B")
}

test_broker_puts_the_real_key_in_the_header_only() {
	broker_world
	run_jail "${B[@]}" -- sh -c '
		printf "%s\n" "$ANTHROPIC_API_KEY" >key.txt
		curl -sS -m 20 -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/v1/messages &&
		curl -sS -m 20 -H "Authorization: Bearer $ANTHROPIC_API_KEY" https://api.anthropic.com/again'
	assert_eq "$rc" 0 "curl through the broker (stderr: $err)"
	assert_eq "$out" "ok 1
ok 2"
	local log
	log=$(cat "$T/up.log")
	assert_contains "$log" "x-api-key: $REAL_KEY"
	assert_contains "$log" "Authorization: Bearer $REAL_KEY"
	assert_contains "$err" "jail: 2 requests to api.anthropic.com carried your key"
	assert_not_contains "$err" "exfiltration"
}

test_broker_basic_credentials_like_git_sends() {
	broker_world
	# git and curl -u send "Authorization: Basic base64(user:token)"
	run_jail "${B[@]}" -- sh -c 'curl -sS -m 20 -u "x-access-token:$ANTHROPIC_API_KEY" https://api.anthropic.com/r.git/info/refs'
	assert_eq "$rc" 0 "(stderr: $err)"
	local want
	want=$(printf 'x-access-token:%s' "$REAL_KEY" | base64 -w0)
	assert_contains "$(cat "$T/up.log")" "Authorization: Basic $want"
	assert_contains "$err" "jail: 1 request to api.anthropic.com carried your key"
}

test_broker_with_net_open() {
	broker_world
	run_jail -D "$T/p" --net open --dns-upstream 127.0.0.1:9 \
		--secret "ANTHROPIC_API_KEY=broker:env:TEST_REAL_KEY for $HOSTNAME_B" -- \
		sh -c 'curl -sS -m 20 -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/open'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$(cat "$T/up.log")" "x-api-key: $REAL_KEY"
}

test_broker_jail_holds_only_a_placeholder() {
	broker_world
	run_jail "${B[@]}" -- sh -c 'printf "%s\n" "$ANTHROPIC_API_KEY"; env; cat /proc/self/environ /proc/1/environ 2>/dev/null | tr "\0" "\n"'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_not_contains "$out" "$REAL_KEY"
	assert_not_contains "$out" "REALkey"
	local ph
	ph=$(printf '%s\n' "$out" | head -n 1)
	assert_eq "${#ph}" "${#REAL_KEY}" "placeholder length"
	assert_eq "${ph:0:13}" "sk-ant-api03-" "placeholder prefix"
	assert_ne "$ph" "$REAL_KEY"
	# a new placeholder each session
	run_jail "${B[@]}" -- sh -c 'printf "%s\n" "$ANTHROPIC_API_KEY"'
	assert_ne "$out" "$ph" "placeholder of a second session"
	# the session CA and the variables that make clients trust it
	run_jail "${B[@]}" -- sh -c 'echo "$SSL_CERT_FILE $NODE_EXTRA_CA_CERTS $REQUESTS_CA_BUNDLE $CURL_CA_BUNDLE $GIT_SSL_CAINFO"'
	assert_eq "$out" "/etc/jail-ca-certificates.crt /etc/jail-session-ca.crt /etc/jail-ca-certificates.crt /etc/jail-ca-certificates.crt /etc/jail-ca-certificates.crt"
	# clients that read no variable: the system bundle has the session CA too
	run_jail "${B[@]}" -- sh -c 'tail -n 3 /etc/ssl/certs/ca-certificates.crt; cat /etc/jail-session-ca.crt'
	assert_eq "$(printf '%s\n' "$out" | grep -c 'END CERTIFICATE')" 2 "(stderr: $err)"
	# and nothing of the real key in the session's files
	assert_not_contains "$(grep -rl "$REAL_KEY" "$T/p" "$HOME/.local/state/jail" 2>/dev/null || true)" "/"
}

test_broker_placeholder_in_a_body_stays_and_is_reported() {
	broker_world
	run_jail "${B[@]}" -- sh -c '
		curl -sS -m 20 -H "x-api-key: $ANTHROPIC_API_KEY" --data-binary "leak=$ANTHROPIC_API_KEY" https://api.anthropic.com/post &&
		curl -sS -m 20 -H "X-Other: $ANTHROPIC_API_KEY" https://api.anthropic.com/other'
	assert_eq "$rc" 0 "(stderr: $err)"
	local log
	log=$(cat "$T/up.log")
	assert_not_contains "$(grep body= "$T/up.log")" "$REAL_KEY"
	assert_contains "$(grep body= "$T/up.log")" "leak=sk-ant-api03-"
	assert_contains "$(grep X-Other "$T/up.log")" "X-Other: sk-ant-api03-"
	assert_not_contains "$(grep X-Other "$T/up.log")" "$REAL_KEY"
	assert_contains "$err" "possible exfiltration attempt: the placeholder of ANTHROPIC_API_KEY in a request body of a request to api.anthropic.com"
	assert_contains "$err" "the placeholder of ANTHROPIC_API_KEY in the header X-Other"
	assert_contains "$err" "jail: warning: 2 possible exfiltration attempts"
}

test_broker_refuses_domain_fronting_and_trace() {
	broker_world
	# another site behind the same front end would get the key: refused, nothing sent
	run_jail "${B[@]}" -- sh -c '
		curl -sS -m 20 -H "Host: evil.example.net" -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/f
		curl -sS -m 20 -X TRACE -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/t'
	assert_contains "$out" "jail broker: a Host header for another site"
	assert_contains "$out" "jail broker: CONNECT, TRACE or TRACK through a brokered host"
	assert_contains "$err" "jail: warning: broker: a request to api.anthropic.com refused: a Host header for another site"
	[ ! -s "$T/up.log" ] || fail "the upstream got a request: $(cat "$T/up.log")"
}

test_broker_wrong_upstream_certificate_fails_closed() {
	# the upstream's certificate comes from a CA the host does not trust
	broker_world "$HOSTNAME_B" "$T/other"
	run_jail "${B[@]}" -- curl -sS -m 20 -H 'x-api-key: $ANTHROPIC_API_KEY' https://api.anthropic.com/x
	assert_contains "$out" "jail broker: upstream api.anthropic.com refused"
	assert_contains "$err" "jail: warning: broker: api.anthropic.com: its certificate is not trusted"
	assert_eq "$(printf '%s\n' "$err" | grep -c 'not trusted')" 1 "one line saying why"
	[ ! -s "$T/up.log" ] || fail "the upstream got a request: $(cat "$T/up.log")"
}

test_broker_streams_responses_without_buffering() {
	broker_world
	run_jail "${B[@]}" -- sh -c '
		curl -sS -N -m 30 -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/sse >sse.out &
		i=0; until grep -q event-0 sse.out 2>/dev/null; do i=$((i+1)); [ $i -lt 600 ] || exit 3; sleep 0.05; done
		curl -sS -m 20 https://api.anthropic.com/sse-next >/dev/null
		until grep -q event-1 sse.out 2>/dev/null; do i=$((i+1)); [ $i -lt 1200 ] || exit 4; sleep 0.05; done
		curl -sS -m 20 https://api.anthropic.com/sse-next >/dev/null
		wait; cat sse.out'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "data: event-2"
}

test_broker_custom_header() {
	broker_world
	run_jail -D "$T/p" --net allow --dns-upstream 127.0.0.1:9 \
		--secret "GOOG=broker:cmd:printf %s \"\$TEST_REAL_KEY\" for $HOSTNAME_B in X-Goog-Api-Key" -- sh -c '
		curl -sS -m 20 -H "X-Goog-Api-Key: $GOOG" -H "x-api-key: $GOOG" https://api.anthropic.com/g'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$(cat "$T/up.log")" "X-Goog-Api-Key: $REAL_KEY"
	assert_not_contains "$(grep -i '^x-api-key' "$T/up.log")" "$REAL_KEY"
	assert_contains "$err" "the placeholder of GOOG in the header x-api-key"
}

test_broker_jail_ends_with_a_stream_still_open() {
	broker_world
	# the agent leaves while the upstream still streams (and never ends):
	# jail ends the connection instead of waiting for it
	run_jail "${B[@]}" -- sh -c '
		curl -sS -N -m 300 -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/sse >sse.out &
		i=0; until grep -q event-0 sse.out 2>/dev/null; do i=$((i+1)); [ $i -lt 600 ] || exit 3; sleep 0.05; done
		echo streaming'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_eq "$out" streaming
	assert_contains "$err" "jail: 1 request to api.anthropic.com carried your key"
}

test_broker_survives_a_client_that_hangs_up() {
	broker_world
	# the client leaves in the middle of a large response: the broker's next
	# write meets a closed socket (EPIPE, never a SIGPIPE that ends jail)
	run_jail "${B[@]}" -- sh -c '
		for i in 1 2 3; do
			curl -sS -m 60 -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/big/64 2>/dev/null | head -c 10 >/dev/null
		done
		curl -sS -m 20 -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/after'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "ok "
	assert_contains "$err" "jail: 4 requests to api.anthropic.com carried your key"
}

test_broker_other_names_are_not_intercepted() {
	broker_world
	# only the brokered name resolves to the broker; the policy is checked
	run_jail "${B[@]}" -- getent hosts api.anthropic.com
	assert_contains "$out" "127.0.0.2"
	expect_fail125 -D "$T/p" --net allow --secret "K=broker:env:TEST_REAL_KEY for not_a_host!" -- true
	assert_contains "$err" "is not a host name"
	expect_fail125 -D "$T/p" --secret "K=broker:env:TEST_REAL_KEY for api.anthropic.com" -- true
	assert_contains "$err" "brokered secrets need the network"
	# the real value passed in beside its brokered copy: refused
	expect_fail125 "${B[@]}" --env TEST_REAL_KEY -- true
	assert_contains "$err" "secret ANTHROPIC_API_KEY is brokered, but its real value would reach the jail in \$TEST_REAL_KEY too"
}
