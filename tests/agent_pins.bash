# agent_pins.bash — the versions of the agent CLIs the agent tests install from
# npm (tests/integration/agents.sh, tests/e2e/*.sh), sourced by both.  Pinned:
# unpinned, each machine ran whatever npm had on the day it first installed
# them (a fresh CI machine the newest, a developer's cache an old one), so a
# new release could fail the suite on one machine and not on another.  To move
# on: change a version here and run the agent tests; the cache follows.
# (@google/gemini-cli needs node >= 20.)
AGENT_PINS=(
	@anthropic-ai/claude-code@2.1.197
	@openai/codex@0.171.0
	@google/gemini-cli@0.61.0
	opencode-ai@1.18.33
)

# agent_pin PACKAGE: PACKAGE@VERSION as pinned.
agent_pin() {
	local p
	for p in "${AGENT_PINS[@]}"; do
		[ "${p%@*}" = "$1" ] && { echo "$p"; return 0; }
	done
	fail "no pinned version of $1 in tests/agent_pins.bash"
}

# agent_pinned DIR PACKAGE: DIR (an npm prefix) holds PACKAGE at its pinned version.
agent_pinned() {
	local want have
	want=$(agent_pin "$2") || return 1
	have=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' \
		"$1/node_modules/$2/package.json" 2>/dev/null) || return 1
	[ "$2@$have" = "$want" ]
}
