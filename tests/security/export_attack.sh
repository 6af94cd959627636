# The escape suite: what leaves the jail through jail export and jail apply,
# attacked from the agent's side (its session's files and its own commits).
# Each test lands the session in the project the way the user would and
# checks what git am put there, not only what the summary says.

# A symlink names every path below it: `.claude -> cl` makes cl/settings.json
# the .claude/settings.json Claude Code runs hooks from, `.github -> ci` makes
# ci/workflows/* the repository's CI.  Such a link is left out where the
# directory it stands for would be, and flagged where it would be flagged.
test_export_symlink_in_place_of_a_left_out_directory() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'mkdir -p cl nm; echo "{\"hooks\":{}}" > cl/settings.json
		ln -s cl .claude; echo x > nm/index.js; ln -s nm node_modules
		git config user.name A; git config user.email a@b
		mkdir -p vs; echo "{}" > vs/tasks.json; ln -s vs .Vscode; git add vs .Vscode
		git commit -qm "editor tasks"'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" ".claude: a symlink where a directory of '.claude/settings.json'"
	assert_contains "$err" "node_modules: a symlink where a directory of 'node_modules/'"
	assert_no_file "$T/p/.claude"
	assert_no_file "$T/p/node_modules"
	assert_no_file "$T/p/.Vscode"
	# positive control: what they lead to lands as the plain files it is
	assert_eq "$(cat "$T/p/cl/settings.json")" '{"hooks":{}}' "cl/settings.json"
	assert_eq "$(cat "$T/p/vs/tasks.json")" '{}' "vs/tasks.json"
}

test_export_symlink_in_place_of_a_flagged_directory() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'mkdir -p ci/workflows; echo "on: push" > ci/workflows/x.yml
		ln -s ci .github; echo more >> README'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 125 "jail apply without --accept-flagged ($err)"
	assert_contains "$err" ".github: changes what CI runs"
	assert_no_file "$T/p/.github"
	assert_eq "$(cat "$T/p/README")" "hello" "README after the refusal"
	run_jail apply --accept-flagged -D "$T/p"
	assert_eq "$rc" 0 "jail apply --accept-flagged ($err)"
	assert_eq "$(readlink "$T/p/.github")" "ci" "the link after the accepted apply"
}

# git am's mailinfo takes a first body line "[PATCH] TEXT" for the subject:
# the summary would show one subject and git am land another.
test_export_commit_message_cannot_replace_its_subject() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'git config user.name A; git config user.email a@b
		echo more >> README; git commit -qam "Add telemetry upload" -m "[PATCH] Fix typo" -m body'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" "Add telemetry upload"
	assert_eq "$(git -C "$T/p" log -1 --format=%s)" "Add telemetry upload" "the landed subject"
	assert_contains "$(git -C "$T/p" log -1 --format=%b)" "[PATCH] Fix typo"
}

# git takes a file for binary by a NUL in its first 8000 bytes; a script of
# 8000 text bytes and a payload after them is a text patch to git.  The rule
# leaves binary content out wherever the NUL is, in a commit of the agent too.
test_export_binary_payload_after_the_probe_is_left_out() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'mk() { head -c 9000 /dev/zero | tr "\0" "#" > "$1"
			printf "\nexit 0\n\177ELF\0\0\0payload" >> "$1"; }
		mk run.sh; git config user.name A; git config user.email a@b
		mk inst.sh; git add inst.sh; git commit -qm installer; echo more >> README'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail export -D "$T/p" -o "$T/out"
	assert_eq "$rc" 0 "jail export ($err)"
	assert_contains "$err" "run.sh: binary content"
	assert_contains "$err" "inst.sh: binary content"
	assert_eq "$(grep -la 'payload' "$T"/out/*.patch | wc -l)" 0 "patches with the payload"
	assert_contains "$(cat "$T"/out/*.patch)" "+more"  # positive control
	run_jail export --allow-binary -D "$T/p" -o "$T/out2"
	assert_eq "$rc" 0 "jail export --allow-binary ($err)"
	assert_eq "$(grep -la 'payload' "$T"/out2/*.patch | wc -l)" 2 "patches with the payload"
}

