# The broker attacked as the agent would, a third round (src/broker/): learn
# the real key, or part of it, from what the broker gives the jail or
# answers.  Each test of a hole fails on the build before its fix.  The
# world is broker.sh's (broker_world.bash): a TLS upstream on a namespace's
# loopback standing in for the brokered host, quoting requests back.
source "$TESTS/integration/broker_world.bash"

# A key whose random part holds a '-' or '_' within its first 16 characters
# (a UUID, as many APIs issue; an sk-proj- key, one in five) kept in its
# placeholder everything up to that character: the jail's variable held a
# UUID key's first 12 hex digits as they are, 48 of its 122 random bits.
# Now only the format's words are kept (sk-ant-api03-, ghp_); a UUID has
# none, and its placeholder shares its characters by chance only.
test_broker_placeholder_keeps_no_random_characters() {
	broker_world
	local uuid=9f3c2a71-e4b8-4d05-a6c9-1b7e35d80f42
	export TEST_UUID_KEY=$uuid
	run_jail "${B[@]}" --secret "UUID_KEY=broker:env:TEST_UUID_KEY for $HOSTNAME_B" -- sh -c '
		printf "%s\n" "$UUID_KEY"
		curl -sS -m 20 -H "x-api-key: $UUID_KEY" https://api.anthropic.com/echo'
	assert_eq "$rc" 0 "(stderr: $err)"
	local ph
	ph=$(printf '%s\n' "$out" | head -n 1)
	assert_eq "${#ph}" "${#uuid}" "placeholder length"
	assert_ne "${ph:0:13}" "${uuid:0:13}" "the UUID's first groups are not in the placeholder"
	# the key went upstream, and none of it came back
	assert_contains "$(cat "$T/up.log")" "x-api-key: $uuid" "the upstream got the key"
	assert_not_contains "$out" "$uuid"
	assert_not_contains "$out" "${uuid:0:8}"
}
