# End to end with opencode (npm: opencode-ai) against an OpenAI-compatible
# endpoint: the scripted model API (Chat Completions, streaming, tool calls) on
# the host's loopback drives `opencode run` in the jail through the same turns
# as the Claude Code test, and the host checks the same things.

source "$TESTS/e2e/agents.bash"

# opencode_config: a provider of the bundled @ai-sdk/openai-compatible kind at
# the scripted API, in the host's opencode.json (copied in, never written back).
# Every permission is granted: the jail, not opencode, must stop the agent.
opencode_config() {
	mkdir -p "$HOME/.config/opencode"
	cat >"$HOME/.config/opencode/opencode.json" <<-EOF2
	{"\$schema": "https://opencode.ai/config.json",
	 "provider": {"e2e": {"npm": "@ai-sdk/openai-compatible", "name": "e2e",
	   "options": {"baseURL": "http://host.jail.internal:$API/v1", "apiKey": "sk-e2e-fake"},
	   "models": {"m": {"name": "m", "tool_call": true}}}},
	 "model": "e2e/m", "autoupdate": false, "share": "disabled",
	 "permission": {"read": "allow", "edit": "allow", "bash": "allow",
	                "external_directory": "allow"}}
	EOF2
}

test_opencode_run_end_to_end() {
	e2e_install opencode opencode-ai
	e2e_project
	e2e_servers "$T/script.json"
	e2e_script opencode
	opencode_config
	e2e_policy opencode
	[ -n "$HAVE_POLICY" ] || POLICY=(--copy "$HOME/.config/opencode/opencode.json")
	run_jail "${POLICY[@]}" -D "$T/p" --net allow --allow "host:$API" \
		--dns-upstream 127.0.0.1:9 --ro "$AGENTS_DIR" -- \
		timeout 90 "$AGENT_BIN/opencode" run -m e2e/m "Work through the task."
	assert_eq "$rc" 0 "opencode's exit status (stdout: $out; stderr: $err)"
	# opencode run shows the tools' work on stderr, the answer on stdout
	assert_contains "$out" "All done"
	assert_contains "$(cat "$T/api/requests")" "POST /v1/chat/completions"
	e2e_check_results
	e2e_assert_no_canary "$(e2e_requests)" "what the model API received"
	e2e_assert_no_canary "$out$err" "opencode's output"
	grep -q "^jail: blocked tcp .*:$BLOCKED_PORT\$" <<<"$err" || fail "no blocked line: $err"
	e2e_check_landing
}
