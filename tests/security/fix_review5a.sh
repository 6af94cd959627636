# The escape suite, a fifth review (a) of the last round's defences by a
# fresh attacker: each test is a way around one of them.  A test of a hole
# fails on the build before its fix.  The world is broker.sh's
# (broker_world.bash): a TLS upstream on a namespace's loopback standing in
# for the brokered host, quoting requests back.
source "$TESTS/integration/broker_world.bash"

# ATTACK: the broker asks every request for "Accept-Encoding: identity",
# but that is a wish (RFC 9110 12.5.3): an endpoint that gzips whatever was
# asked (httpbin's /gzip, an object stored with Content-Encoding: gzip)
# quoted the key back compressed, past the scrubber, and the agent
# gunzipped it.  Now an answer in a content coding other than identity is
# not passed: HTTP/1.1's is cut after its head, HTTP/2's stream is reset.
GZIPPED='
	curl -sS -m 20 $CURL_OPT -o "$HOME/r" -H "x-api-key: $ANTHROPIC_API_KEY" \
		https://api.anthropic.com/echo-gzipped
	gunzip -c <"$HOME/r" 2>/dev/null || cat "$HOME/r"
	echo done'

gzipped_checked() {
	assert_contains "$out" "done" "(stderr: $err)"
	assert_contains "$(cat "$T/up.log")" "$REAL_KEY" "the upstream got the key"
	assert_not_contains "$out" "$REAL_KEY"
	assert_not_contains "$out" "REALkey0123"
}

test_broker_gzip_whatever_asked_is_no_way_past_the_scrubber() {
	broker_world
	run_jail "${B[@]}" -- sh -c "$GZIPPED"
	gzipped_checked
}

test_broker_h2_gzip_whatever_asked_is_no_way_past_the_scrubber() {
	command -v node >/dev/null || skip "node is missing (the h2 upstream is node's http2)"
	UPSTREAM=h2_echo.js broker_world
	run_jail "${B[@]}" -- env CURL_OPT=--http2 sh -c "$GZIPPED"
	assert_contains "$(cat "$T/up.log")" "proto=2.0" "the upstream spoke HTTP/2"
	gzipped_checked
	assert_contains "$out$err" "content coding" "the broker said why"
}

# An answer that names identity as its coding is read as ever.
test_broker_identity_content_coding_passes() {
	broker_world
	run_jail "${B[@]}" -- sh -c '
		curl -sS -m 20 -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/echo
		echo done'
	assert_contains "$out" "done" "(stderr: $err)"
	assert_contains "$out" "x-api-key:" "the echo came back"
	assert_not_contains "$out" "$REAL_KEY"
}
