# cli.sh — the command-line contract: every refusal is exit 125 and one line,
# and the session housekeeping subcommands (issue 14).

test_subcommands_refuse_arguments_they_do_not_take() {
	mkrepo "$T/p"
	cd "$T/p"
	for sub in list rm ps stop trust doctor version; do
		expect_fail125 "$sub" extra
		assert_contains "$err" "'jail $sub' takes no arguments, got 'extra'"
	done
	expect_fail125 policy show extra
	assert_contains "$err" "takes fewer arguments"
	expect_fail125 help status extra
}

test_option_values_never_take_dashdash_or_an_option() {
	mkrepo "$T/p"
	cd "$T/p"
	expect_fail125 --hide -- true
	assert_contains "$err" "option --hide needs a value"
	assert_contains "$err" "got '--'"
	expect_fail125 -D -- true
	assert_contains "$err" "option -D needs a value"
	expect_fail125 --ro --net none -- true
	assert_contains "$err" "got '--net'"
	expect_fail125 diff -s --stat
	assert_contains "$err" "option -s needs a value"
	# a value that starts with '-' on purpose is written attached
	run_jail --no-export --hide=-odd -- true
	assert_eq "$rc" 0 "attached value: $err"
}

test_mistyped_subcommand_gets_did_you_mean() {
	mkrepo "$T/p"
	cd "$T/p"
	expect_fail125 stauts
	assert_eq "$err" "jail: 'stauts' is not a jail command (did you mean 'status'?) nor found on PATH"
	expect_fail125 lsit
	assert_contains "$err" "did you mean 'list'"
	# after -- it is a command, run as asked (and not found in the jail)
	run_jail --no-export -- stauts
	assert_eq "$rc" 127
	# a real program close to a subcommand still runs
	mkdir -p "$T/bin" && printf '#!/bin/sh\necho ran\n' >"$T/bin/stauts" && chmod +x "$T/bin/stauts"
	PATH="$T/bin:$PATH" run_jail --no-export --ro "$T/bin" --setenv PATH="$T/bin:/usr/bin:/bin" stauts
	assert_eq "$out" "ran"
}

test_allow_without_net_allow_says_what_to_add() {
	mkrepo "$T/p"
	expect_fail125 -D "$T/p" --allow example.com:443 -- true
	assert_contains "$err" "add --net allow"
	# a policy that sets net.mode = allow is enough
	printf '[net]\nmode = allow\n' >"$T/net.ini"
	mkdir -p "$XDG_CONFIG_HOME/jail" && cp "$T/net.ini" "$XDG_CONFIG_HOME/jail/jail.ini"
	run_jail -D "$T/p" --no-export --allow 127.0.0.1:9 -- true
	assert_not_contains "$err" "add --net allow"
}

test_missing_paths_and_unset_variables_on_the_command_line() {
	mkrepo "$T/p"
	expect_fail125 -D "$T/p" --ro "$T/nonexistent" -- true
	assert_contains "$err" "--ro $T/nonexistent: No such file or directory"
	expect_fail125 -D "$T/p" --rw "$T/nonexistent" -- true
	unset JAIL_TEST_UNSET_VAR
	expect_fail125 -D "$T/p" -e JAIL_TEST_UNSET_VAR -- true
	assert_contains "$err" "-e JAIL_TEST_UNSET_VAR: the variable is not set"
	# a policy file keeps its documented skip
	printf '[fs]\nro = %s/nonexistent\n[env]\npass = JAIL_TEST_UNSET_VAR\n' "$T" >"$T/pol.ini"
	mkdir -p "$XDG_CONFIG_HOME/jail" && cp "$T/pol.ini" "$XDG_CONFIG_HOME/jail/jail.ini"
	run_jail -D "$T/p" --no-export -- true
	assert_eq "$rc" 0 "policy paths are optional: $err"
}

test_version_and_subcommand_help() {
	out=$("$JAIL" -V)
	assert_contains "$out" "jail "
	assert_eq "$("$JAIL" --version)" "$out"
	out=$("$JAIL" status --help)
	assert_contains "$out" "usage: jail status"
	assert_contains "$out" "--export-deny"
	assert_not_contains "$out" "--publish"
	assert_eq "$("$JAIL" help status)" "$out"
	out=$("$JAIL" exec --help)
	assert_contains "$out" "usage: jail exec"
	out=$("$JAIL" --help)
	for s in exec rm ps stop; do assert_contains "$out" "  $s "; done
}

test_reset_of_a_missing_session_is_an_error() {
	mkrepo "$T/p"
	expect_fail125 reset -D "$T/p" -s typo
	assert_contains "$err" "no session 'typo'"
	expect_fail125 rm -D "$T/p" -s typo
}

