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

source "$TESTS/integration/broker_world.bash"

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

# only METHOD PATH, ...: git's fetch anywhere, its push to one repository.
# curl sends the placeholder as git does (Basic user:token); a request its
# rules allow gets the real key, another the placeholder and one warning, and
# a target spelled to fool the matcher is refused before the upstream.
test_broker_rules_per_method_and_path() {
	broker_world
	B=("${B[@]:0:${#B[@]}-1}" "ANTHROPIC_API_KEY=broker:env:TEST_REAL_KEY for $HOSTNAME_B only GET *, POST */git-upload-pack, POST /me/app.git/git-receive-pack")
	run_jail "${B[@]}" -- sh -c '
		c() { curl -sS -m 20 -u "x-access-token:$ANTHROPIC_API_KEY" "$@"; }
		c "https://api.anthropic.com/other/repo.git/info/refs?service=git-receive-pack" &&
		c --data-binary push1 https://api.anthropic.com/me/app.git/git-receive-pack &&
		c --data-binary push2 "https://api.anthropic.com/other/repo.git/git-receive-pack?x=/me/app.git/git-receive-pack" &&
		c --path-as-is -o /dev/null -w "%{http_code}\n" --data-binary push3 \
			https://api.anthropic.com/me/app.git/%2e%2e/%2e%2e/other/repo.git/git-receive-pack &&
		c --path-as-is -o /dev/null -w "%{http_code}\n" --data-binary push4 \
			https://api.anthropic.com/me/app.git/../../other/repo.git/git-receive-pack'
	assert_eq "$rc" 0 "curl through the broker (stderr: $err)"
	assert_eq "$out" "ok 1
ok 2
ok 3
400
400"
	local real req
	real="Authorization: Basic $(printf 'x-access-token:%s' "$REAL_KEY" | base64 -w0)"
	req() { awk -v RS= -v p="$1" 'index($0, p) == 1' "$T/up.log"; }
	assert_contains "$(req 'GET /other/repo.git/info/refs?service=git-receive-pack')" "$real"
	assert_contains "$(req 'POST /me/app.git/git-receive-pack')" "$real"
	local other
	other=$(req 'POST /other/repo.git/git-receive-pack')
	assert_contains "$other" "Authorization: Basic "
	assert_not_contains "$other" "$real"
	assert_contains "$other" "body=push2"
	assert_not_contains "$(cat "$T/up.log")" "push3"
	assert_not_contains "$(cat "$T/up.log")" "push4"
	assert_contains "$err" "jail: warning: ANTHROPIC_API_KEY withheld from POST /other/repo.git/git-receive-pack (not in its rules)"
	assert_eq "$(printf '%s\n' "$err" | grep -c 'withheld from')" 1 "one warning (stderr: $err)"
	assert_contains "$err" "refused: a target with a percent-encoded"
	assert_contains "$err" "refused: a target with a '.' or '..' segment"
	assert_contains "$err" "jail: 2 requests to api.anthropic.com carried your key"
	assert_not_contains "$err" "exfiltration"
}

# The same rules with real git over HTTPS: a smart-HTTP server for github.com
# (git http-backend behind TLS) that lets in only the real token, two
# repositories on it, and an agent whose credential helper hands git the
# placeholder, as an agent's GitHub token would be used.  Fetching works
# anywhere and pushing to its own repository; the push elsewhere reaches the
# server with the placeholder alone, so it fails, with one warning.
test_broker_git_fetch_and_push_with_rules() {
	local token=ghp_REALtoken0123456789abcdefghijklmnop r
	for r in me/app other/lib; do
		git_init "$T/seed/$r"
		printf '%s\n' "$r" >"$T/seed/$r/README"
		git -C "$T/seed/$r" add README
		git -C "$T/seed/$r" commit -q -m "start of $r"
		git clone -q --bare "$T/seed/$r" "$T/srv/$r.git"
		git -C "$T/srv/$r.git" config http.receivepack true
	done
	export GIT_SERVER_ROOT=$T/srv GIT_SERVER_TOKEN=$token
	UPSTREAM=git_https.py broker_world github.com
	export GITHUB_TOKEN=$token
	B=(-D "$T/p" --net allow --dns-upstream 127.0.0.1:9
		--secret "GITHUB_TOKEN=broker:env:GITHUB_TOKEN for github.com only GET *, POST */git-upload-pack, POST /me/app.git/git-receive-pack")
	run_jail "${B[@]}" -- sh -c '
		set -e
		printf "%s\n" "$GITHUB_TOKEN"; env; tr "\0" "\n" </proc/self/environ
		cd "$(mktemp -d)"
		g() {
			GIT_TERMINAL_PROMPT=0 git -c user.name=Agent -c user.email=agent@example.com \
				-c credential.helper="!f() { echo username=x-access-token; echo password=\$GITHUB_TOKEN; }; f" "$@"
		}
		g clone -q https://github.com/me/app.git app
		g clone -q https://github.com/other/lib.git lib
		echo "cloned $(cat app/README) $(cat lib/README)"
		echo change >app/change.txt; g -C app add change.txt; g -C app commit -q -m "pushed by the agent"
		g -C app push -q origin HEAD:main
		echo change >lib/change.txt; g -C lib add change.txt; g -C lib commit -q -m "not to be pushed"
		if g -C lib push -q origin HEAD:main; then echo "pushed to other/lib"; else echo "push to other/lib failed"; fi'
	assert_eq "$rc" 0 "git through the broker (stderr: $err)"
	assert_contains "$out" "cloned me/app other/lib"
	assert_contains "$out" "push to other/lib failed"
	# the server's repositories: the one push landed, the other did not
	assert_eq "$(git -C "$T/srv/me/app.git" log -1 --format=%s main)" "pushed by the agent"
	assert_eq "$(git -C "$T/srv/other/lib.git" log -1 --format=%s main)" "start of other/lib"
	assert_contains "$err" "error: RPC failed; HTTP 401"
	assert_contains "$err" "jail: warning: GITHUB_TOKEN withheld from POST /other/lib.git/git-receive-pack (not in its rules)"
	assert_eq "$(printf '%s\n' "$err" | grep -c 'withheld from')" 1 "one warning (stderr: $err)"
	# the jail held the placeholder only
	local ph
	ph=$(printf '%s\n' "$out" | head -n 1)
	assert_ne "$ph" "$token"
	assert_eq "${#ph}" "${#token}" "placeholder length"
	assert_contains "$out" "GITHUB_TOKEN=$ph"
	assert_not_contains "$out" "$token"
	assert_not_contains "$out" "REALtoken"
	# the server saw the real token in the Authorization header (decoded to
	# auth=) of allowed requests only, and the placeholder in the refused push
	local log req first
	log=$(cat "$T/up.log")
	req() { awk -v RS= -v p="$1" 'index($0, p) == 1' "$T/up.log"; }
	assert_contains "$(req 'POST /me/app.git/git-receive-pack')" "auth=x-access-token:$token"
	assert_contains "$(req 'POST /other/lib.git/git-upload-pack')" "auth=x-access-token:$token"
	assert_contains "$(req 'POST /other/lib.git/git-receive-pack')" "auth=x-access-token:$ph
"
	assert_not_contains "$(req 'POST /other/lib.git/git-receive-pack')" "$token"
	assert_eq "$(grep -c "$token" "$T/up.log")" "$(grep -c "^auth=x-access-token:$token\$" "$T/up.log")" \
		"the token outside an Authorization header: $log"
	for first in $(awk -v RS= -v t="$token" 'index($0, t) { split($0, l, " "); print l[1] "_" l[2] }' "$T/up.log"); do
		case $first in
		GET_* | POST_*/git-upload-pack | POST_/me/app.git/git-receive-pack) ;;
		*) fail "the real token in a request its rules do not allow: $first" ;;
		esac
	done
	assert_contains "$err" "requests to github.com carried your key"
	assert_not_contains "$err" "exfiltration"
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
	# the session CA and the variables that make clients trust it
	run_jail "${B[@]}" -- sh -c 'echo "$SSL_CERT_FILE $NODE_EXTRA_CA_CERTS $REQUESTS_CA_BUNDLE $CURL_CA_BUNDLE $GIT_SSL_CAINFO"'
	assert_eq "$out" "/etc/jail-ca-certificates.crt /etc/jail-session-ca.crt /etc/jail-ca-certificates.crt /etc/jail-ca-certificates.crt /etc/jail-ca-certificates.crt"
	# clients that read no variable: the system bundle has the session CA too
	run_jail "${B[@]}" -- sh -c 'tail -n 3 /etc/ssl/certs/ca-certificates.crt; cat /etc/jail-session-ca.crt'
	assert_eq "$(printf '%s\n' "$out" | grep -c 'END CERTIFICATE')" 2 "(stderr: $err)"
	# and nothing of the real key in the session's files
	assert_not_contains "$(grep -rl "$REAL_KEY" "$T/p" "$XDG_STATE_HOME/jail" 2>/dev/null || true)" "/"
}

