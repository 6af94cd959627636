# The broker attacked as the agent would, a third round (src/broker/): learn
# the real key, or part of it, from what the broker gives the jail or
# answers.  Each test of a hole fails on the build before its fix.  The
# world is broker.sh's (broker_world.bash): a TLS upstream on a namespace's
# loopback standing in for the brokered host, quoting requests back.
source "$TESTS/integration/broker_world.bash"

# A key whose random part holds a '-' or '_' within its first 16 characters
# (a UUID, as many APIs issue; an sk-proj- key, one in five) kept in its
# placeholder everything up to that character: the jail's variable held a
# UUID key's first 12 hex digits as they are, 48 of its 122 random bits.
# Now only the format's words are kept (sk-ant-api03-, ghp_); a UUID has
# none, and its placeholder shares its characters by chance only.
test_broker_placeholder_keeps_no_random_characters() {
	broker_world
	local uuid=9f3c2a71-e4b8-4d05-a6c9-1b7e35d80f42
	export TEST_UUID_KEY=$uuid
	run_jail "${B[@]}" --secret "UUID_KEY=broker:env:TEST_UUID_KEY for $HOSTNAME_B" -- sh -c '
		printf "%s\n" "$UUID_KEY"
		curl -sS -m 20 -H "x-api-key: $UUID_KEY" https://api.anthropic.com/echo'
	assert_eq "$rc" 0 "(stderr: $err)"
	local ph
	ph=$(printf '%s\n' "$out" | head -n 1)
	assert_eq "${#ph}" "${#uuid}" "placeholder length"
	assert_ne "${ph:0:13}" "${uuid:0:13}" "the UUID's first groups are not in the placeholder"
	# the key went upstream, and none of it came back
	assert_contains "$(cat "$T/up.log")" "x-api-key: $uuid" "the upstream got the key"
	assert_not_contains "$out" "$uuid"
	assert_not_contains "$out" "${uuid:0:8}"
}

# The broker read a response to a method spelled "head" in any case as
# HEAD's, with no body, and passed what followed as it came, chunk framing
# and all; but methods are case-sensitive, and a server whose handlers take
# any method (Go's net/http) answers "head" with a body: a chunked echo
# whose chunks ended inside the key reached the client, which joined them.
# Now only "HEAD" is HEAD, and another spelling of it is refused.
test_broker_lowercase_head_is_no_way_past_the_chunk_scrubber() {
	broker_world
	run_jail "${B[@]}" -- sh -c '
		for n in 3 5 7 11; do
			curl -sS -m 20 -X head -H "x-api-key: $ANTHROPIC_API_KEY" \
				https://api.anthropic.com/echo-chunked/$n
		done
		echo; echo done'
	assert_contains "$out" "done" "(stderr: $err)"
	assert_not_contains "$out" "$REAL_KEY"
	assert_not_contains "$out" "REALkey0123"
	assert_not_contains "$(cat "$T/up.log")" "x-api-key: $REAL_KEY" \
		"a request the broker cannot frame the answer of carries no key"
}

# The broker made Accept-Encoding "identity" where the client sent one, and
# sent none where it did not; with none a server may use any coding (RFC
# 9110 12.5.3), and one that gzips an echo hid the key from the scrubber:
# the agent gunzipped it.  A WebSocket upgrade's Connection went as the
# client wrote it, and "Connection: Upgrade, Accept-Encoding" has a front
# end drop the header as hop-by-hop, to the same effect.  Now every request
# goes with "Accept-Encoding: identity", an upgrade with the broker's own
# "Connection: Upgrade".
UNASKED='
	for p in echo-unasked echo-unasked; do
		curl -sS -m 20 $CURL_OPT -o "$HOME/r" -H "x-api-key: $ANTHROPIC_API_KEY" \
			https://api.anthropic.com/$p
		gunzip -c <"$HOME/r" 2>/dev/null || cat "$HOME/r"
	done
	echo done'

test_broker_no_accept_encoding_is_no_way_past_the_scrubber() {
	broker_world
	run_jail "${B[@]}" -- sh -c "$UNASKED"
	unasked_checked
}

test_broker_h2_no_accept_encoding_is_no_way_past_the_scrubber() {
	command -v node >/dev/null || skip "node is missing (the h2 upstream is node's http2)"
	UPSTREAM=h2_echo.js broker_world
	run_jail "${B[@]}" -- env CURL_OPT=--http2 sh -c "$UNASKED"
	assert_contains "$(cat "$T/up.log")" "proto=2.0" "the upstream spoke HTTP/2"
	unasked_checked
}

