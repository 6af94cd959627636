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
	# and jail export's summary is cut the same way
	run_jail export -D "$T/p"
	assert_eq "$rc" 0 "$err"
	lines=$(printf '%s\n' "$err" | wc -l)
	[ "$lines" -le 44 ] || fail "export summary of $lines lines"
	assert_contains "$err" "more: jail status"
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

# many_files P N: a session of P holding N new files (no export yet).
many_files() {
	run_jail -D "$1" --no-export -- sh -c "cd '$1' && i=0; while [ \$i -lt $2 ]; do
		echo \$i >f\$i.txt; i=\$((i + 1)); done"
	assert_eq "$rc" 0 "$err"
}

test_long_exports_show_progress_on_a_terminal() {
	command -v script >/dev/null || fail "script(1) is missing"
	mkrepo "$T/p"
	many_files "$T/p" 1500
	# stderr a terminal: the count, redrawn in place, then cleared
	out=$(script -qec "'$JAIL' export -D '$T/p' >/dev/null" /dev/null </dev/null)
	assert_contains "$out" $'\r\033[Kjail: exporting 0/1,500 files'
	assert_contains "$out" "jail: exporting: checking 0/1,500 files"
	assert_contains "$out" $'git writes the patch of 1,500/1,500 files\r\033[K'
	assert_contains "$out" "1500 files changed"
	# stdout a terminal, stderr not: no progress in what stderr got
	script -qec "'$JAIL' export -D '$T/p' 2>'$T/err.txt'" /dev/null </dev/null >/dev/null
	assert_contains "$(cat "$T/err.txt")" "1500 files changed"
	assert_not_contains "$(cat "$T/err.txt")" "exporting"
	assert_eq "$(grep -c $'\r' "$T/err.txt" || true)" 0 "carriage returns in a file"
	# no terminal at all, or --quiet on one: none either
	run_jail export -D "$T/p"
	assert_not_contains "$err" "exporting"
	# the run's own export on a terminal shows it too
	out=$(script -qec "'$JAIL' -D '$T/p' -- sh -c 'echo x >f1.txt'" /dev/null </dev/null)
	assert_contains "$out" "jail: exporting 0/1,500 files"
	out=$(script -qec "'$JAIL' -q -D '$T/p' -- sh -c 'echo y >f1.txt'" /dev/null </dev/null)
	assert_not_contains "$out" "exporting"
}

test_small_exports_show_no_progress() {
	mkrepo "$T/p"
	many_files "$T/p" 20
	out=$(script -qec "'$JAIL' export -D '$T/p' >/dev/null" /dev/null </dev/null)
	assert_contains "$out" "20 files changed"
	assert_not_contains "$out" "exporting"
}
