# fleet.sh — jail where fleets of agents run: inside another sandbox's user
# namespace (CI runners and containers nest it the same way).

# Nested in bwrap's user namespace: jail works as on the host.
test_runs_nested_in_bwrap_user_namespace() {
	command -v bwrap >/dev/null || fail "bwrap is not installed (scripts/setup installs it)"
	bwrap --unshare-user --dev-bind / / true 2>/dev/null ||
		skip "bwrap cannot make a user namespace on this host"
	mkrepo "$T/p"
	local out
	out=$(cd "$T/p" && bwrap --unshare-user --dev-bind / / "$JAIL" -q -- \
		sh -c 'cat .env 2>&1 || echo hidden; echo ok > new.txt; id -u')
	assert_contains "$out" "hidden"
	assert_contains "$out" "$(id -u)"
	assert_no_file "$T/p/new.txt"
	assert_contains "$("$JAIL" status -D "$T/p")" "new.txt"
}

# An outer sandbox that forbids nesting: one line naming what blocks it and what
# to change, from jail and from jail doctor.
test_outer_sandbox_forbidding_userns_is_named() {
	bwrap --unshare-user --disable-userns --dev-bind / / true 2>/dev/null ||
		skip "this bwrap has no --disable-userns (bubblewrap < 0.8)"
	mkrepo "$T/p"
	cd "$T/p"
	set +e
	err=$(bwrap --unshare-user --disable-userns --dev-bind / / "$JAIL" -- true 2>&1 >/dev/null)
	rc=$?
	set -e
	assert_eq "$rc" 125
	assert_eq "$(grep -c . <<<"$err")" 1 "error lines"
	assert_contains "$err" "no user namespace may be nested here"
	assert_contains "$err" "fix:"
	local doc
	doc=$(bwrap --unshare-user --disable-userns --dev-bind / / "$JAIL" doctor 2>&1 || true)
	assert_contains "$doc" "[FAIL] cannot create an unprivileged user namespace: no user namespace may be nested"
}
