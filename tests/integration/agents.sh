# The shipped agent policies with the real agent CLIs from the npm registry:
# each runs inside the jail with its policy (--version, --help, and a start that
# reaches its first call to the model API).  The API is a fake one on the jail's
# own loopback (tests/helpers/fakeapi.py, net = none): no request leaves the
# machine.  The CLIs are installed once (about 1 GB, 30 s) into
# $JAIL_AGENTS_DIR (default /tmp/jail-agents-UID) and reused by later runs.
# aider is on PyPI only: its policy is tested with a stub that checks what aider
# needs.

AGENTS_DIR=${JAIL_AGENTS_DIR:-/tmp/jail-agents-$(id -u)}
AGENT_BIN=$AGENTS_DIR/node_modules/.bin
source "$TESTS/agent_pins.bash"

agents_installed() {
	local a p
	for a in claude codex gemini opencode; do [ -x "$AGENT_BIN/$a" ] || return 1; done
	for p in "${AGENT_PINS[@]}"; do agent_pinned "$AGENTS_DIR" "${p%@*}" || return 1; done
}

# The check is made under the lock too: another suite may be installing now,
# and its links can be there before its packages are whole.
agents_install() {
	mkdir -p "$AGENTS_DIR"
	(
		flock 9
		agents_installed && exit 0
		command -v npm >/dev/null || { echo "npm is needed to install the agent CLIs" >&2; exit 1; }
		# the system's CA store, as the host's own npm is set up to use (the
		# suite's environment is built from nothing)
		[ -r /etc/ssl/certs/ca-certificates.crt ] &&
			export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
		npm install --silent --no-fund --no-audit --save-exact --prefix "$AGENTS_DIR" \
			--cache "$AGENTS_DIR/.npm-cache" "${AGENT_PINS[@]}" &&
			chmod -R a+rX "$AGENTS_DIR"
	) 9>"$AGENTS_DIR/.lock" || fail "npm install of the agent CLIs failed"
}

agent_setup() { # the project and a home of the host user's that has some config
	export JAIL_POLICY_PATH=$TESTS/../policies
	agents_install
	mkrepo "$T/p"
	export HOME=$T/h
	mkdir -p "$HOME/.ssh"
	printf 'ssh-canary-6642\n' >"$HOME/.ssh/id_ed25519"
}

# agent_in_jail POLICY ARGS...: the agent's CLI in the jail, output in $out.
agent_in_jail() {
	local pol=$1 sess=default
	shift
	[ "$1" = -s ] && { sess=$2; shift 2; }
	run_jail -p "$pol" -s "$sess" --net none --ro "$AGENTS_DIR" --no-export -D "$T/p" -- "$@"
}