unasked_checked() {
	assert_contains "$out" "done" "(stderr: $err)"
	assert_contains "$(cat "$T/up.log")" "$REAL_KEY" "the upstream got the key"
	assert_not_contains "$out" "$REAL_KEY"
	assert_not_contains "$out" "REALkey0123"
	assert_contains "$out" "identity" "the request asked for no coding"
}

# A placeholder's characters were each of its key character's kind: a
# random digit for a digit, a small letter for a small letter, a capital
# for a capital.  So the jail's variable showed which of the key's
# characters were which, about 1.5 bits of each of a random key's (140 of
# an Anthropic key's), narrowing any search for the rest.  Now each is
# drawn from all the kinds of its run of letters and digits (a run of
# digits stays digits: a format, not a key's character).
test_broker_placeholder_shows_no_characters_kinds() {
	broker_world
	run_jail "${B[@]}" -- sh -c 'printf "%s\n" "$ANTHROPIC_API_KEY"'
	assert_eq "$rc" 0 "(stderr: $err)"
	local ph kinds_ph kinds_key
	ph=$(printf '%s\n' "$out" | head -n 1)
	assert_eq "${#ph}" "${#REAL_KEY}" "placeholder length"
	kinds_of() { printf '%s' "$1" | tr 'a-z' 'a' | tr 'A-Z' 'A' | tr '0-9' '0'; }
	kinds_ph=$(kinds_of "${ph:13}")
	kinds_key=$(kinds_of "${REAL_KEY:13}")
	assert_ne "$kinds_ph" "$kinds_key" "the placeholder's kinds are not the key's, character by character"
	assert_eq "$(kinds_of "${ph: -5}")" "-AAAA" "'-' and the run of capitals keep their format"
}

# A request's trailers went upstream as they came (reported if they held a
# placeholder), but some servers merge them into the head (Netty's
# aggregator, frameworks on it): a Range there asked for a slice of an
# echo, as the Range the broker drops from heads had, and slices of the key
# too short to be recognised came back, to be joined.  Accept-Encoding or a
# second credential header there would do as much.  Now a request with
# trailer fields is refused (HTTP/1.1: 400; HTTP/2: the stream reset),
# before they go anywhere.
test_broker_request_trailers_are_no_way_past_the_broker() {
	broker_world
	cat >"$T/p/slices.py" <<'PY'
import os, socket, ssl
ctx = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
def ask(trailer):
    s = ctx.wrap_socket(socket.create_connection(("api.anthropic.com", 443)),
                        server_hostname="api.anthropic.com")
    s.sendall(("POST /echo-range-merged HTTP/1.1\r\nHost: api.anthropic.com\r\n"
               "x-api-key: %s\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n%s\r\n"
               % (os.environ["ANTHROPIC_API_KEY"], trailer)).encode())
    data = b""
    while (d := s.recv(65536)):
        data += d
    head, _, body = data.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0], body
status, whole = ask("")
print("whole:", status.decode(), len(whole))
pieces = []
for a in range(0, len(whole), 6):
    status, body = ask("Range: bytes=%d-%d\r\n" % (a, a + 5))
    pieces.append(body)
print("slices:", status.decode())
print(b"".join(pieces).decode("latin-1"))
PY
	run_jail "${B[@]}" -- python3 slices.py
	assert_contains "$out" "whole: HTTP/1.1 200" "(stderr: $err)"
	assert_contains "$(cat "$T/up.log")" "x-api-key: $REAL_KEY" "the upstream got the key"
	assert_not_contains "$out" "$REAL_KEY"
	assert_not_contains "$out" "REALkey0123"
	assert_not_contains "$out" " 206" "no slice of an answer"
}

# Over HTTP/2 the broker replaced a real value in each response header's
# value, not in its name (over HTTP/1.1 every byte of a head passes the
# scrubber): a server that names a header after what it was sent (x-VALUE)
# handed the agent a key that HTTP/2's lower-case names can spell (a UUID's
# hex).  Now names are scrubbed too.
test_broker_h2_header_name_carries_no_key() {
	command -v node >/dev/null || skip "node is missing (the h2 upstream is node's http2)"
	UPSTREAM=h2_echo.js broker_world
	local uuid=9f3c2a71-e4b8-4d05-a6c9-1b7e35d80f42
	export TEST_UUID_KEY=$uuid
	run_jail "${B[@]}" --secret "UUID_KEY=broker:env:TEST_UUID_KEY for $HOSTNAME_B" -- sh -c '
		curl -sS -m 20 --http2 -D - -H "x-api-key: $UUID_KEY" https://api.anthropic.com/echo-as-name
		echo done'
	assert_contains "$out" "done" "(stderr: $err)"
	assert_contains "$(cat "$T/up.log")" "$uuid" "the upstream got the key"
	assert_not_contains "$out" "$uuid"
	assert_not_contains "$out" "${uuid:9:14}"
}