# jail diff on a terminal shows the agent's bytes escaped and coloured, which
# can take 14 times their size (a line "\r": "+\x0d" in green).  It is made a
# piece at a time as it is written: its peak with colour stays that without.
test_export_diff_on_a_terminal_is_escaped_a_piece_at_a_time() {
	[ -x /usr/bin/time ] || skip "no /usr/bin/time to read the peak memory"
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'for i in 1 2 3 4 5 6; do
		head -c 2500000 /dev/zero | tr "\0" "\r" | sed "s/\r/\r\n/g" > cr$i.txt; done'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail status -D "$T/p"
	assert_contains "$out" "6 files changed"
	peak() { /usr/bin/time -f "peak %M" "$JAIL" diff "$@" -D "$T/p" 2>&1 >/dev/null </dev/null |
		sed -n 's/^peak //p'; }
	plain=$(peak --color=never)
	colored=$(peak --color=always)
	[ -n "$plain" ] && [ -n "$colored" ] || fail "no peak read: '$plain' '$colored'"
	# positive control: the escaping is there
	assert_contains "$("$JAIL" diff --color=always -D "$T/p" </dev/null | head -c 400)" '+\x0d'
	[ "$colored" -lt $((plain * 3 / 2)) ] ||
		fail "jail diff --color=always peaked at $colored KiB, without colour $plain KiB"
}

# A path below a symlink of the host's tree makes git check-ignore die on the
# whole batch.  In the working tree's export such a path was left out with the
# reason; one in a commit of the agent's stopped every export and apply.
test_export_commit_below_a_host_symlink_is_left_out() {
	mkrepo "$T/p"
	mkdir "$T/p/target" && ln -s target "$T/p/link"  # untracked, not ignored
	before=$(tree_hash "$T/p")
	run_jail -q -D "$T/p" -- sh -c 'git config user.name A; git config user.email a@b
		rm link; mkdir link; echo x > link/f; echo ok > ok.txt; git add -f link/f ok.txt
		git commit -qm "below the link"'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail export -D "$T/p" -o "$T/out"
	assert_eq "$rc" 0 "jail export ($err)"
	assert_contains "$err" "link/f: the host has a symlink at 'link'"
	assert_contains "$(cat "$T"/out/*.patch)" "+ok"
	assert_eq "$(tree_hash "$T/p")" "$before" "the project"
}

# CI of other services than GitHub's and GitLab's runs what the pushed tree
# says with the repository's secrets too: flagged like .github/workflows/.
test_export_other_ci_files_are_flagged() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'mkdir -p .circleci; echo "version: 2.1" > .circleci/config.yml
		echo "pipeline {}" > Jenkinsfile; echo more >> README'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 125 "jail apply without --accept-flagged ($err)"
	assert_contains "$err" ".circleci/config.yml: changes what CI runs"
	assert_contains "$err" "Jenkinsfile: changes what CI runs"
	assert_no_file "$T/p/Jenkinsfile"
	run_jail apply --accept-flagged -D "$T/p"
	assert_eq "$rc" 0 "jail apply --accept-flagged ($err)"
	assert_file "$T/p/.circleci/config.yml"
}

# mailinfo strips "[...]" and "Re:" from the start of a subject: "[x] [y]"
# alone landed as the next line git am found (the Jail-Session trailer).
# The summary and the patch carry the subject as it lands.
test_export_subject_as_git_am_lands_it() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'git config user.name A; git config user.email a@b
		echo 1 >> README; git commit -qam "[x] [y]"; echo 2 >> README
		git commit -qam "[wip] Re: add retry"'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" ": (no message) (author"
	assert_contains "$err" ": add retry (author"
	assert_eq "$(git -C "$T/p" log -2 --format=%s | tr '\n' '|')" "add retry|(no message)|" "the landed subjects"
}

