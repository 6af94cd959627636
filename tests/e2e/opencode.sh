# End to end with opencode (npm: opencode-ai) against an OpenAI-compatible
# endpoint: the scripted model API (Chat Completions, streaming, tool calls) on
# the host's loopback drives `opencode run` in the jail through the same turns
# as the Claude Code test, and the host checks the same things; then the same
# in its TUI in a tmux pane (resize, Ctrl-C, the terminal restored).

source "$TESTS/e2e/agents.bash"

# opencode_config: a provider of the bundled @ai-sdk/openai-compatible kind at
# the scripted API, in the host's opencode.json (the policy copies it in).
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
	e2e_home_snapshot
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

# box_end: the column where the TUI's input box ends (its bottom edge, ╹▀▀▀).
box_end() { screen | { grep -m1 -E '^ *╹▀+' || true; } | sed 's/ *$//' | tr -d '\n' | wc -m; }

test_opencode_tui_in_tmux() {
	e2e_install opencode opencode-ai
	e2e_project
	e2e_servers "$T/script.json"
	e2e_script opencode
	opencode_config
	OPENCODE_VERSION=$("$AGENT_BIN/opencode" --version)
	e2e_policy opencode
	e2e_home_snapshot
	tui_start "${POLICY[@]}" -D "$T/p" --net allow --allow "host:$API" \
		--dns-upstream 127.0.0.1:9 --ro "$AGENTS_DIR" -- "$AGENT_BIN/opencode"
	wait_screen "$OPENCODE_VERSION" 40
	tm send-keys -t e2e -l "Work through the task."
	wait_screen "Work through the task."
	tm send-keys -t e2e Enter
	wait_screen "All done" 60
	# a resize reaches the TUI: its input box grows with the window (up to
	# 120 columns, where a sidebar would take the room)
	local narrow
	narrow=$(box_end)
	[ "$narrow" -gt 80 ] || fail "no input box on the screen: $(screen)"
	tm resize-window -t e2e -x 112 -y 30
	box_ends_at() { [ "$(box_end)" = "$1" ]; }
	wait_for box_ends_at $((narrow + 12)) || true
	assert_eq "$(box_end)" $((narrow + 12)) "where the input box ends after 12 more columns"
	# one Ctrl-C ends opencode
	tm send-keys -t e2e C-c
	tui_check_exit opencode
	e2e_check_results
	e2e_assert_no_canary "$(e2e_requests)" "what the model API received"
	e2e_assert_no_canary "$(screen)" "the screen"
	grep -q "^jail: blocked tcp .*:$BLOCKED_PORT\$" <<<"$err" || fail "no blocked line: $err"
	e2e_check_landing
}
