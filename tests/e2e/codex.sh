# End to end with Codex CLI (npm: @openai/codex) against an OpenAI Responses
# endpoint: the scripted model API on the host's loopback drives `codex exec`
# in the jail through the same turns as the Claude Code test (all through its
# shell tool; the edit and the new file with its apply_patch), and the host
# checks the same things.  Codex's own sandbox and approvals are off: the jail,
# not the agent, must stop it (and a nested sandbox could not start in it).

source "$TESTS/e2e/agents.bash"

test_codex_exec_end_to_end() {
	e2e_install codex @openai/codex
	e2e_project
	e2e_servers "$T/script.json"
	e2e_script codex
	# the key as a secret: from a host variable of another name, never stored
	export E2E_OPENAI_SECRET=sk-e2e-secret-5150
	e2e_policy codex
	local provider="model_providers.e2e={name=\"e2e\",base_url=\"http://host.jail.internal:$API/v1\",env_key=\"OPENAI_API_KEY\",wire_api=\"responses\"}"
	e2e_home_snapshot
	run_jail "${POLICY[@]}" -D "$T/p" --net allow --allow "host:$API" \
		--secret OPENAI_API_KEY=env:E2E_OPENAI_SECRET \
		--dns-upstream 127.0.0.1:9 --ro "$AGENTS_DIR" -- \
		timeout 90 "$AGENT_BIN/codex" exec --dangerously-bypass-approvals-and-sandbox \
		-c "$provider" -c model_provider=e2e -c model=gpt-5 "Work through the task."
	assert_eq "$rc" 0 "codex's exit status (stdout: $out; stderr: $err)"
	assert_contains "$out" "All done"
	assert_contains "$(cat "$T/api/requests")" "POST /v1/responses"
	e2e_check_results
	e2e_assert_no_canary "$(e2e_requests)" "what the model API received"
	e2e_assert_no_canary "$out$err" "codex's output"
	grep -q "^jail: blocked tcp .*:$BLOCKED_PORT\$" <<<"$err" || fail "no blocked line: $err"
	e2e_check_landing
	# the secret reached the agent (it printed its environment), and none of
	# jail's files of the session holds it (the agent's own home does: Codex
	# keeps its transcripts there, the `env` output included)
	assert_contains "$(e2e_tool_results "$T"/api/[0-9]*.json)" "OPENAI_API_KEY=sk-e2e-secret-5150"
	local sd
	sd=$(session_dir "$T/p")
	assert_eq "$(grep -rl --exclude-dir=home --exclude-dir=work sk-e2e-secret-5150 "$sd" || true)" "" \
		"session files holding the secret"
}

# --- a brokered key (issue 18) -----------------------------------------------

# The same task with the key brokered from the host's environment: Codex
# uses its default provider (https://api.openai.com/v1, the Responses API),
# which the jail's DNS sends to jail's broker; the broker ends TLS with the
# session CA (Codex's rustls reads the native roots: SSL_CERT_FILE, the system
# bundle), puts the real key in Authorization and sends the request on to the
# scripted API, over TLS with a certificate for api.openai.com from a test CA.
# `codex exec` takes an API key from CODEX_API_KEY (OPENAI_API_KEY, which the
# shipped policy passes, it ignores: its requests then carry no key at all).
codex_brokered_run() {
	local real=$1
	e2e_install codex @openai/codex
	e2e_project
	e2e_brokered_servers "$T/script.json" api.openai.com
	if [ -n "${CODEX_H2_FRONT:-}" ]; then  # the API behind an HTTP/2-only front
		e2e_bg node "$HELPERS/h2_front.js" "$T/frontport" "$T/ca/srv.crt" "$T/ca/srv.key" \
			"$T/ca/ca.crt" "$API" "$T/front.log"
		e2e_wait_file "$T/frontport"
		API=$(cat "$T/frontport")
	fi
	e2e_script codex
	e2e_home_snapshot
	unset OPENAI_BASE_URL OPENAI_API_KEY
	export CODEX_API_KEY=$real
	e2e_policy codex
	# the shipped policy allows api.openai.com:443.  (host.jail.internal
	# resolves once a host port is allowed: one where nothing listens, so that
	# the blocked server is refused as in the others)
	e2e_brokered_run "${POLICY[@]}" -D "$T/p" --net allow --dns-upstream 127.0.0.1:9 \
		--allow "host:$(free_port)" --ro "$AGENTS_DIR" \
		--secret "CODEX_API_KEY=broker:env:CODEX_API_KEY for api.openai.com" -- \
		timeout 90 "$AGENT_BIN/codex" exec --dangerously-bypass-approvals-and-sandbox \
		-c model=gpt-5 "Work through the task."
	assert_eq "$rc" 0 "codex's exit status (stdout: $out; stderr: $err)"
	assert_contains "$out" "All done"
	e2e_check_results
	e2e_check_brokered CODEX_API_KEY "$real" Authorization api.openai.com
	e2e_assert_no_canary "$(e2e_requests)" "what the model API received"
	grep -q "^jail: blocked tcp .*:$BLOCKED_PORT\$" <<<"$err" || fail "no blocked line: $err"
	e2e_check_landing
}