# A commit message is read whole and held three times over: the agent's
# commits may hold 1 GiB of them.  One past 64 KiB is cut (with a note), and
# commits of more than 64 MiB together go out as the single patch.
test_export_commit_messages_bounded() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'git config user.name A; git config user.email a@b
		(echo long; echo; head -c 200000 /dev/zero | tr "\0" x | fold -w 100) > /tmp/m
		echo 1 >> README; git commit -qa -F /tmp/m'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	msg=$(git -C "$T/p" log -1 --format=%B)
	assert_contains "$msg" "jail cut this message here"
	[ "${#msg}" -lt 70000 ] || fail "the landed message holds ${#msg} bytes"
	assert_eq "$(git -C "$T/p" log -1 --format=%s)" "long" "the landed subject"
	mkrepo "$T/q"
	run_jail -q -D "$T/q" -- sh -c 'git config user.name A; git config user.email a@b
		(echo huge; echo; head -c 40000000 /dev/zero | tr "\0" x | fold -w 100) > /tmp/m
		for i in 1 2; do echo $i >> README; git commit -qa -F /tmp/m; done'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail status -D "$T/q"
	assert_eq "$rc" 0 "jail status ($err)"
	assert_contains "$out$err" "commit objects hold more than 64 MiB"
	assert_contains "$out" "M README"  # positive control: the work still goes out
}

# A control file inside a submodule is flagged too, and named with the
# submodule's path: ".gitignore" alone would read as the superproject's.
test_export_flagged_file_in_a_submodule_named_by_its_path() {
	git_init "$T/lib"
	echo lib >"$T/lib/lib.c" && echo '*.o' >"$T/lib/.gitignore"
	git -C "$T/lib" add . && git -C "$T/lib" commit -qm lib
	mkrepo "$T/p"
	git -C "$T/p" -c protocol.file.allow=always submodule -q add "$T/lib" sub
	git -C "$T/p" commit -qm sub
	git -C "$T/p/sub" config user.email t@example.com && git -C "$T/p/sub" config user.name Tester
	run_jail -q -D "$T/p" -- sh -c 'echo "!secret" >> sub/.gitignore; echo x >> sub/lib.c'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 125 "jail apply without --accept-flagged ($err)"
	assert_contains "$err" "sub/.gitignore: changes which files git ignores"
	assert_eq "$(cat "$T/p/sub/.gitignore")" "*.o" "the submodule's .gitignore after the refusal"
	run_jail apply --accept-flagged -D "$T/p"
	assert_eq "$rc" 0 "jail apply --accept-flagged ($err)"
	assert_contains "$(cat "$T/p/sub/.gitignore")" "!secret"
}

# A host symlink at a control file's name gives the file it leads to that
# name: `.pre-commit-config.yaml -> ci/hooks.yaml` (landed once, flagged, or
# made by the user) is what pre-commit runs, `.claude -> tools/claude` where
# Claude Code reads its settings.  A change to what they lead to is flagged.
test_export_change_through_a_host_control_link_is_flagged() {
	mkrepo "$T/p"
	mkdir -p "$T/p/ci" "$T/p/tools/claude"
	echo "repos: []" >"$T/p/ci/hooks.yaml"
	echo "{}" >"$T/p/tools/claude/settings.json" && echo r >"$T/p/tools/claude/README"
	git -C "$T/p" add -A . && git -C "$T/p" commit -qm tools
	run_jail -q -D "$T/p" -- sh -c 'echo "repos: [evil]" > ci/hooks.yaml
		echo "{\"hooks\":1}" > tools/claude/settings.json; echo more >> tools/claude/README'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail status -D "$T/p"  # the host's links are remembered: none yet
	assert_not_contains "$out" "through the host's symlink"
	ln -s ci/hooks.yaml "$T/p/.pre-commit-config.yaml" && ln -s tools/claude "$T/p/.claude"
	git -C "$T/p" add -A . && git -C "$T/p" commit -qm links
	run_jail apply -D "$T/p"
	assert_eq "$rc" 125 "jail apply without --accept-flagged ($err)"
	assert_contains "$err" "ci/hooks.yaml: read as .pre-commit-config.yaml through the host's symlink"
	assert_contains "$err" "tools/claude/settings.json: read as .claude/settings.json"
	assert_not_contains "$err" "tools/claude/README:"  # not a name any rule has
	assert_eq "$(cat "$T/p/ci/hooks.yaml")" "repos: []" "ci/hooks.yaml after the refusal"
	run_jail apply --accept-flagged -D "$T/p"
	assert_eq "$rc" 0 "jail apply --accept-flagged ($err)"
	assert_eq "$(cat "$T/p/ci/hooks.yaml")" "repos: [evil]" "ci/hooks.yaml after the accepted apply"
}
