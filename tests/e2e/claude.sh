# End to end with Claude Code (npm: @anthropic-ai/claude-code): a scripted model
# API on the host's loopback drives the real CLI inside the jail, turn by turn,
# through what an agent does (read, edit, create, run the tests) and what it
# must not manage (read the ssh key and the ignored .env, reach a host that is
# not allowed, plant a git hook).  Then the host checks what got out: the
# requests the model saw, jail's log, the project, and the patch, landed with
# git am.  Traffic: the host's loopback only (the model API is host:PORT).

source "$TESTS/e2e/agents.bash"

# claude_args: jail's arguments for Claude Code at the scripted API, in
# $JAIL_ARGS: the shipped policy, which passes the key and the base URL in from
# the host's environment, as for a user.
claude_args() {
	export ANTHROPIC_BASE_URL="http://host.jail.internal:$API"
	export ANTHROPIC_API_KEY=sk-ant-e2e-fake-key-000000
	e2e_policy claude
	JAIL_ARGS=("${POLICY[@]}" -D "$T/p" --net allow --allow "host:$API" --ro "$AGENTS_DIR")
	# names other than host.jail.internal get NXDOMAIN, or for the policy's
	# allowed names, an answer from a loopback port where nothing listens
	JAIL_ARGS+=(--dns-upstream 127.0.0.1:9)
}

# claude_run ARGS...: claude -p in the jail, talking to the scripted API.
claude_run() {
	claude_args
	run_jail "${JAIL_ARGS[@]}" -- \
		timeout 90 "$AGENT_BIN/claude" -p "Work through the task." \
		--dangerously-skip-permissions "$@"
}

test_claude_print_mode_end_to_end() {
	e2e_install claude @anthropic-ai/claude-code
	e2e_project
	e2e_servers "$T/script.json"
	e2e_script claude
	e2e_home_snapshot
	claude_run
	assert_eq "$rc" 0 "claude's exit status (stdout: $out; stderr: $err)"
	assert_contains "$out" "All done"
	local reqs
	reqs=$(e2e_requests)
	e2e_check_results
	# nothing secret reached the model
	e2e_assert_no_canary "$reqs" "what the model API received"
	# the blocked connection was refused and said so
	grep -q "^jail: blocked tcp .*:$BLOCKED_PORT\$" <<<"$err" || fail "no blocked line: $err"
	# one attempt or two: host.jail.internal names only the family where the
	# blocked server listens, and a client may try it once or again
	grep -Eq "^jail: network: [0-9]+ connection attempts? blocked" <<<"$err" ||
		fail "no network summary: $err"
	e2e_check_landing
}

# --- the same flow in the TUI, in a tmux pane -------------------------------

# rule_width: the width of the TUI's input box, a rule of ─ across the window.
rule_width() { screen | grep -m1 -E '^─+$' | tr -d '\n' | wc -m; }

# claude_first_run_done: the host's login state as after a first run, which the
# policy copies in (never back): onboarding done, the project trusted, the API key
# approved (by its last 20 characters), bypass mode acknowledged.
claude_first_run_done() {
	mkdir -p "$HOME/.claude"
	cat >"$HOME/.claude.json" <<-EOF2
	{"hasCompletedOnboarding": true, "theme": "dark",
	 "customApiKeyResponses": {"approved": ["-e2e-fake-key-000000"], "rejected": []},
	 "projects": {"$T/p": {"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}}}
	EOF2
	printf '{"skipDangerousModePermissionPrompt": true}\n' >"$HOME/.claude/settings.json"
}

test_claude_tui_in_tmux() {
	e2e_install claude @anthropic-ai/claude-code
	e2e_project
	e2e_servers "$T/script.json"
	e2e_script claude
	claude_first_run_done
	claude_args
	e2e_home_snapshot
	tui_start "${JAIL_ARGS[@]}" -- "$AGENT_BIN/claude" --dangerously-skip-permissions
	wait_screen "Claude Code" 30
	wait_screen "bypass permissions"
	assert_eq "$(rule_width)" 100 "the input box at 100 columns"
	tm send-keys -t e2e -l "Work through the task."
	wait_screen "Work through the task."
	tm send-keys -t e2e Enter
	wait_screen "All done" 60
	# a resize of the window reaches the TUI through jail's pty: wider, so
	# that only a redraw at the new size (not tmux's clipping) passes
	tm resize-window -t e2e -x 123 -y 30
	rule_is() { [ "$(rule_width)" = "$1" ]; }
	wait_for rule_is 123 || true
	assert_eq "$(rule_width)" 123 "the input box after the resize to 123 columns"
	# Ctrl-C twice is claude's way out: the second once it asks for it
	tm send-keys -t e2e C-c
	wait_screen "again to exit"
	tm send-keys -t e2e C-c
	tui_check_exit claude
	e2e_check_results
	e2e_assert_no_canary "$(e2e_requests)" "what the model API received"
	e2e_assert_no_canary "$(screen)" "the screen"
	grep -q "^jail: blocked tcp .*:$BLOCKED_PORT\$" <<<"$err" || fail "no blocked line: $err"
	e2e_check_landing
}

# --- a brokered key (issue 18) -----------------------------------------------

# The same task with the key brokered from the host's environment: Claude Code
# uses its default base URL (https://api.anthropic.com), which the jail's DNS
# sends to jail's broker; the broker ends TLS with the session CA (the
# jail's NODE_EXTRA_CA_CERTS and system bundle), puts the real key in x-api-key
# and sends the request on to the scripted API, over TLS with a certificate for
# api.anthropic.com from a test CA.
test_claude_with_a_brokered_key() {
	e2e_install claude @anthropic-ai/claude-code
	e2e_project
	e2e_brokered_servers "$T/script.json" api.anthropic.com
	e2e_script claude
	e2e_home_snapshot
	local real=sk-ant-api03-e2eREALkey4242abcdefghijklmnopqrstuvwxyz0123456789-AAAA
	unset ANTHROPIC_BASE_URL
	export ANTHROPIC_API_KEY=$real
	e2e_policy claude
	# the shipped policy allows api.anthropic.com:443 and passes
	# ANTHROPIC_API_KEY in; the brokered secret of that name replaces it
	# (host.jail.internal resolves once a host port is allowed: one where
	# nothing listens, so that the blocked server is refused as in the others)
	e2e_brokered_run "${POLICY[@]}" -D "$T/p" --net allow --dns-upstream 127.0.0.1:9 \
		--allow "host:$(free_port)" --ro "$AGENTS_DIR" \
		--secret "ANTHROPIC_API_KEY=broker:env:ANTHROPIC_API_KEY for api.anthropic.com" -- \
		timeout 90 "$AGENT_BIN/claude" -p "Work through the task." --dangerously-skip-permissions
	assert_eq "$rc" 0 "claude's exit status (stdout: $out; stderr: $err)"
	assert_contains "$out" "All done"
	assert_contains "$(cat "$T/api/requests")" "POST /v1/messages"
	e2e_check_results
	e2e_check_brokered ANTHROPIC_API_KEY "$real" x-api-key api.anthropic.com
	e2e_check_reported ANTHROPIC_API_KEY
	e2e_assert_no_canary "$(e2e_requests)" "what the model API received"
	grep -q "^jail: blocked tcp .*:$BLOCKED_PORT\$" <<<"$err" || fail "no blocked line: $err"
	e2e_check_landing
}
