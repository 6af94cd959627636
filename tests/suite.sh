#!/usr/bin/env bash
# suite.sh — runs every test_* function of tests/integration/*.sh and
# tests/security/*.sh, each in its own bash with `set -e`, its own temp dir and
# its own XDG_STATE_HOME.  Run by tests/run as an unprivileged user.  A test
# that calls lib.sh's skip counts as skipped (exit 77 with skip's marker).
set -u
passed=0 failed=0 skipped=0
# SUITE_DIRS: the directories of tests/ to run (tests/run names packaging/ alone,
# as root, from the checkout)
files=()
for dir in ${SUITE_DIRS:-integration security e2e realworld}; do
	files+=("$TESTS/$dir"/*.sh)
done
for file in "${files[@]}"; do
	[ -f "$file" ] || continue
	rel=${file#"$TESTS"/}
	# the slow real-world comparisons run only when named (make check-realworld)
	[[ "$rel" == realworld/* && "$FILE_FILTER" != realworld* ]] && continue
	[ -n "$FILE_FILTER" ] && [[ "$rel" != *"$FILE_FILTER"* ]] && [[ "unit" != *"$FILE_FILTER"* ]] && continue
	echo "# $rel"
	for fn in $(bash -c "source '$TESTS/lib.sh'; source '$file'; declare -F" | awk '{print $3}' | grep '^test_'); do
		[ -n "$TEST_FILTER" ] && [[ "$fn" != *"$TEST_FILTER"* ]] && continue
		T=$(mktemp -d /tmp/jail-t.XXXXXX)
		log="$T.log"
		start=$SECONDS
		T="$T" XDG_STATE_HOME="$T/state" XDG_CONFIG_HOME="$T/config" \
			timeout -k 5 ${TEST_TIMEOUT:-120} bash -c "
			cd '$T' || exit 1
			source '$TESTS/lib.sh'
			source '$file'
			set -eE -o pipefail
			trap 'echo \"    at line \$LINENO: \$BASH_COMMAND\" >&2' ERR
			$fn
		" >"$log" 2>&1
		rc=$?
		# a test past half its time is named: on a slower or busier machine
		# it would be killed (the timeout is per test)
		took=$((SECONDS - start)) slow=
		[ $((took * 2)) -gt "${TEST_TIMEOUT:-120}" ] && slow=" (slow: ${took} s of ${TEST_TIMEOUT:-120})"
		if [ $rc = 77 ] && [ -f "$T.skip" ]; then
			skipped=$((skipped + 1))
			echo "skip - $rel: $fn: $(head -n 1 "$T.skip")"
		elif [ $rc = 0 ]; then
			passed=$((passed + 1))
			echo "ok - $rel: $fn$slow"
		else
			failed=$((failed + 1))
			echo "not ok - $rel: $fn (exit $rc)$slow"
			sed 's/^/    /' "$log" | tail -n 30
		fi
		chmod -R u+rwX "$T" 2>/dev/null
		rm -rf "$T" "$log" "$T.skip"
	done
done
echo "suite: $passed passed, $failed failed, $skipped skipped"