test_reset_path_keeps_the_other_changes() {
	mkrepo "$T/p"
	run_jail -D "$T/p" --no-export -- sh -c 'echo more >>README && echo new >new.txt &&
		rm main.py && mkdir -p d/e && echo f >d/e/f.txt'
	assert_eq "$rc" 0 "$err"
	run_jail reset -D "$T/p" README main.py d
	assert_eq "$rc" 0 "$err"
	run_jail status -D "$T/p"
	assert_contains "$out" "A new.txt"
	assert_not_contains "$out" "README"
	assert_not_contains "$out" "main.py"
	assert_not_contains "$out" "d/e/f.txt"
	run_jail -D "$T/p" --no-export -- sh -c 'cat README main.py; ls d 2>&1 || true'
	assert_eq "$(sed -n 1,2p <<<"$out")" "$(printf 'hello\nprint("hi")')"
	# relative to the current directory inside the project; nothing outside it
	cd "$T/p"
	expect_fail125 reset ../elsewhere
	assert_contains "$err" "is not inside the project"
	expect_fail125 reset README
	assert_contains "$err" "'README': the session holds no change there"
	run_jail reset new.txt
	assert_eq "$rc" 0 "$err"
	assert_eq "$(cd "$T/p" && "$JAIL" status)" "no changes"
}

test_reset_without_paths_asks_for_all() {
	mkrepo "$T/p"
	run_jail -D "$T/p" --no-export -- sh -c 'echo x >x.txt'
	expect_fail125 reset -D "$T/p"
	assert_contains "$err" "jail reset --all"
	run_jail status -D "$T/p"
	assert_contains "$out" "x.txt"
	run_jail reset -D "$T/p" --all
	assert_eq "$rc" 0 "$err"
	run_jail -D "$T/p" --no-export -- sh -c 'test -e x.txt && echo present || echo absent'
	assert_eq "$out" "absent"
	# a session without changes resets without asking
	run_jail reset -D "$T/p"
	assert_eq "$rc" 0 "$err"
}

test_rm_deletes_the_session() {
	mkrepo "$T/p"
	run_jail -D "$T/p" -s gone --no-export -- sh -c 'echo x >x.txt'
	assert_file "$(session_dir "$T/p" gone)"
	run_jail rm -D "$T/p" -s gone
	assert_eq "$rc" 0 "$err"
	assert_no_file "$(session_dir "$T/p" gone)"
	assert_not_contains "$("$JAIL" list -D "$T/p")" "gone"
}

test_list_all_names_its_columns() {
	mkrepo "$T/p"
	mkrepo "$T/q"
	run_jail -D "$T/p" -s one --no-export -- sh -c 'echo a >a.txt && echo b >b.txt'
	run_jail -D "$T/q" --no-export -- true
	out=$("$JAIL" list --all)
	head=${out%%$'\n'*}
	for col in PROJECT SESSION SIZE BASE CHANGED "LAST RUN"; do assert_contains "$head" "$col"; done
	line=$(printf '%s\n' "$out" | grep " one ")
	assert_contains "$line" "$T/p"
	assert_contains "$line" "$(git -C "$T/p" rev-parse --short=12 HEAD)"
	assert_eq "$(awk '{print $5}' <<<"$line")" 2 "changed files"
	assert_contains "$out" "$T/q"
}

test_pathspecs_choose_what_leaves() {
	mkrepo "$T/p"
	run_jail -D "$T/p" --no-export -- sh -c 'echo more >>README && mkdir -p src && echo c >src/a.c &&
		echo h >src/a.h'
	run_jail diff -D "$T/p" --name-status src
	assert_eq "$out" "$(printf 'A\tsrc/a.c\nA\tsrc/a.h')"
	run_jail diff -D "$T/p" --name-status 'src/*.c' README
	assert_eq "$out" "$(printf 'M\tREADME\nA\tsrc/a.c')"
	run_jail export -D "$T/p" -o "$T/out" README
	assert_eq "$rc" 0 "$err"
	assert_contains "$(cat "$T"/out/*.patch)" "b/README"
	assert_not_contains "$(cat "$T"/out/*.patch)" "src/a.c"
}

test_diff_color_flag() {
	mkrepo "$T/p"
	run_jail -D "$T/p" --no-export -- sh -c 'echo more >>README'
	run_jail diff -D "$T/p" --color=always
	assert_contains "$out" $'\e['
	run_jail diff -D "$T/p" --color=never
	assert_not_contains "$out" $'\e['
	expect_fail125 diff -D "$T/p" --color=sometimes
}

test_diff_pages_on_a_terminal() {
	command -v script >/dev/null || fail "script(1) is missing"
	mkrepo "$T/p"
	run_jail -D "$T/p" --no-export -- sh -c 'echo more >>README'
	printf '#!/bin/sh\necho PAGER-RAN; cat\n' >"$T/pager" && chmod +x "$T/pager"
	out=$(PAGER="$T/pager" in_pty "'$JAIL' diff -D '$T/p'")
	assert_contains "$out" "PAGER-RAN"
	assert_contains "$out" "+more"
	# not a terminal: no pager
	out=$(PAGER="$T/pager" "$JAIL" diff -D "$T/p")
	assert_not_contains "$out" "PAGER-RAN"
}

