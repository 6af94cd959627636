# Real projects: CPython's own regression tests (Debian's libpython3.11-testsuite)
# run on the host and inside the jail, as the same user with the same network
# (none), and compared test by test: no test that passes on the host may fail
# inside.  Slow (minutes): run by `make check-realworld`, not by `make check`.
#
# The modules are the OS-heavy ones, where a sandbox shows: processes and their
# ids (test_subprocess: user=, group=, setuid), files and their owners
# (test_os, test_posix, test_shutil: chown without permission), the user and
# group databases (test_pwd, test_grp), temporary files (test_tempfile) and
# terminals (test_pty).
CPYTHON_MODULES="test_os test_subprocess test_posix test_shutil test_pwd test_grp test_tempfile test_pty"

test_cpython_regression_tests_pass_inside_as_on_the_host() {
	local py=/usr/bin/python3.11
	if ! [ -x "$py" ] || ! [ -f /usr/lib/python3.11/test/test_os.py ]; then
		echo "SKIP: no CPython test suite (apt-get install libpython3.11-testsuite)"
		return 0
	fi
	git_init "$T/p"
	mkdir -p "$T/h"
	# shellcheck disable=SC2086
	(cd "$T/h" && "$py" -m test --junit-xml "$T/host.xml" $CPYTHON_MODULES >"$T/host.log" 2>&1) || true
	# shellcheck disable=SC2086
	run_jail -q -D "$T/p" --no-export -- sh -c \
		"$py -m test --junit-xml '$T/p/jail.xml' $CPYTHON_MODULES >'$T/p/jail.log' 2>&1; true"
	assert_eq "$rc" 0 "jail: $err"
	# the report is in the session's upper dir: export it with git's help
	local up
	up="$(session_dir "$T/p")/upper"
	[ -f "$up/jail.xml" ] || fail "no report from the jail: $(tail -n 20 "$up/jail.log" 2>/dev/null)"
	python3 "$TESTS/helpers/junit_compare.py" "$T/host.xml" "$up/jail.xml"
}
