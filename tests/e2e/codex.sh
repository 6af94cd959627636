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