# agent_start POLICY CMD...: start the agent next to the fake API (port 8765
# of the jail's own loopback: --net none), once it listens; $out holds
# "status=N", the requests the API saw, then the agent's last output lines.
agent_start() {
	local pol=$1
	shift
	run_jail -p "$pol" --net none --ro "$AGENTS_DIR" --ro "$TESTS/helpers" --no-export -D "$T/p" -- \
		sh -c 'python3 "$0" 8765 /tmp/requests /tmp/api.ready & i=0
			while [ ! -e /tmp/api.ready ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
			timeout 40 "$@" </dev/null >/tmp/agent.out 2>&1
			echo "status=$?"; cat /tmp/requests; echo "--- agent output"; tail -n 15 /tmp/agent.out' \
		"$TESTS/helpers/fakeapi.py" "$@"
}

# check_version AGENT POLICY WORD: the jail runs the same CLI as the host does.
check_version_and_help() {
	local host
	host=$("$AGENT_BIN/$1" --version 2>/dev/null) || fail "$1 --version on the host: $host"
	agent_in_jail "$2" "$AGENT_BIN/$1" --version
	assert_eq "$rc" 0 "$1 --version status in the jail ($err)"
	assert_eq "$out" "$host" "$1 --version in the jail"
	assert_contains "$out" "$3"
	agent_in_jail "$2" sh -c '"$0" --help 2>&1' "$AGENT_BIN/$1"
	assert_eq "$rc" 0 "$1 --help status in the jail ($out $err)"
	assert_contains "$out" "sage"
}

# check_home POLICY FILE...: the policy copies FILEs in; nothing else of home.
# (In a session of its own: the agent policies keep their home per session.)
check_home() {
	local pol=$1 f
	shift
	for f in "$@"; do
		mkdir -p "$(dirname "$HOME/$f")"
		printf '{"marker": "copied-%s"}\n' "$pol" >"$HOME/$f"
	done
	agent_in_jail "$pol" -s homecheck sh -c 'for f in "$@"; do cat "$HOME/$f"; done; cat ~/.ssh/id_ed25519 2>&1; true' sh "$@"
	assert_eq "$rc" 0 "status ($out $err)"
	assert_eq "$(grep -c "copied-$pol" <<<"$out")" "$#" "files copied in by $pol"
	assert_not_contains "$out" "ssh-canary-6642"
}

test_agent_claude() {
	agent_setup
	check_version_and_help claude claude "Claude Code"
	check_home claude .claude.json .claude/settings.json
	rm -f "$HOME/.claude.json" "$HOME/.claude/settings.json"
	# the policy passes the key and the base URL from the host's environment
	export ANTHROPIC_API_KEY=sk-ant-fake ANTHROPIC_BASE_URL=http://127.0.0.1:8765
	agent_start claude "$AGENT_BIN/claude" -p hello
	assert_contains "$out" "POST /v1/messages"
	assert_contains "$out" "fake api: bad key"
	assert_contains "$("$JAIL" policy show -p claude -D "$T/p")" "allow = api.anthropic.com:443"
}

test_agent_codex() {
	agent_setup
	check_version_and_help codex codex "codex"
	check_home codex .codex/config.toml .codex/auth.json
	rm -f "$HOME/.codex/config.toml" "$HOME/.codex/auth.json"
	export OPENAI_API_KEY=sk-fake
	agent_start codex "$AGENT_BIN/codex" exec \
		-c 'model_providers.fake={name="fake",base_url="http://127.0.0.1:8765/v1",env_key="OPENAI_API_KEY",wire_api="responses"}' \
		-c model_provider=fake hello
	assert_contains "$out" "POST /v1/responses"
	assert_contains "$(sed -n '/--- agent output/,$p' <<<"$out")" "401"
	assert_contains "$("$JAIL" policy show -p codex -D "$T/p")" "allow = api.openai.com:443"
}

test_agent_gemini() {
	agent_setup
	check_version_and_help gemini gemini "."
	check_home gemini .gemini/GEMINI.md .gemini/oauth_creds.json
	# the copied settings choose API-key sign-in
	printf '{"security":{"auth":{"selectedType":"gemini-api-key"}}}\n' >"$HOME/.gemini/settings.json"
	rm -f "$HOME/.gemini/oauth_creds.json"
	export GEMINI_API_KEY=fake-key
	agent_start gemini env GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8765 \
		GEMINI_CLI_TRUST_WORKSPACE=true "$AGENT_BIN/gemini" -p hello
	assert_contains "$out" "POST /v1beta/models/"
	assert_contains "$("$JAIL" policy show -p gemini -D "$T/p")" \
		"allow = generativelanguage.googleapis.com:443"
}

test_agent_opencode() {
	agent_setup
	check_version_and_help opencode opencode "."
	check_home opencode .config/opencode/opencode.json .local/share/opencode/auth.json
	rm -f "$HOME/.config/opencode/opencode.json" "$HOME/.local/share/opencode/auth.json"
	export ANTHROPIC_API_KEY=sk-ant-fake
	agent_start opencode env ANTHROPIC_BASE_URL=http://127.0.0.1:8765/v1 \
		"$AGENT_BIN/opencode" run -m anthropic/claude-sonnet-4-5 hello
	assert_contains "$out" "POST /v1/messages"
	assert_contains "$out" "fake api: bad key"
}

# aider is not on npm: a stub in the place pipx installs aider checks what the
# policy must give it.
test_agent_aider_policy_with_a_stub() {
	export JAIL_POLICY_PATH=$TESTS/../policies
	mkrepo "$T/p"
	export HOME=$T/h
	local venv=$HOME/.local/share/pipx/venvs/aider-chat
	mkdir -p "$venv/bin"
	printf 'model: gpt-4o\n' >"$HOME/.aider.conf.yml"
	printf 'OPENAI_API_KEY=from-dotenv-1188\n' >"$HOME/.env"
	cat >"$venv/bin/aider" <<-'EOF'
	#!/bin/sh
	set -e
	test "$(cat ~/.aider.conf.yml)" = "model: gpt-4o"
	test "$OPENAI_API_KEY" = "sk-fake-aider"
	test "$AIDER_CHECK_UPDATE" = false
	test ! -e ~/.env
	touch "$0" 2>/dev/null && { echo "its install is writable"; exit 1; }
	echo aider-stub-ok
	EOF
	chmod +x "$venv/bin/aider"
	export OPENAI_API_KEY=sk-fake-aider
	run_jail -p aider --net none -D "$T/p" --no-export -- "$venv/bin/aider"
	assert_eq "$rc" 0 "stub status: $out $err"
	assert_eq "$out" "aider-stub-ok"
	assert_contains "$("$JAIL" policy show -p aider -D "$T/p")" "allow = api.openai.com:443"
}
