# The broker attacked as the agent would (src/broker/): get the real key
# back into the jail, or get the broker to send it elsewhere.  Each test of
# a hole fails on the build before its fix; the others keep what held.
# The world is broker.sh's: a TLS upstream on a namespace's loopback that
# quotes requests back (GET /echo), reached through JAIL_TEST_BROKER_UPSTREAM.
source "$TESTS/integration/broker_world.bash"

# Every base64 spelling of the key in $1 (at each of the 3 offsets in a
# 3-byte group), the characters the key alone decides.
b64_spellings() {
	local a enc pad
	for a in 0 1 2; do
		pad=$(head -c "$a" /dev/zero | tr '\0' x)
		enc=$(printf '%s%s' "$pad" "$REAL_KEY" | base64 -w0)
		# the first characters mix the pad in, the last ones what follows
		printf '%s\n' "${enc:$(( (a * 4 + 2) / 3 + 1 )):40}"
	done
}

# The broker puts the key inside a Basic credential's base64 (git's
# user:token); an upstream quoting the Authorization header back quoted
# base64(user:KEY), which the response scrubber did not look for: the agent
# decoded the key.  Now the key's base64 spellings come back as the
# placeholder's, for any user name (each offset in base64's 3-byte groups).
test_broker_basic_echo_does_not_carry_the_key_in_base64() {
	broker_world
	run_jail "${B[@]}" -- sh -c '
		for u in x xy xyz; do
			curl -sS -m 20 -u "$u:$ANTHROPIC_API_KEY" https://api.anthropic.com/echo
		done'
	assert_contains "$(cat "$T/up.log")" "$(printf 'x:%s' "$REAL_KEY" | base64 -w0)" \
		"the upstream got the key (stderr: $err)"
	assert_contains "$out" "Basic " "the echo came back (stderr: $err)"
	local s b
	while read -r s; do
		assert_not_contains "$out" "$s" "a base64 spelling of the key came back"
	done < <(b64_spellings)
	for b in $(grep -o 'Basic [A-Za-z0-9+/=]*' <<<"$out" | cut -d' ' -f2); do
		assert_not_contains "$(base64 -d <<<"$b" 2>/dev/null)" "REALkey" "decoded from the echo"
	done
}

# The same over HTTP/2, where the echo comes back in header values as well.
test_broker_h2_basic_echo_does_not_carry_the_key_in_base64() {
	command -v node >/dev/null || skip "node is missing (the h2 upstream is node's http2)"
	UPSTREAM=h2_echo.js broker_world
	run_jail "${B[@]}" -- sh -c '
		for u in x xy xyz; do
			curl -sS -m 20 --http2 -D - -u "$u:$ANTHROPIC_API_KEY" https://api.anthropic.com/echo
		done'
	assert_contains "$(cat "$T/up.log")" "$(printf 'x:%s' "$REAL_KEY" | base64 -w0)" \
		"the upstream got the key (stderr: $err)"
	assert_contains "$out" "HTTP/2 400" "(stderr: $err)"
	local s b
	while read -r s; do
		assert_not_contains "$out" "$s" "a base64 spelling of the key came back"
	done < <(b64_spellings)
	for b in $(grep -o 'Basic [A-Za-z0-9+/=]*' <<<"$out" | cut -d' ' -f2); do
		assert_not_contains "$(base64 -d <<<"$b" 2>/dev/null)" "REALkey" "decoded from the echo"
	done
}

