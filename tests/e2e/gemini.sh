# End to end with Gemini CLI (npm: @google/gemini-cli) against a Gemini
# generateContent endpoint: the scripted model API on the host's loopback
# drives `gemini -p --yolo` in the jail through the same turns as the Claude
# Code test, and the host checks the same things.

source "$TESTS/e2e/agents.bash"

test_gemini_prompt_mode_end_to_end() {
	e2e_install gemini @google/gemini-cli
	e2e_project
	e2e_servers "$T/script.json"
	e2e_script gemini
	# the host's settings (copied in by the policy) choose API-key sign-in
	mkdir -p "$HOME/.gemini"
	printf '{"security":{"auth":{"selectedType":"gemini-api-key"}}}\n' >"$HOME/.gemini/settings.json"
	export GEMINI_API_KEY=e2e-fake-gemini-key
	e2e_policy gemini
	e2e_home_snapshot
	run_jail "${POLICY[@]}" -D "$T/p" --net allow --allow "host:$API" \
		--dns-upstream 127.0.0.1:9 --ro "$AGENTS_DIR" \
		--setenv GOOGLE_GEMINI_BASE_URL="http://host.jail.internal:$API" \
		--setenv GEMINI_CLI_TRUST_WORKSPACE=true -- \
		timeout 90 "$AGENT_BIN/gemini" -p "Work through the task." --yolo
	assert_eq "$rc" 0 "gemini's exit status (stdout: $out; stderr: $err)"
	assert_contains "$out" "All done"
	assert_contains "$(cat "$T/api/requests")" ":streamGenerateContent"
	e2e_check_results
	e2e_assert_no_canary "$(e2e_requests)" "what the model API received"
	e2e_assert_no_canary "$out$err" "gemini's output"
	grep -q "^jail: blocked tcp .*:$BLOCKED_PORT\$" <<<"$err" || fail "no blocked line: $err"
	e2e_check_landing
}
