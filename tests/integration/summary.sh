# summary.sh — end-of-run summaries that scale (issue 14).

test_a_run_that_changes_nothing_prints_nothing() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -- sh -c 'echo more >>README'
	assert_contains "$err" "1 file changed"
	patch=$(ls "$(session_dir "$T/p")"/patches/*.patch)
	touch -d '2000-01-01' "$patch"
	before=$(stat -c %Y "$patch")
	run_jail -D "$T/p" -- true
	assert_eq "$rc" 0
	assert_eq "$err" "" "a run that changed nothing says nothing"
	assert_eq "$(stat -c %Y "$patch")" "$before" "the patch was not rebuilt"
	# reading files is no change either
	run_jail -D "$T/p" -- cat README
	assert_eq "$err" ""
	# a change is reported again, with what this run did
	run_jail -D "$T/p" -- sh -c 'echo n >new.txt'
	assert_contains "$err" "this run changed 1 file: new.txt; the session holds:"
	assert_contains "$err" "2 files changed"
	assert_ne "$(stat -c %Y "$patch")" "$before" "rebuilt after a change"
}

test_summary_is_cut_after_a_screenful() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -- sh -c 'for i in $(seq 1 120); do echo $i >f$i.txt; done'
	assert_eq "$rc" 0 "$err"
	lines=$(printf '%s\n' "$err" | wc -l)
	[ "$lines" -le 44 ] || fail "summary of $lines lines"
	assert_contains "$err" "120 files changed"
	assert_contains "$err" "more: jail status"
	assert_contains "$err" "patch: "
	assert_contains "$err" "git -C"
	# jail status has them all
	assert_eq "$("$JAIL" status -D "$T/p" | grep -c ' A f')" 120
}

test_landing_hint_quotes_paths_and_knows_patch() {
	mkrepo "$T/my project"
	run_jail -D "$T/my project" -- sh -c 'echo more >>README'
	assert_contains "$err" "git -C '$T/my project' am "
	mkdir -p "$T/plain"
	echo a >"$T/plain/a.txt"
	run_jail -D "$T/plain" -- sh -c 'echo b >>a.txt'
	assert_contains "$err" "land it: patch -d $T/plain -p1 < "
	cmd=$(printf '%s\n' "$err" | sed -n 's/.*land it: //p')
	(eval "$cmd") >/dev/null
	assert_eq "$(cat "$T/plain/a.txt")" "$(printf 'a\nb')" "the hint's command lands it"
}