# The same placeholder every run of a session (Claude Code remembers an
# approved key by its last characters), another in another session, for
# another secret, after jail reset --all, and when the value changes shape;
# the state dir holds the placeholders only, mode 0600.
test_broker_placeholder_stays_for_the_session() {
	broker_world
	B+=(--secret "SECOND_KEY=broker:env:TEST_REAL_KEY for $HOSTNAME_B")
	local show='printf "%s %s\n" "$ANTHROPIC_API_KEY" "$SECOND_KEY"' first
	run_jail "${B[@]}" -- sh -c "$show"
	assert_eq "$rc" 0 "(stderr: $err)"
	first=$out
	local ph=${first% *} ph2=${first#* }
	assert_eq "${#ph}" "${#REAL_KEY}" "placeholder length"
	assert_eq "${ph:0:13}" "sk-ant-api03-" "placeholder prefix"
	assert_ne "$ph" "$ph2" "the placeholders of two secrets"
	run_jail "${B[@]}" -- sh -c "$show"
	assert_eq "$out" "$first" "placeholders of the session's second run (stderr: $err)"
	local f
	f=$(session_dir "$T/p")/placeholders
	assert_eq "$(stat -c %a "$f")" 600 "mode of $f"
	assert_eq "$(sort "$f")" "$(printf 'ANTHROPIC_API_KEY=%s\nSECOND_KEY=%s' "$ph" "$ph2")"
	run_jail "${B[@]}" -s other -- sh -c "$show"
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_ne "${out% *}" "$ph" "placeholder of another session"
	assert_ne "${out#* }" "$ph2" "placeholder of another session"
	run_jail reset -D "$T/p" --all
	assert_eq "$rc" 0 "reset --all (stderr: $err)"
	assert_no_file "$f"
	run_jail "${B[@]}" -- sh -c "$show"
	assert_ne "${out% *}" "$ph" "placeholder after jail reset --all (stderr: $err)"
	first=$out
	TEST_REAL_KEY=${REAL_KEY}0 run_jail "${B[@]}" -- sh -c "$show"
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_eq "${#out}" "$((${#first} + 2))" "placeholders of a longer value"
	assert_ne "${out% *}" "${first% *}0" "a new placeholder for a longer value"
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

test_broker_glued_placeholder_is_not_replaced() {
	broker_world
	# an invalid key made of the real one (PHx, "Bearer PH PH") is what an
	# error message might quote back: such a value keeps the placeholder
	run_jail "${B[@]}" -- sh -c '
		curl -sS -m 20 -H "x-api-key: ${ANTHROPIC_API_KEY}x" https://api.anthropic.com/g1 &&
		curl -sS -m 20 -H "Authorization: Bearer $ANTHROPIC_API_KEY $ANTHROPIC_API_KEY" https://api.anthropic.com/g2'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$(cat "$T/up.log")" "GET /g2"
	assert_not_contains "$(cat "$T/up.log")" "$REAL_KEY"
	assert_contains "$err" "the placeholder of ANTHROPIC_API_KEY in the header x-api-key"
	assert_contains "$err" "the placeholder of ANTHROPIC_API_KEY in the header Authorization"
	assert_not_contains "$err" "carried your key"
}

test_broker_reports_do_not_flood_the_terminal() {
	broker_world
	# 30 requests, each with the placeholder in the URL and three times in a header
	run_jail "${B[@]}" -- sh -c '
		set --; for i in $(seq 30); do set -- "$@" "https://api.anthropic.com/$ANTHROPIC_API_KEY/$i"; done
		curl -sS -m 60 -H "X-A: $ANTHROPIC_API_KEY $ANTHROPIC_API_KEY $ANTHROPIC_API_KEY" "$@" >/dev/null'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_eq "$(grep -c 'GET /' "$T/up.log")" 30 "all 30 requests went through"
	assert_eq "$(printf '%s\n' "$err" | grep -c 'possible exfiltration attempt: ')" 20 "the first 20 reports shown"
	assert_contains "$err" "further warnings are only counted"
	assert_contains "$err" "jail: warning: 60 possible exfiltration attempts"
	assert_contains "$err" "jail: warning: broker: 60 warnings in all, 40 of them not shown"
}

test_broker_serves_only_brokered_names() {
	broker_world
	# another name (or none, for an address) at the broker's address: no
	# certificate, no upstream connection
	run_jail "${B[@]}" -- sh -c '
		curl -sS -m 20 --resolve evil.example.net:443:127.0.0.2 https://evil.example.net/a && exit 10
		curl -sS -m 20 -k https://127.0.0.2/b && exit 11
		curl -sS -m 20 --resolve localhost:443:127.0.0.2 -k https://localhost/c && exit 12
		curl -sS -m 20 https://api.anthropic.com/d'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_eq "$(grep -c 'GET /' "$T/up.log")" 1 "only the brokered name reached the upstream"
	assert_contains "$(cat "$T/up.log")" "GET /d"
}

test_broker_survives_hostile_clients() {
	broker_world
	# raw requests a hostile agent might send, each on its own connection
	# (split into tiny TLS records where it matters), then more connections
	# than the broker serves at once: the supervisor refuses what it must,
	# never crashes (run it with BUILD=build-asan too), and serves again
	run_jail "${B[@]}" -- python3 -c '
import os, socket, ssl, sys, time
ph = os.environ["ANTHROPIC_API_KEY"].encode()
H = "api.anthropic.com"
ctx = ssl.create_default_context()
def conn():
    return ctx.wrap_socket(socket.create_connection((H, 443), timeout=20), server_hostname=H)
def send(payload, step=None):
    try:
        c = conn()
        step = step or len(payload)
        for i in range(0, len(payload), step):
            c.sendall(payload[i:i + step])
        data = b""
        while True:
            d = c.recv(65536)
            if not d:
                return data
            data += d
    except (OSError, ssl.SSLError) as e:
        return repr(e).encode()
head = b"Host: " + H.encode() + b"\r\nConnection: close\r\n"
cases = [
    (b"GET /big HTTP/1.1\r\n" + head + b"X: " + b"a" * 70000, b" 431 "),
    (b"POST /clte HTTP/1.1\r\n" + head + b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", b" 400 "),
    (b"POST /te HTTP/1.1\r\n" + head + b"Transfer-Encoding: chunked\r\n\r\n5;\r\r\nhello\r\n0\r\n\r\n", b" 400 "),
    (b"POST /te2 HTTP/1.1\r\n" + head + b"Transfer-Encoding: chunked\r\n\r\n" + b"f" * 16 + b"\r\n", b" 400 "),
    (b"GET /fold HTTP/1.1\r\n" + head + b"x-api-key: a\r\n " + ph + b"\r\n\r\n", b" 400 "),
    (b"GET /lf HTTP/1.1\r\n" + head + b"x-api-key: " + ph + b"\nX: y\r\n\r\n", b" 400 "),
    (b"GET /nul HTTP/1.1\r\n" + head + b"x-api-key: " + ph + b"\0\r\n\r\n", b" 400 "),
    (b"GET /sp HTTP/1.1\r\n" + head + b"x-api-key : " + ph + b"\r\n\r\n", b" 400 "),
    # one request per connection: the second, pipelined, is dropped (and
    # would have been refused: another site)
    (b"GET /a HTTP/1.1\r\nHost: " + H.encode() + b"\r\n\r\nGET /b HTTP/1.1\r\nHost: " + H.encode() + b"\r\nx-api-key: " + ph + b"\r\n\r\n", b"ok "),
    (b"GET /c HTTP/1.1\r\nHost: " + H.encode() + b"\r\n\r\nGET /d HTTP/1.1\r\nHost: localhost\r\n\r\n", b"ok "),
    (b"GET http://127.0.0.1/ HTTP/1.1\r\n" + head + b"x-api-key: " + ph + b"\r\n\r\n", b" 421 "),
    (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", b" 505 "),
    (b"GET /split HTTP/1.1\r\n" + head + b"x-api-key: " + ph + b"\r\n\r\n", b"ok "),
    (b"POST /body HTTP/1.1\r\n" + head + b"Content-Length: " + str(len(ph) + 4).encode() + b"\r\n\r\nkey=" + ph, b"ok "),
]
for payload, want in cases:
    got = send(payload, 3 if len(payload) < 1000 else None)
    if want not in got:
        sys.exit("%r: %r" % (payload[:40], got[:200]))
# more connections than the broker serves at once, idle: it ends the 16
# over its limit of 64 at once, and keeps the others waiting for a handshake
import select
held = [socket.create_connection((H, 443)) for _ in range(80)]
ended = set()
deadline = time.time() + 60
while len(ended) < 16 and time.time() < deadline:
    for s in select.select([s for s in held if s not in ended], [], [], 1)[0]:
        if s.recv(1) == b"":
            ended.add(s)
if len(ended) < 16:  # more if a slot of an earlier case is not free yet
    sys.exit("%d connections ended, not 16" % len(ended))
for s in held:
    s.close()
for i in range(200):
    if b"ok " in send(b"GET /after HTTP/1.1\r\n" + head + b"x-api-key: " + ph + b"\r\n\r\n"):
        print("served again")
        break
    time.sleep(0.1)
'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_eq "$out" "served again"
	local log
	log=$(cat "$T/up.log")
	assert_contains "$log" "GET /split"
	assert_contains "$log" "body=key=sk-ant-api03-"
	# the real key went out in the credential headers of /split and /after only
	assert_eq "$(grep -c "$REAL_KEY" "$T/up.log")" 2 "$log"
	assert_eq "$(grep -c '^x-api-key: ' "$T/up.log")" 2
	assert_not_contains "$log" "GET /b"
	assert_not_contains "$log" "GET /d"
	assert_contains "$log" "Connection: close"
	assert_not_contains "$log" "Connection: keep-alive"
	assert_not_contains "$log" "/clte"
	assert_contains "$err" "the placeholder of ANTHROPIC_API_KEY in a request body"
	# refused requests and connections in a loop do not bury the terminal
	assert_eq "$(printf '%s\n' "$err" | grep -c '^jail: warning: \(broker: [a-z]\|possible\)')" 21 "$err"
	assert_contains "$err" "warnings in all"
}

# Is no thread of process PID running, in ten looks in a row?  (A thread
# that spins is always running; one waiting in poll sleeps.)
threads_asleep() { # PID
	local i t
	for i in 1 2 3 4 5 6 7 8 9 10; do
		for t in /proc/"$1"/task/*/stat; do
			[ "$(sed 's/.*) //' "$t" 2>/dev/null | cut -d' ' -f1)" != R ] || return 1
		done
		sleep 0.05
	done
}

test_broker_does_not_spin_on_a_torn_record() {
	broker_world
	# a request whose body has not all come (the upstream waits for it), then
	# half a TLS record and the end of the stream: OpenSSL could keep the
	# half as pending data, which must not make the relay loop without waiting
	bg "$JAIL" "${B[@]}" -- python3 -c '
import os, socket, ssl, sys, time
H = "api.anthropic.com"
c = ssl.create_default_context().wrap_socket(socket.create_connection((H, 443)), server_hostname=H)
c.sendall(b"POST /torn HTTP/1.1\r\nHost: " + H.encode() + b"\r\nContent-Length: 10\r\n\r\nabc")
os.write(c.fileno(), b"\x17\x03\x03\x00\x64" + b"x" * 50)
c.shutdown(socket.SHUT_WR)
print("torn", flush=True)
time.sleep(120)
' >"$T/torn.out" 2>"$T/torn.err" </dev/null
	local pid
	pid=$(tail -n 1 "$T/.pids")
	wait_for grep -q torn "$T/torn.out"
	wait_for -t 20 threads_asleep "$pid"
	kill "$pid"
}

# ---- HTTP/2 (src/broker/brokerh2.c): an h2-only upstream (h2_echo.js) ----

# One request of the upstream's log: the block that starts with "METHOD PATH".
h2_req() { awk -v RS= -v p="$1" 'index($0, p) == 1' "$T/up.log"; }

# An upstream that quotes the request back (an error message, a debugging
# endpoint) would hand the agent the key: the broker puts the placeholder
# back in every response, in headers and body, however the bytes are split,
# and asks for uncompressed responses so that no encoding hides it.
# echo_checks: $out is the response (headers and body) of GET /echo.
echo_checks() {
	assert_eq "$rc" 0 "curl through the broker (stderr: $err)"
	assert_contains "$(cat "$T/up.log")" "$REAL_KEY" "the upstream got the key"
	assert_not_contains "$out" "$REAL_KEY"
	assert_not_contains "$out" "REALkey0123456789"
	assert_contains "$out" "x-api-key: sk-ant-api03-"
	assert_contains "$(tr A-Z a-z <<<"$out")" "x-echo: sk-ant-api03-"
	assert_contains "$(tr A-Z a-z <"$T/up.log")" "accept-encoding: identity"
	assert_not_contains "$(tr A-Z a-z <<<"$out")" "content-encoding: gzip"
}

test_broker_response_echo_gets_the_placeholder() {
	broker_world
	run_jail "${B[@]}" -- sh -c '
		curl -sS -m 20 --compressed -D - -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/echo
		printf "%s\n" "$ANTHROPIC_API_KEY"'
	echo_checks
	# the echo is the jail's own placeholder, byte for byte
	local ph
	ph=$(tail -n 1 <<<"$out")
	assert_contains "$(head -n -1 <<<"$out")" "x-api-key: $ph"
}

test_broker_h2_response_echo_gets_the_placeholder() {
	command -v node >/dev/null || skip "node is missing (the h2 upstream is node's http2)"
	UPSTREAM=h2_echo.js broker_world
	run_jail "${B[@]}" -- sh -c '
		curl -sS -m 20 --http2 --compressed -D - -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/echo'
	echo_checks
	assert_contains "$out" "HTTP/2 400"
}

test_broker_h2_real_key_in_the_header_only() {
	command -v node >/dev/null || skip "node is missing (the h2 upstream is node's http2)"
	UPSTREAM=h2_echo.js broker_world
	run_jail "${B[@]}" -- sh -c '
		curl -sS -m 20 --http2 -w "%{http_version}\n" -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/v1/messages &&
		curl -sS -m 20 --http2 -u "x-access-token:$ANTHROPIC_API_KEY" https://api.anthropic.com/basic &&
		curl -sS -m 20 --http2 -D - -o /dev/null https://api.anthropic.com/trailers'
	assert_eq "$rc" 0 "curl through the broker (stderr: $err)"
	assert_contains "$out" "ok 1
2
ok 2"
	assert_contains "$out" "x-done: yes"
	local one
	one=$(h2_req "GET /v1/messages")
	assert_contains "$one" "proto=2.0"
	assert_contains "$one" "x-api-key: $REAL_KEY"
	# HPACK: the real value never enters the upstream's dynamic table
	assert_contains "$one" "never-indexed: x-api-key"
	assert_contains "$(h2_req "GET /basic")" "never-indexed: authorization"
	assert_contains "$(h2_req "GET /basic")" \
		"authorization: Basic $(printf 'x-access-token:%s' "$REAL_KEY" | base64 -w0)"
	assert_eq "$(grep -c "$REAL_KEY" "$T/up.log")" 1 "the real key in one header only"
	assert_contains "$err" "jail: 2 requests to api.anthropic.com carried your key"
	assert_not_contains "$err" "exfiltration"
}

test_broker_h2_placeholder_elsewhere_stays_and_is_reported() {
	command -v node >/dev/null || skip "node is missing"
	UPSTREAM=h2_echo.js broker_world
	run_jail "${B[@]}" -- sh -c '
		curl -sS -m 20 --http2 -H "x-api-key: $ANTHROPIC_API_KEY" -H "x-other: $ANTHROPIC_API_KEY" \
			--data-binary "leak=$ANTHROPIC_API_KEY" "https://api.anthropic.com/post?k=$ANTHROPIC_API_KEY"'
	assert_eq "$rc" 0 "(stderr: $err)"
	local req
	req=$(h2_req "POST /post")
	assert_contains "$req" "x-api-key: $REAL_KEY"
	assert_contains "$req" "x-other: sk-ant-api03-"
	assert_contains "$req" "body=leak=sk-ant-api03-"
	assert_contains "$req" "POST /post?k=sk-ant-api03-"
	assert_eq "$(grep -c "$REAL_KEY" "$T/up.log")" 1 "the real key in x-api-key only"
	assert_contains "$err" "the placeholder of ANTHROPIC_API_KEY in the URL"
	assert_contains "$err" "the placeholder of ANTHROPIC_API_KEY in the header x-other"
	assert_contains "$err" "the placeholder of ANTHROPIC_API_KEY in a request body"
	assert_contains "$err" "jail: warning: 3 possible exfiltration attempts"
}

# Several streams on one connection, each with its own rules' verdict and its
# own refusal; one upstream connection carries them all.
test_broker_h2_streams_and_rules_per_stream() {
	command -v node >/dev/null || skip "node is missing"
	UPSTREAM=h2_echo.js broker_world
	B=("${B[@]:0:${#B[@]}-1}" "ANTHROPIC_API_KEY=broker:env:TEST_REAL_KEY for $HOSTNAME_B only GET *, POST /allowed")
	run_jail "${B[@]}" -- sh -c '
		u="x-access-token:$ANTHROPIC_API_KEY"
		curl -sS -m 30 --http2 --parallel --parallel-max 10 \
			-u "$u" https://api.anthropic.com/get1 --next \
			-u "$u" --data-binary a https://api.anthropic.com/allowed --next \
			-u "$u" --data-binary b https://api.anthropic.com/withheld --next \
			-u "$u" -H "Host: evil.example.net" https://api.anthropic.com/fronted --next \
			-u "$u" https://api.anthropic.com/get2'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "jail broker: a request for another site"
	local real
	real="authorization: Basic $(printf 'x-access-token:%s' "$REAL_KEY" | base64 -w0)"
	assert_contains "$(h2_req "GET /get1")" "$real"
	assert_contains "$(h2_req "GET /get2")" "$real"
	assert_contains "$(h2_req "POST /allowed")" "$real"
	assert_contains "$(h2_req "POST /withheld")" "authorization: Basic "
	assert_not_contains "$(h2_req "POST /withheld")" "$real"
	assert_not_contains "$(cat "$T/up.log")" "/fronted"
	assert_eq "$(grep -o 'session=[0-9]*' "$T/up.log" | sort -u)" "session=1" "one upstream connection"
	assert_contains "$err" "ANTHROPIC_API_KEY withheld from POST /withheld (not in its rules)"
	assert_contains "$err" "refused: a request for another site"
	assert_contains "$err" "jail: 3 requests to api.anthropic.com carried your key"
}

test_broker_h2_streams_responses_without_buffering() {
	command -v node >/dev/null || skip "node is missing"
	UPSTREAM=h2_echo.js broker_world
	run_jail "${B[@]}" -- sh -c '
		curl -sS -N -m 30 --http2 -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/sse >sse.out &
		i=0; until grep -q event-0 sse.out 2>/dev/null; do i=$((i+1)); [ $i -lt 600 ] || exit 3; sleep 0.05; done
		curl -sS -m 20 --http2 https://api.anthropic.com/sse-next >/dev/null
		until grep -q event-1 sse.out 2>/dev/null; do i=$((i+1)); [ $i -lt 1200 ] || exit 4; sleep 0.05; done
		curl -sS -m 20 --http2 https://api.anthropic.com/sse-next >/dev/null
		wait; cat sse.out'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "data: event-2"
}

# 20 MiB each way, intact (flow control both ways through the broker).
test_broker_h2_large_upload_and_download() {
	command -v node >/dev/null || skip "node is missing"
	UPSTREAM=h2_echo.js broker_world
	run_jail "${B[@]}" -- sh -c '
		head -c 20971520 /dev/urandom >up.bin
		echo "len=20971520 sha256=$(sha256sum <up.bin | cut -d" " -f1)" >want
		curl -sS -m 120 --http2 -H "x-api-key: $ANTHROPIC_API_KEY" --data-binary @up.bin \
			https://api.anthropic.com/upload >got
		cmp want got || { cat want got; exit 5; }
		curl -sS -m 120 --http2 -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/big/20 >down.bin
		python3 -c "import sys; d=open(\"down.bin\",\"rb\").read(); sys.exit(0 if d == bytes(range(256)) * 81920 else 6)"'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$err" "jail: 2 requests to api.anthropic.com carried your key"
}

# The client offers h2, the upstream speaks HTTP/1.1 only: HTTP/1.1 on both legs.
test_broker_h2_offered_to_an_http1_upstream() {
	broker_world
	run_jail "${B[@]}" -- sh -c 'curl -sS -m 20 --http2 -w " %{http_version}\n" -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/v1'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_eq "$out" "ok 1
 1.1"
	assert_contains "$(cat "$T/up.log")" "x-api-key: $REAL_KEY"
}

# The session remembers what the upstream chose, and later connections are
# answered so at once (its handshake alongside the jail's).  An upstream that
# then chooses otherwise (h2 first, HTTP/1.1 alone after: tcp_switch.py)
# costs that one connection, closed before anything reached it; the next
# asks afresh and speaks HTTP/1.1.
test_broker_h2_upstream_that_changes_its_choice() {
	command -v node >/dev/null || skip "node is missing"
	UPSTREAM=h2_echo.js broker_world
	local h2port
	h2port=$(cat "$T/port")
	bg nsenter --preserve-credentials -U -n -t "$W" \
		python3 "$HELPERS/tls_echo.py" "$T/port1" "$T/ca/srv.crt" "$T/ca/srv.key" "$T/up1.log"
	wait_file "$T/port1"
	bg nsenter --preserve-credentials -U -n -t "$W" \
		python3 "$HELPERS/tcp_switch.py" "$T/port.sw" "$h2port" "$(cat "$T/port1")"
	wait_file "$T/port.sw"
	sed -i "s/127.0.0.1:$h2port /127.0.0.1:$(cat "$T/port.sw") /" "$T/jail-in-w"
	run_jail "${B[@]}" -- sh -c '
		for i in 1 2 3; do
			curl -sS -m 20 --http2 -w " %{http_version}\n" -H "x-api-key: $ANTHROPIC_API_KEY" \
				https://api.anthropic.com/v$i || echo "failed $i"
		done'
	assert_eq "$out" "ok 1
 2
 0
failed 2
ok 1
 1.1" "(stderr: $err)"
	assert_contains "$err" "api.anthropic.com chose http/1.1 this time, not h2 as before"
	assert_contains "$(cat "$T/up.log")" "GET /v1"
	local one
	one=$(cat "$T/up1.log")
	assert_contains "$one" "GET /v3"
	assert_contains "$one" "x-api-key: $REAL_KEY"
	assert_not_contains "$one" "GET /v2"
}

test_broker_h2_wrong_upstream_certificate_fails_closed() {
	command -v node >/dev/null || skip "node is missing"
	UPSTREAM=h2_echo.js broker_world "$HOSTNAME_B" "$T/other"
	run_jail "${B[@]}" -- sh -c 'curl -sS -m 20 --http2 -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/x'
	assert_contains "$out" "jail broker: upstream api.anthropic.com refused"
	assert_contains "$err" "jail: warning: broker: api.anthropic.com: its certificate is not trusted"
	[ ! -s "$T/up.log" ] || fail "the upstream got a request: $(cat "$T/up.log")"
}

# RST_STREAM from the client reaches the upstream (that stream alone: the
# connection goes on), GOAWAY from the upstream reaches the client.
test_broker_h2_reset_and_goaway_cross_over() {
	command -v node >/dev/null || skip "node is missing"
	UPSTREAM=h2_echo.js broker_world
	run_jail "${B[@]}" -- node -e '
const http2 = require("http2");
const key = process.env.ANTHROPIC_API_KEY;
const s = http2.connect("https://api.anthropic.com");
s.on("goaway", (code) => console.log("goaway " + code));
const sse = s.request({":path": "/sse", "x-api-key": key});
sse.once("data", () => sse.close(http2.constants.NGHTTP2_CANCEL));
function get(path, done) {
  const r = s.request({":path": path, "x-api-key": key});
  let body = "";
  r.on("data", (d) => body += d);
  r.on("end", () => done(body.trim()));
}
let tries = 0;
function resets() {  /* until the upstream has seen the reset, connection still open */
  get("/resets", (b) => {
    if (b.includes("/sse code=8")) {
      console.log("upstream saw the reset");
      get("/goaway", (g) => console.log("body " + g));
    } else if (++tries < 200) setTimeout(resets, 50);
    else { console.log("no reset: " + b); s.destroy(); }
  });
}
sse.on("close", resets);
s.on("close", () => console.log("closed"));
'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "upstream saw the reset"
	assert_contains "$out" "goaway 0"
	assert_contains "$out" "closed"
	assert_contains "$(h2_req "GET /goaway")" "x-api-key: $REAL_KEY"
	assert_eq "$(grep -o 'session=[0-9]*' "$T/up.log" | sort -u)" "session=1" "one upstream connection"
}

# Request trailers are refused (a server may merge them into the head, past
# what the broker does to it: security/broker_attack3.sh): the stream is
# reset on both sides and they go nowhere; a placeholder in one is reported.
test_broker_h2_request_trailers_are_refused() {
	command -v node >/dev/null || skip "node is missing"
	UPSTREAM=h2_echo.js broker_world
	run_jail "${B[@]}" -- node -e '
const http2 = require("http2");
const key = process.env.ANTHROPIC_API_KEY;
const s = http2.connect("https://api.anthropic.com");
const r = s.request({":method": "POST", ":path": "/with-trailers", "x-api-key": key},
                    {waitForTrailers: true});
r.on("wantTrailers", () => r.sendTrailers({"x-checksum": "c-" + key, "range": "bytes=0-5"}));
r.end("body");
let body = "";
r.on("data", (d) => body += d);
r.on("error", () => {});
r.on("close", () => { console.log("body=" + body.trim() + " rst=" + r.rstCode); s.close(); });
'
	assert_contains "$out" "rst=8" "the stream was reset, CANCEL (stderr: $err)"
	assert_not_contains "$out" "ok 1"
	assert_not_contains "$(cat "$T/up.log")" "trailer " "no trailer went upstream"
	assert_contains "$err" "trailer fields in a request"
	assert_contains "$err" "the placeholder of ANTHROPIC_API_KEY in a trailer"
}

# The jail ends while an HTTP/2 stream still streams: the connection ends.
test_broker_h2_jail_ends_with_a_stream_still_open() {
	command -v node >/dev/null || skip "node is missing"
	UPSTREAM=h2_echo.js broker_world
	run_jail "${B[@]}" -- sh -c '
		curl -sS -N -m 300 --http2 -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/sse >sse.out &
		i=0; until grep -q event-0 sse.out 2>/dev/null; do i=$((i+1)); [ $i -lt 600 ] || exit 3; sleep 0.05; done
		echo streaming'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_eq "$out" streaming
	assert_contains "$err" "jail: 1 request to api.anthropic.com carried your key"
}

# Requests refused on a stream of their own, the connection going on:
# another site in :authority, CONNECT, a header list over 64 KiB (in fields
# under nghttp2's own 64 KiB bound for one field, over which it ends the
# connection).  None reaches the upstream; a plain request after them does.
test_broker_h2_refuses_hostile_streams() {
	command -v node >/dev/null || skip "node is missing"
	UPSTREAM=h2_echo.js broker_world
	run_jail "${B[@]}" -- node -e '
const http2 = require("http2");
const key = process.env.ANTHROPIC_API_KEY;
const s = http2.connect("https://api.anthropic.com", {maxSendHeaderBlockLength: 1 << 20});
const asks = [
  ["fronted", {":path": "/fronted", ":authority": "evil.example.net", "x-api-key": key}],
  ["connect", {":method": "CONNECT", ":authority": "api.anthropic.com:443", "x-api-key": key}],
  ["big", Object.assign({":path": "/big-headers", "x-api-key": key},
    Object.fromEntries([...Array(10).keys()].map((i) => ["x-pad-" + i, "a".repeat(8000)])))],
  ["plain", {":path": "/plain", "x-api-key": key}],
];
function next(i) {
  if (i === asks.length) return s.close();
  const [name, h] = asks[i];
  let r;
  try { r = s.request(h); } catch (e) { console.log(name + " refused by the client"); return next(i + 1); }
  let body = "";
  r.on("response", (hd) => body += hd[":status"] + " ");
  r.on("data", (d) => body += d);
  r.on("error", (e) => {});
  r.on("close", () => { console.log(name + " " + (body.trim() || "reset " + r.rstCode)); next(i + 1); });
  if (h[":method"] !== "CONNECT") r.end();
}
next(0);
'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "fronted 421 jail broker: a request for another site"
	assert_contains "$out" "connect 405 jail broker: CONNECT, TRACE or TRACK through a brokered host"
	assert_contains "$out" "big reset 2"  # INTERNAL_ERROR: the broker's bound
	assert_contains "$out" "plain 200 ok 1"
	assert_not_contains "$(cat "$T/up.log")" "/fronted"
	assert_not_contains "$(cat "$T/up.log")" "/big-headers"
	assert_not_contains "$(cat "$T/up.log")" "CONNECT"
	assert_eq "$(grep -c "$REAL_KEY" "$T/up.log")" 1 "the key reached the upstream once"
}

# A client that reads slowly: flow control holds the upstream back, so the
# broker never holds more than its windows (1 MiB a connection), not the
# 96 MiB the upstream would send at once.
test_broker_h2_slow_reader_is_not_buffered() {
	command -v node >/dev/null || skip "node is missing"
	UPSTREAM=h2_echo.js broker_world
	bg "$JAIL" "${B[@]}" -- sh -c '
		curl -sS -m 300 --http2 --limit-rate 1M -H "x-api-key: $ANTHROPIC_API_KEY" \
			https://api.anthropic.com/big/96 | { head -c 4194304 >/dev/null; echo flowing; cat >/dev/null; }
	' >"$T/slow.out" 2>"$T/slow.err" </dev/null
	local pid
	pid=$(tail -n 1 "$T/.pids")
	wait_for -t 60 grep -q flowing "$T/slow.out" || fail "the download did not start: $(cat "$T/slow.err")"
	local peak
	peak=$(awk '/^VmHWM/ {print $2}' /proc/"$pid"/status)
	kill "$pid"
	[ "$peak" -lt 49152 ] || fail "the supervisor grew to $peak kB"
}

# Half a TLS record that stays half (the client neither sends the rest nor
# closes), on an HTTP/2 connection and on an HTTP/1.1 one: OpenSSL holds the
# half as pending, which must not make either relay loop without waiting.
test_broker_h2_does_not_spin_on_a_half_record() {
	command -v node >/dev/null || skip "node is missing"
	UPSTREAM=h2_echo.js broker_world
	bg "$JAIL" "${B[@]}" -- python3 -c '
import os, socket, ssl, sys, time
H = "api.anthropic.com"
conns = []
for proto in ("h2", "http/1.1"):
    ctx = ssl.create_default_context()
    ctx.set_alpn_protocols([proto])
    c = ctx.wrap_socket(socket.create_connection((H, 443)), server_hostname=H)
    if proto == "h2":
        c.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
    os.write(c.fileno(), b"\x17\x03\x03\x00\x64" + b"x" * 50)
    conns.append(c)
print("half", flush=True)
time.sleep(120)
' >"$T/half.out" 2>"$T/half.err" </dev/null
	local pid
	pid=$(tail -n 1 "$T/.pids")
	wait_for grep -q half "$T/half.out"
	wait_for -t 20 threads_asleep "$pid"
	kill "$pid"
}

# nghttp2 is opened like OpenSSL; without it the broker warns once and
# speaks HTTP/1.1, a client offering h2 included.
test_broker_h2_without_nghttp2_speaks_http1() {
	broker_world
	mkdir -p "$T/lib"
	echo "not a library" >"$T/lib/libnghttp2.so.14"
	LD_LIBRARY_PATH=$T/lib run_jail "${B[@]}" -- sh -c \
		'curl -sS -m 20 --http2 -w " %{http_version}\n" -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/v1'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_eq "$out" "ok 1
 1.1"
	assert_contains "$err" "cannot load libnghttp2.so.14"
	assert_contains "$err" "brokered hosts speak HTTP/1.1 only"
	assert_contains "$(cat "$T/up.log")" "x-api-key: $REAL_KEY"
}

# OpenSSL is opened only when a secret is brokered (src/broker/tlslib.c): when it
# cannot be loaded the run is refused before anything starts, naming it.
test_broker_refuses_when_openssl_cannot_load() {
	[ -e /dev/net/tun ] || skip "the host has no /dev/net/tun (pasta and slirp4netns need it)"
	mkdir -p "$T/lib"
	echo "not a library" >"$T/lib/libcrypto.so.3"
	mkrepo "$T/p"
	export TEST_REAL_KEY=$REAL_KEY
	LD_LIBRARY_PATH=$T/lib run_jail -D "$T/p" --net allow \
		--secret "ANTHROPIC_API_KEY=broker:env:TEST_REAL_KEY for $HOSTNAME_B" -- sh -c 'echo ran'
	assert_eq "$rc" 125 "(stderr: $err)"
	assert_not_contains "$out" "ran"
	assert_contains "$err" "cannot load libcrypto.so.3 for brokered secrets"
	# and without a brokered secret nothing opens it: the same jail runs
	LD_LIBRARY_PATH=$T/lib run_jail -D "$T/p" --net none -- sh -c 'echo ran'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_eq "$out" "ran"
}

# ---- HTTP/2, hostile clients by raw frames (tests/helpers/h2raw.py) ----

# A stream the client resets at once is closed on the jail's side, but its
# request still waits for the upstream (here: one stream at a time, that one
# never answered).  Those waiting requests are bounded by the broker, not by
# how fast the client resets: each is ~60 KiB of headers from a few bytes of
# HPACK.  Four connections of 900 such streams grew the supervisor to 224 MB
# before the bound (14 MB with it; 20 connections: 35 MB).
test_broker_h2_reset_flood_is_bounded() {
	command -v node >/dev/null || skip "node is missing"
	export H2_MAX_STREAMS=1
	UPSTREAM=h2_echo.js broker_world
	cp "$HELPERS/h2raw.py" "$T/p/"
	# a sanitizer build keeps what is freed in a quarantine (256 MB by
	# default): kept small here, the peak measures what the broker holds
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1 \
		bg "$JAIL" "${B[@]}" -- python3 h2raw.py resetflood api.anthropic.com 900 4 \
		>"$T/flood.out" 2>"$T/flood.err" </dev/null
	local pid
	pid=$(tail -n 1 "$T/.pids")
	wait_for -t 60 grep -q sent "$T/flood.out" || fail "the flood did not go: $(cat "$T/flood.err")"
	wait_for grep -q "GET /hang" "$T/up.log"
	# the broker has read all of it once its threads sleep
	wait_for -t 30 threads_asleep "$pid"
	local peak
	peak=$(awk '/^VmHWM/ {print $2}' /proc/"$pid"/status)
	kill "$pid"
	# a sanitizer build's redzones and shadow roughly double each of the
	# many small blocks (without the bound: 224 MB either way)
	local limit=32768
	if grep -qa 'libasan\.so' "$TESTS/../bin/jail"; then limit=65536; fi
	[ "$peak" -lt "$limit" ] || fail "the supervisor grew to $peak kB"
}

# A credential header given twice, one field with the placeholder and one
# without: a server joins them ("junk, REAL": an invalid key an error message
# may quote back) or reads the other one.  Refused, in either order, over
# HTTP/1.1 and over HTTP/2 (and in a Basic pair too).
test_broker_credential_header_twice_is_refused() {
	broker_world
	run_jail "${B[@]}" -- sh -c '
		curl -sS -m 20 -H "x-api-key: junk" -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/d1
		curl -sS -m 20 -H "Authorization: Bearer $ANTHROPIC_API_KEY" -H "authorization: x" https://api.anthropic.com/d2
		curl -sS -m 20 -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/single'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "jail broker: the credential header x-api-key given twice"
	assert_contains "$out" "jail broker: the credential header Authorization given twice"
	assert_not_contains "$(cat "$T/up.log")" "/d1"
	assert_not_contains "$(cat "$T/up.log")" "/d2"
	assert_contains "$(cat "$T/up.log")" "x-api-key: $REAL_KEY"
}

test_broker_h2_credential_header_twice_is_refused() {
	command -v node >/dev/null || skip "node is missing"
	UPSTREAM=h2_echo.js broker_world
	run_jail "${B[@]}" -- node -e '
const http2 = require("http2");
const key = process.env.ANTHROPIC_API_KEY;
const basic = (u) => "Basic " + Buffer.from(u + ":" + key).toString("base64");
const s = http2.connect("https://api.anthropic.com");
const asks = [
  ["d1", {"x-api-key": ["junk", key]}],
  ["d2", {"x-api-key": [key, "junk"]}],
  ["cookie", {"cookie": ["a=1", "b=2"], "x-api-key": key}],
];
function next(i) {
  if (i === asks.length) return s.close();
  const [name, h] = asks[i];
  const r = s.request(Object.assign({":path": "/" + name}, h));
  let body = "";
  r.on("response", (hd) => body += hd[":status"] + " ");
  r.on("data", (d) => body += d);
  r.on("close", () => { console.log(name + " " + body.trim()); next(i + 1); });
  r.end();
}
next(0);
'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "d1 400 jail broker: the credential header x-api-key given twice"
	assert_contains "$out" "d2 400 jail broker: the credential header x-api-key given twice"
	assert_contains "$out" "cookie 200 ok 1"
	# node sends one authorization field only: the rest by hand
	cp "$HELPERS/h2raw.py" "$T/p/"
	run_jail "${B[@]}" -- sh -c '
		b=$(printf "u:%s" "$ANTHROPIC_API_KEY" | base64 -w0)
		python3 h2raw.py request api.anthropic.com /d3 "authorization=Basic $b" "authorization=Bearer x"
		python3 h2raw.py request api.anthropic.com /d4 "authorization=x" "authorization=Bearer $ANTHROPIC_API_KEY"'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_eq "$out" "jail broker: the credential header authorization given twice
jail broker: the credential header authorization given twice"
	assert_not_contains "$(cat "$T/up.log")" "GET /d"
	assert_contains "$(h2_req "GET /cookie")" "x-api-key: $REAL_KEY"
	assert_eq "$(grep -c "$REAL_KEY" "$T/up.log")" 1 "the real key in one request"
}

log_has() { [ "$(grep -c "$2" "$T/up.log" 2>/dev/null)" = "$1" ]; } # COUNT WORD

# The upstream's TLS handshake never comes (it accepts and is mute), and the
# jail's handshake waits on it (the upstream is opened in its ALPN callback).
# The session ends meanwhile: the supervisor ends that connection at once,
# not when the upstream's 30 s I/O timeout runs out.
test_broker_stops_with_an_upstream_handshake_hanging() {
	UPSTREAM=tcp_mute.py broker_world
	# a length of sleep no other test of this user (another suite running
	# this one at the same time) has: the kill below ends only ours
	local nap=$((1000000 + $$))
	bg "$JAIL" "${B[@]}" -- sh -c '
		curl -sS -m 300 --http2 https://api.anthropic.com/x >/dev/null 2>&1 &
		curl -sS -m 300 --http1.1 https://api.anthropic.com/y >/dev/null 2>&1 &
		exec sleep "$0"' "$nap" >/dev/null 2>"$T/mute.err" </dev/null
	local pid
	pid=$(tail -n 1 "$T/.pids")
	wait_for log_has 2 accepted
	kill $(pgrep -u "$(id -u)" -x -f "sleep $nap")
	wait_for -t 15 gone "$pid" || fail "the supervisor still waits"
	wait_for log_has 2 closed
	assert_not_contains "$(cat "$T/mute.err")" "nothing was sent there"
}

# A spare upstream connection (src/broker/brokerspare.c): after the agent's first
# connection to a host the broker opens one more, verified, in the
# background, and the next connection takes it.  The jail's second request
# is let go only once the upstream logged that spare: it is served on it.
# Then the upstream closes every connection (SIGUSR1), the spare too: the
# third request is not sent on it, but on a fresh connection, and succeeds.
test_broker_h2_spare_connection_is_used_and_a_closed_one_is_not() {
	command -v node >/dev/null || skip "node is missing (the h2 upstream is node's http2)"
	UPSTREAM=h2_echo.js broker_world
	local node_pid
	node_pid=$(sed -n 2p "$T/.pids")
	mkfifo "$T/go"
	exec 3<>"$T/go"  # read-write: opening it does not wait for the jail's end
	# not through bg: an asynchronous command's own redirection is what
	# keeps its stdin from being /dev/null
	"$JAIL" "${B[@]}" -- sh -c '
		for p in a b c; do
			[ $p = a ] || read -r _ || exit 9
			curl -sS -m 20 --http2 -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/$p
		done' <"$T/go" >"$T/spare.out" 2>"$T/spare.err" &
	local pid=$!
	echo "$pid" >>"$T/.pids"
	wait_for grep -q "^GET /a" "$T/up.log"
	wait_for grep -q "tls connection 2 opened" "$T/up.log"
	echo >&3
	wait_for grep -q "^GET /b" "$T/up.log"
	assert_contains "$(h2_req "GET /b")" "session=2"
	wait_for grep -q "tls connection 3 opened" "$T/up.log"
	kill -USR1 "$node_pid"
	wait_for grep -q "tls connection 3 closed" "$T/up.log"
	echo >&3
	exec 3>&-
	wait_for gone "$pid" || fail "the jail did not end"
	assert_eq "$(cat "$T/spare.out")" "ok 1
ok 2
ok 3" "every request answered (stderr: $(cat "$T/spare.err"))"
	assert_contains "$(h2_req "GET /a")" "session=1"
	assert_contains "$(h2_req "GET /c")" "session=4" || { grep -E "^(tls|GET|proto)" "$T/up.log" >&2; return 1; }
	assert_contains "$(h2_req "GET /c")" "x-api-key: $REAL_KEY"
}

# A secret with rules, over HTTP/2: a :path spelled two ways is refused,
# a method in other case or another :path gets the placeholder, and only
# what the rules allow gets the real value (the upstream logs each).
test_broker_h2_rules_read_the_path_one_way() {
	command -v node >/dev/null || skip "node is missing"
	UPSTREAM=h2_echo.js broker_world
	B=("${B[@]:0:${#B[@]}-1}" "ANTHROPIC_API_KEY=broker:env:TEST_REAL_KEY for $HOSTNAME_B only POST /allowed")
	cp "$HELPERS/h2raw.py" "$T/p/"
	run_jail "${B[@]}" -- sh -c '
		for p in //allowed /x/../allowed /./allowed /%2Fallowed /allowed%2F.. /allowed#x "/allowed;x" \
			"/allowed\\x"; do
			printf "%s " "$p"; python3 h2raw.py request api.anthropic.com POST "$p" "x-api-key=$ANTHROPIC_API_KEY"
		done
		printf "lower "; python3 h2raw.py request api.anthropic.com post /allowed "x-api-key=$ANTHROPIC_API_KEY"
		printf "query "; python3 h2raw.py request api.anthropic.com POST "/other?/allowed" "x-api-key=$ANTHROPIC_API_KEY"
		printf "allowed "; python3 h2raw.py request api.anthropic.com POST /allowed "x-api-key=$ANTHROPIC_API_KEY"'
	assert_eq "$rc" 0 "(stderr: $err)"
	local p
	for p in //allowed /x/../allowed /./allowed /%2Fallowed /allowed%2F.. /allowed#x "/allowed;x" \
		'/allowed\x'; do
		assert_contains "$out" "$p jail broker: a target"
	done
	assert_contains "$out" "allowed ok "
	assert_eq "$(grep -c "$REAL_KEY" "$T/up.log")" 1 "the real key in the allowed request only"
	assert_contains "$(h2_req "POST /allowed")" "x-api-key: $REAL_KEY"
	assert_contains "$(h2_req "post /allowed")" "x-api-key: sk-ant-api03-"
	assert_contains "$(h2_req "POST /other?/allowed")" "x-api-key: sk-ant-api03-"
}

# A stream the client gives up on with RST_STREAM NO_ERROR (not an error,
# but nothing more wanted) before its response is whole is cancelled
# upstream too: it would otherwise run on there, and be held here.
test_broker_h2_reset_no_error_cancels_upstream() {
	command -v node >/dev/null || skip "node is missing"
	UPSTREAM=h2_echo.js broker_world
	run_jail "${B[@]}" -- node -e '
const http2 = require("http2");
const key = process.env.ANTHROPIC_API_KEY;
const s = http2.connect("https://api.anthropic.com");
const hang = s.request({":path": "/hang", "x-api-key": key});
hang.on("error", () => {});
function get(path, done) {
  const r = s.request({":path": path});
  let body = "";
  r.on("data", (d) => body += d);
  r.on("end", () => done(body.trim()));
}
let tries = 0;
function resets() {
  get("/resets", (b) => {
    if (b.includes("/hang code=8")) { console.log("cancelled upstream"); s.close(); }
    else if (++tries < 200) setTimeout(resets, 50);
    else { console.log("not cancelled: " + b); s.close(); }
  });
}
let waits = 0;
function seen() {  /* once the upstream has the request: the reset */
  get("/paths", (b) => {
    if (b.split("\n").includes("/hang")) {
      hang.close(http2.constants.NGHTTP2_NO_ERROR);
      hang.on("close", resets);
    } else if (++waits < 200) setTimeout(seen, 50);
    else { console.log("never seen"); s.close(); }
  });
}
seen();
'
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "cancelled upstream"
}

# A client that gives its streams no window at all (SETTINGS_INITIAL_WINDOW_SIZE
# 0) and asks 96 MiB on each of 20: the broker takes from the upstream only
# what its own windows allow (1 MiB a connection), not what the client cannot
# take.
test_broker_h2_zero_window_is_not_buffered() {
	command -v node >/dev/null || skip "node is missing"
	UPSTREAM=h2_echo.js broker_world
	cp "$HELPERS/h2raw.py" "$T/p/"
	bg "$JAIL" "${B[@]}" -- python3 h2raw.py stall api.anthropic.com 20 \
		>"$T/stall.out" 2>"$T/stall.err" </dev/null
	local pid
	pid=$(tail -n 1 "$T/.pids")
	wait_for -t 60 grep -q asked "$T/stall.out" || fail "no streams: $(cat "$T/stall.err")"
	wait_for log_has 20 "GET /big/96"
	wait_for -t 30 threads_asleep "$pid"
	local peak
	peak=$(awk '/^VmHWM/ {print $2}' /proc/"$pid"/status)
	kill "$pid"
	[ "$peak" -lt 32768 ] || fail "the supervisor grew to $peak kB"
}