# A pause inside the key (a TLS record's end, then the network's delay or a
# zero TCP window the agent made by not reading): the scrubber let what it
# held go after 200 ms, and those were the key's bytes past its public
# prefix; placing the pause (a padding header) the agent could read all but
# the last characters.  What goes on a pause is now the placeholder's bytes,
# and the rest of the key is still replaced as it comes.
test_broker_pause_inside_an_echoed_key_releases_no_real_bytes() {
	broker_world
	run_jail "${B[@]}" -- sh -c '
		curl -sS -N -m 30 -o echo.txt -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/echo-pause &
		i=0
		until grep -q "x-api-key: sk-ant-api03-.......\$" echo.txt 2>/dev/null; do
			i=$((i + 1)); [ $i -lt 300 ] || { echo "no partial echo"; break; }
			sleep 0.1
		done
		cat echo.txt; echo; echo ---
		curl -sS -m 20 https://api.anthropic.com/sse-next >/dev/null
		wait
		cat echo.txt
		printf "ph=%s\n" "$ANTHROPIC_API_KEY"'
	assert_contains "$(cat "$T/up.log")" "$REAL_KEY" "the upstream got the key (stderr: $err)"
	assert_not_contains "$out" "no partial echo"
	assert_not_contains "$out" "REALkey"
	local ph=${out##*ph=}
	assert_contains "$out" "x-api-key: $ph" "the whole echo is the placeholder"
}

# The scrubber sees whole values only: an upstream that quotes the request
# back and serves byte ranges of its answers (as caches do) handed out the
# key in slices, each too short to be the key (Range: bytes=N-M past the
# public prefix).  Requests to a brokered host now go without Range, so
# every answer is whole.
test_broker_range_of_an_echo_is_never_a_slice_of_the_key() {
	broker_world
	run_jail "${B[@]}" -- sh -c '
		# the whole echo, with a Range header of the same length as the next
		full=$(curl -sS -m 20 -r 000-999 -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/echo-range)
		at=$(printf "%s" "$full" | grep -bo "x-api-key: " | cut -d: -f1)
		from=$((at + 11 + 13))
		range=$(printf %03d-%03d "$from" $((from + 30)))
		curl -sS -m 20 -D - -r "$range" -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/echo-range'
	assert_contains "$(cat "$T/up.log")" "$REAL_KEY" "the upstream got the key (stderr: $err)"
	assert_not_contains "$out" "REALkey"
	assert_not_contains "$out" "HTTP/1.1 206"
	assert_not_contains "$(tr A-Z a-z <"$T/up.log")" "range:"
}

# The same over HTTP/2: the stream's Range goes nowhere, the rest as it was.
test_broker_h2_range_goes_nowhere() {
	command -v node >/dev/null || skip "node is missing (the h2 upstream is node's http2)"
	UPSTREAM=h2_echo.js broker_world
	run_jail "${B[@]}" -- sh -c '
		curl -sS -m 20 --http2 -D - -r 100-130 -H "x-api-key: $ANTHROPIC_API_KEY" -H "x-after: yes" https://api.anthropic.com/echo'
	assert_contains "$out" "HTTP/2 400" "(stderr: $err)"
	local log
	log=$(tr A-Z a-z <"$T/up.log")
	assert_contains "$log" "x-api-key: $(tr A-Z a-z <<<"$REAL_KEY")" "the upstream got the key"
	assert_contains "$log" "x-after: yes"
	assert_not_contains "$log" "range"
	assert_not_contains "$out" "REALkey"
}

# An Upgrade request the upstream does not take (it answers 200 and keeps
# the connection): the broker had switched to passing the jail's bytes as
# they come right after the head, so a second request followed on the same
# connection unread, naming another site (domain fronting past the allowlist
# and the Host check) or a method the broker refuses.  Now the jail's bytes
# after an Upgrade request wait for the upstream's answer: a 101 opens the
# stream, anything else ends the exchange as for any request.
test_broker_upgrade_not_taken_carries_no_second_request() {
	broker_world
	cat >"$T/p/pipe.py" <<'PY'
import os, socket, ssl
ctx = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
s = ctx.wrap_socket(socket.create_connection(("api.anthropic.com", 443)),
                    server_hostname="api.anthropic.com")
s.settimeout(20)
s.sendall(b"GET /first HTTP/1.1\r\nHost: api.anthropic.com\r\nx-api-key: %s\r\n"
          b"Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n" % os.environ["ANTHROPIC_API_KEY"].encode())
data = b""
while b"ok 1\n" not in data:
    d = s.recv(4096)
    if not d:
        break
    data += d
print(data.decode(errors="replace"))
try:
    s.sendall(b"GET /second HTTP/1.1\r\nHost: other.example\r\nConnection: close\r\n\r\n")
    print("second:", s.recv(4096).decode(errors="replace"))
except OSError as e:
    print("second:", e)
PY
	run_jail "${B[@]}" -- python3 pipe.py
	assert_contains "$out" "ok 1" "the first request was answered (stderr: $err)"
	assert_contains "$(cat "$T/up.log")" "GET /first"
	assert_not_contains "$(cat "$T/up.log")" "/second"
	assert_not_contains "$(cat "$T/up.log")" "other.example"
	assert_not_contains "$out" "ok 2"
}

# An upgrade the upstream takes goes on as before: what the client sent
# before the 101 (it waited) and after it both reach the upstream.
test_broker_upgrade_taken_passes_the_stream() {
	broker_world
	cat >"$T/p/ws.py" <<'PY'
import os, socket, ssl
ctx = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
s = ctx.wrap_socket(socket.create_connection(("api.anthropic.com", 443)),
                    server_hostname="api.anthropic.com")
s.settimeout(20)
s.sendall(b"GET /ws HTTP/1.1\r\nHost: api.anthropic.com\r\nx-api-key: %s\r\n"
          b"Upgrade: websocket\r\nConnection: Upgrade\r\n\r\nearly-" % os.environ["ANTHROPIC_API_KEY"].encode())
data = b""
while b"\r\n\r\n" not in data:
    data += s.recv(4096)
s.sendall(b"late")
while b"early-late" not in data:
    d = s.recv(4096)
    if not d:
        break
    data += d
print(data.decode(errors="replace"))
PY
	run_jail "${B[@]}" -- python3 ws.py
	assert_contains "$out" "HTTP/1.1 101" "(stderr: $err)"
	assert_contains "$out" "early-late"
	assert_contains "$(cat "$T/up.log")" "x-api-key: $REAL_KEY"
}