test_not_found_says_where_the_host_has_it() {
	mkrepo "$T/p"
	mkdir -p "$HOME/.local/bin" "$T/pipx/venv/bin"
	tool=jail-test-tool-$$
	printf '#!/bin/sh\necho tool-ran\n' >"$T/pipx/venv/bin/$tool" && chmod +x "$T/pipx/venv/bin/$tool"
	ln -sf "$T/pipx/venv/bin/$tool" "$HOME/.local/bin/$tool"
	PATH="$HOME/.local/bin:$PATH" run_jail -D "$T/p" --no-export -- "$tool"
	rm -f "$HOME/.local/bin/$tool"
	assert_eq "$rc" 127
	# one line says it (the other, after any failed command, names hidden paths)
	assert_eq "$(printf '%s\n' "$err" | grep -v 'ignored paths were hidden' | grep -c .)" 1 "one line"
	assert_contains "$err" "$tool: command not found in the jail; on the host it is ~/.local/bin/$tool"
	assert_contains "$err" "--ro ~/.local/bin"
	assert_contains "$err" "[fs] ro = ~/.local/bin"
	assert_contains "$err" "it links into $T/pipx/venv/bin"
	# a command the host does not have either: no hint
	run_jail -D "$T/p" --no-export -- no-such-command-xyz
	assert_eq "$(grep -v 'ignored paths were hidden' <<<"$err")" \
		"jail: no-such-command-xyz: command not found in the jail"
}

test_subdirectory_of_a_repository_warns() {
	mkrepo "$T/p"
	mkdir -p "$T/p/sub"
	run_jail -D "$T/p/sub" --no-export -- true
	assert_eq "$rc" 0 "$err"
	assert_contains "$err" "$T/p/sub is inside the git repository $T/p"
	assert_contains "$err" "use -D $T/p"
	run_jail -D "$T/p" --no-export -- true
	assert_not_contains "$err" "inside the git repository"
	# as an ordinary user, no word about root
	assert_not_contains "$err" "root"
}

# bash_comp WORDS...: the completions bash offers for the last word, one a line.
bash_comp() {
	mkdir -p "$T/comp" "$T/share/policies" "$T/bin"
	sed "s|@DATADIR@|$T/share|" "$TESTS/../completions/jail.bash" >"$T/comp/jail.bash"
	ln -sf "$JAIL" "$T/bin/jail"
	PATH="$T/bin:$PATH" bash --norc --noprofile -c 'source "$1" || exit 9; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _jail
		printf "%s\n" "${COMPREPLY[@]}" | sort' bash "$T/comp/jail.bash" "$@"
}

test_bash_completion_knows_live_subcommands_and_spaces() {
	assert_eq "$(bash_comp jail ex | tr '\n' ' ')" "exec export "
	assert_eq "$(bash_comp jail st | tr '\n' ' ')" "status stop "
	assert_eq "$(bash_comp jail stop --ti)" "--timeout"
	assert_eq "$(bash_comp jail list --a)" "--all"
	assert_eq "$(bash_comp jail diff --col | tr '\n' ' ')" "--color --color=always --color=auto --color=never "
	assert_eq "$(bash_comp jail -V)" "-V"
	# a directory name with a space is one completion, not two
	mkdir -p "$T/my project" "$T/my other"
	assert_eq "$(bash_comp jail -D "$T/my p")" "$T/my project"
	# sessions of a project whose path has a space, as typed on the line
	mkrepo "$T/my project/r"
	"$JAIL" -D "$T/my project/r" -s spaced --no-export -- true
	assert_eq "$(bash_comp jail diff -D "${T// /\\ }/my\\ project/r" -s "")" "spaced"
}

test_zsh_completion_knows_live_subcommands() {
	command -v zsh >/dev/null || fail "zsh is not installed (scripts/setup installs it)"
	mkdir -p "$T/comp" "$T/bin" "$T/share/policies"
	sed "s|@DATADIR@|$T/share|" "$TESTS/../completions/_jail" >"$T/comp/_jail"
	ln -sf "$JAIL" "$T/bin/jail"
	out=$(zsh_complete "jail st" "stop")
	assert_contains "$out" "stop"
	assert_contains "$out" "status"
	assert_not_contains "$out" "_jail:"
	out=$(zsh_complete "jail stop --ti" "--timeout")
	assert_contains "$out" "--timeout"
}

test_status_with_words_that_are_no_paths_is_refused() {
	mkrepo "$T/p"
	run_jail -D "$T/p" --no-export -- sh -c 'echo n >new.txt && rm main.py'
	expect_fail125 status -D "$T/p" extra words
	assert_contains "$err" "'extra': no such path in the project or the session"
	# a path only the session has, and one only the project had, are fine
	run_jail status -D "$T/p" new.txt main.py
	assert_eq "$rc" 0 "$err"
	assert_contains "$out" "A new.txt"
	assert_contains "$out" "D main.py"
}