# Codex first asks for a WebSocket (GET /v1/responses, Upgrade: websocket);
# here the scripted API does not speak it (404): Codex retries, then falls
# back to HTTPS POSTs, each of them through the broker too.
test_codex_with_a_brokered_key() {
	codex_brokered_run sk-proj-e2eREALkey5150abcdefghijklmnopqrstuvwxyz0123456789ABCD
	assert_contains "$(cat "$T/api/requests")" "POST /v1/responses"
	assert_contains "$(cat "$T/api/requests")" "GET /v1/responses"
	assert_contains "$err" "Falling back from WebSockets to HTTPS"
	e2e_check_reported CODEX_API_KEY
}

# The API behind a front that speaks HTTP/2 alone: Codex's HTTPS client
# offers h2, so the broker speaks h2 on both legs (brokerh2.c); the
# WebSocket, which asks for HTTP/1.1, finds no upstream (refused with one
# line) and Codex falls back to its POSTs, all over HTTP/2.
test_codex_with_a_brokered_key_over_http2() {
	command -v node >/dev/null || skip "node is missing (the h2 front is node's http2)"
	CODEX_H2_FRONT=1 codex_brokered_run sk-proj-e2eREALkey7170abcdefghijklmnopqrstuvwxyz0123456789ABCD
	assert_contains "$(cat "$T/front.log")" "h2 POST /v1/responses"
	assert_contains "$(cat "$T/api/requests")" "POST /v1/responses"
	assert_contains "$err" "Falling back from WebSockets to HTTPS"
	# its WebSocket connection offered http/1.1 alone (so a real host that
	# speaks both keeps WebSockets on HTTP/1.1): the front refused it
	assert_not_contains "$(cat "$T/front.log")" "GET /v1/responses"
	assert_contains "$err" "no application protocol"
}

# The scripted API speaks the Responses API over a WebSocket too (as the
# real one does): the whole turn rides one upgraded connection, which the
# broker passes through once its upgrade request carried the key.
test_codex_with_a_brokered_key_over_a_websocket() {
	export SCRIPTAPI_WEBSOCKET=1
	codex_brokered_run sk-proj-e2eREALkey6160abcdefghijklmnopqrstuvwxyz0123456789ABCD
	assert_contains "$(cat "$T/api/requests")" "WS /v1/responses"
	assert_not_contains "$(cat "$T/api/requests")" "POST /v1/responses"
	assert_not_contains "$err" "Falling back"
	# the placeholder went to the model in a WebSocket message (the `env`
	# step's output): the broker unmasks the client's frames to watch them
	# (reported), and asked for no compression, which would hide it
	assert_contains "$err" "possible exfiltration attempt: the placeholder of CODEX_API_KEY in a WebSocket message"
	assert_contains "$(cat "$T/api/001.headers")" "Upgrade: websocket"
	assert_not_contains "$(cat "$T/api/001.headers")" "permessage-deflate"
}
