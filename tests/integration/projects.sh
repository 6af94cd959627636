# Real projects inside the jail: the id calls answer as on the host, hidden
# build output is announced, the secrets mode, non-git projects.

# The same script on the host and in the jail, as the same user, prints the
# same errno for every id call (EPERM where the single-id namespace would say
# EINVAL).
test_id_calls_fail_as_on_the_host() {
	command -v python3 >/dev/null || { echo "SKIP: no python3"; return 0; }
	mkrepo "$T/p"
	cp "$TESTS/helpers/idcalls.py" "$T/p/idcalls.py"
	touch "$T/p/f"
	python3 "$T/p/idcalls.py" "$T/p/f" >"$T/host.txt"
	assert_contains "$(cat "$T/host.txt")" "chown_other_uid EPERM"
	run_jail -q -D "$T/p" -- python3 "$T/p/idcalls.py" "$T/p/f"
	assert_eq "$rc" 0 "python3 in the jail: $err"
	diff -u "$T/host.txt" <(printf '%s\n' "$out") || fail "the id calls differ (host, jail)"
}
