# The broker attacked as the agent would, a second round (src/broker/): learn
# the real key from how the broker treats what the agent sends, or use it
# where it was not meant to go.  Each test of a hole fails on the build
# before its fix.  The world is broker.sh's (broker_world.bash): a TLS
# upstream on a namespace's loopback standing in for the brokered host.
source "$TESTS/integration/broker_world.bash"

# GUESSES: for j = 1..16, POST the key's public prefix and its first j
# characters past it (given as $1: the test knows them, an attacker would
# try each in turn) to an upstream that answers with the body, then the
# same with the j-th character wrong; one line each:
# "j=J right=SAME|CHANGED|NONE wrong=...".
GUESSES='
	pre=${ANTHROPIC_API_KEY%"${ANTHROPIC_API_KEY#sk-ant-api03-}"}
	echo_of() { curl -sS -m 20 $CURL_OPT --data-binary "$1" https://api.anthropic.com/echo-body 2>/dev/null; }
	verdict() {
		r=$(echo_of "$1")
		if [ -z "$r" ]; then echo NONE; elif [ "$r" = "$1" ]; then echo SAME; else echo CHANGED; fi
	}
	j=1
	while [ $j -le 16 ]; do
		known=$(printf %s "$1" | head -c $((j - 1)))
		right=$pre$known$(printf %s "$1" | cut -c$j)
		wrong=$pre${known}Q
		echo "j=$j right=$(verdict "$right") wrong=$(verdict "$wrong")"
		j=$((j + 1))
	done'

# An upstream that answers with what it was sent (a file the agent stored
# and reads back raw, an echo endpoint), ending where the agent's bytes end:
# the scrubber held the last characters when they began the real key past
# its public prefix, and at the stream's end sent them as the placeholder's;
# a wrong guess came back as it was.  So each answer told whether a guessed
# character continued the key: the whole key, one character per few dozen
# requests.  Now a possible value past SCRUB_GUESS_MAX characters that turns
# out not to be one (cut short, or going on otherwise) ends the connection
# with nothing of it, and the broker serves the secret's hosts no more in
# this run: guesses confirm at most the first few characters.
test_broker_echo_ending_in_a_guess_is_no_oracle() {
	broker_world
	run_jail "${B[@]}" -- sh -c "$GUESSES" sh "${REAL_KEY#sk-ant-api03-}"
	no_oracle_past_the_bound
}

# The same over HTTP/2: a stream's end let the held bytes go as the
# placeholder's.
test_broker_h2_echo_ending_in_a_guess_is_no_oracle() {
	command -v node >/dev/null || skip "node is missing (the h2 upstream is node's http2)"
	UPSTREAM=h2_echo.js broker_world
	run_jail "${B[@]}" -- env CURL_OPT=--http2 sh -c "$GUESSES" sh "${REAL_KEY#sk-ant-api03-}"
	assert_contains "$(cat "$T/up.log")" "proto=2.0" "the upstream spoke HTTP/2"
	no_oracle_past_the_bound
}

# The probes' verdicts: a right and a wrong guess alike past SCRUB_GUESS_MAX
# (8) characters, and the user told.
no_oracle_past_the_bound() {
	assert_contains "$out" "j=16 " "every probe ran (stderr: $err)"
	assert_contains "$(cat "$T/up.log")" "POST /echo-body" "the upstream was reached"
	local j line right wrong
	for j in 9 10 11 12 13 14 15 16; do
		line=$(grep "^j=$j " <<<"$out")
		right=${line#* right=}
		right=${right%% *}
		wrong=${line#* wrong=}
		assert_eq "$right" "$wrong" "a right and a wrong guess of character $j answer alike ($line)"
	done
	assert_contains "$err" "a guess at ANTHROPIC_API_KEY" "the user is told (stderr: $err)"
}

# A connection made before the broker saw a guess, its request not yet sent,
# still carried the key after it and answered as before: one more guess per
# connection held open beforehand (a right guess held through a pause, a
# wrong one cut at once).  Now every connection open then ends too.
test_broker_connection_opened_before_a_guess_ends_with_it() {
	broker_world
	cat >"$T/p/early.py" <<'PY'
import os, socket, ssl, subprocess, sys
ctx = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
s = ctx.wrap_socket(socket.create_connection(("api.anthropic.com", 443)),
                    server_hostname="api.anthropic.com")
s.settimeout(20)
ph = os.environ["ANTHROPIC_API_KEY"]
guess = ph[:13] + sys.argv[1][:9]
r = subprocess.run(["curl", "-sS", "-m", "20", "--data-binary", guess,
                    "https://api.anthropic.com/echo-body"], capture_output=True)
print("probe:", r.returncode, r.stdout.decode(errors="replace"))
try:
    s.sendall(b"GET /late HTTP/1.1\r\nHost: api.anthropic.com\r\nx-api-key: %s\r\n\r\n" % ph.encode())
    print("late:", s.recv(4096).decode(errors="replace"))
except OSError as e:
    print("late:", e)
PY
	run_jail "${B[@]}" -- python3 early.py "${REAL_KEY#sk-ant-api03-}"
	assert_contains "$out" "probe:" "(stderr: $err)"
	assert_contains "$(cat "$T/up.log")" "POST /echo-body" "the guess reached the upstream"
	assert_contains "$err" "a guess at ANTHROPIC_API_KEY"
	assert_not_contains "$(cat "$T/up.log")" "/late"
	assert_not_contains "$(cat "$T/up.log")" "$REAL_KEY"
	assert_not_contains "$out" "ok "
}

# An Upgrade to another protocol than WebSocket (h2c, which an HTTP/2
# server behind TLS may still take; TLS inside TLS, RFC 2817) was forwarded:
# the host then answers the very request that carried the key in the new
# protocol, which the scrubber does not read (HPACK's Huffman code, an inner
# TLS layer the agent ends itself), so an echo of that request gave the agent
# the key.  Now only a WebSocket upgrade goes on (its frames are read); any
# other Upgrade header stays back and the request goes as a plain one.
test_broker_upgrade_to_an_unread_protocol_is_not_forwarded() {
	broker_world
	run_jail "${B[@]}" -- sh -c '
		for p in h2c TLS/1.2; do
			curl -sS -m 20 -D - -H "Upgrade: $p" -H "Connection: Upgrade" \
				-H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/upgrade-echo
		done > got.txt
		cat got.txt
		grep -o "^[0-9a-f]\{40,\}" got.txt | while read -r h; do
			python3 -c "import sys; print(bytes.fromhex(sys.argv[1]).decode())" "$h"
		done'
	assert_contains "$(cat "$T/up.log")" "$REAL_KEY" "the upstream got the key (stderr: $err)"
	assert_not_contains "$out" "REALkey"
	assert_contains "$out" "not upgraded"
	assert_not_contains "$out" "101"
	assert_not_contains "$out" "REALkey"
	assert_not_contains "$(tr A-Z a-z <"$T/up.log")" "upgrade: h2c"
}

# A response head over 64 KiB (here a host that repeats a request header
# in its answer) made the broker pass the rest as it came, a chunked body's
# framing and all: an echo in one-byte chunks put framing between every two
# bytes of the key, which the scrubber never saw whole, and the agent's
# client, which drops the framing, had it.  A head the broker cannot read
# to its end now ends the connection there.
test_broker_oversized_response_head_does_not_unframe_the_key() {
	broker_world
	run_jail "${B[@]}" -- sh -c '
		pad=$(head -c 14000 /dev/zero | tr "\0" x)
		curl -sS -m 20 -H "X-Pad: $pad" -H "x-api-key: $ANTHROPIC_API_KEY" \
			https://api.anthropic.com/echo-chunked/1 | grep -a -v "^X-Pad"
		echo "exit=$?"'
	assert_contains "$(cat "$T/up.log")" "$REAL_KEY" "the upstream got the key (stderr: $err)"
	assert_contains "$out" "exit=" "(stderr: $err)"
	assert_not_contains "$out" "REALkey"
	assert_contains "$err" "could not be read to its end"
}

# A brokered secret read from a file the jail can read too (in the project,
# below a bound path) gave the agent the real value beside its placeholder:
# `cat api_key.txt`.  Such a file is now refused at the start, as a real
# value passed as a variable as well is.
test_broker_secret_file_the_jail_can_read_is_refused() {
	broker_world
	printf '%s\n' "$REAL_KEY" >"$T/p/api_key.txt"
	mkdir -p "$T/keys"
	printf '%s\n' "$REAL_KEY" >"$T/keys/anthropic"
	local base=(-D "$T/p" --net allow --dns-upstream 127.0.0.1:9)
	expect_fail125 "${base[@]}" --secret "ANTHROPIC_API_KEY=broker:file:$T/p/api_key.txt for $HOSTNAME_B" \
		-- cat api_key.txt
	assert_contains "$err" "api_key.txt"
	assert_not_contains "$out" "REALkey"
	expect_fail125 "${base[@]}" --ro "$T/keys" \
		--secret "ANTHROPIC_API_KEY=broker:file:$T/keys/anthropic for $HOSTNAME_B" -- cat "$T/keys/anthropic"
	assert_contains "$err" "--ro"
	assert_not_contains "$out" "REALkey"
	# kept apart, it is brokered as before
	run_jail "${base[@]}" --secret "ANTHROPIC_API_KEY=broker:file:$T/keys/anthropic for $HOSTNAME_B" \
		-- sh -c 'curl -sS -m 20 -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/x'
	assert_contains "$out" "ok 1" "(stderr: $err)"
	assert_contains "$(cat "$T/up.log")" "$REAL_KEY"
}

# init is a copy of the supervisor, its command line too, and anything in the
# jail reads /proc/1/cmdline (no ptrace access needed, unlike environ): a
# brokered secret's cmd: source, which may hold a token (here the key
# itself, as a shell would expand "$KEY" into it), and the paths of every
# source.  init now zeroes that copy once the command runs.
test_broker_secret_source_is_not_in_inits_command_line() {
	broker_world
	run_jail -D "$T/p" --net allow --dns-upstream 127.0.0.1:9 \
		--secret "ANTHROPIC_API_KEY=broker:cmd:printf %s $REAL_KEY for $HOSTNAME_B" \
		-- sh -c 'tr "\0" " " </proc/1/cmdline; echo; echo "placeholder=$ANTHROPIC_API_KEY"
			curl -sS -m 20 -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/x'
	assert_contains "$out" "placeholder=sk-ant-api03-" "(stderr: $err)"
	assert_contains "$out" "ok 1" "brokered as before"
	assert_contains "$(cat "$T/up.log")" "$REAL_KEY"
	assert_not_contains "$out" "REALkey"
	assert_not_contains "$out" "broker:cmd"
}
