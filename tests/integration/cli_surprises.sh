# cli_surprises.sh — what a careful new user tripped over: help that lists
# options the subcommand refuses, a typo with no hint, a value taken for a
# path, two options of which one was silently ignored, errors that do not say
# what to do.  Each refusal is exit 125 and one line (expect_fail125).

test_run_help_lists_only_what_a_run_takes() {
	out=$("$JAIL" run --help)
	assert_contains "$out" "usage: jail [run] [OPTIONS] [--] COMMAND"
	assert_contains "$out" "--no-export"
	assert_contains "$out" "--net MODE"
	for f in --stat --name-status --output --three-way --revoke --timeout --accept-flagged; do
		assert_not_contains "$out" "$f"
	done
	assert_eq "$("$JAIL" help run)" "$out"
	# the overview still lists every subcommand and every option
	all=$("$JAIL" --help)
	assert_contains "$all" "subcommands:"
	assert_contains "$all" "--stat"
	assert_eq "$("$JAIL" help)" "$all"
}

test_unknown_option_names_the_near_one() {
	mkrepo "$T/p"
	cd "$T/p"
	expect_fail125 diff --stats
	assert_eq "$err" "jail: unknown option --stats (did you mean --stat?); see jail diff --help"
	expect_fail125 --nett none -- true
	assert_contains "$err" "did you mean --net?"
	expect_fail125 --no-exprot -- true
	assert_contains "$err" "did you mean --no-export?"
	# only the options the subcommand takes are suggested
	expect_fail125 status --stats
	assert_not_contains "$err" "did you mean"
	expect_fail125 --zzzzzz -- true
	assert_not_contains "$err" "did you mean"
	# a prefix that several options share: name them
	expect_fail125 --no -- true
	assert_contains "$err" "option --no is ambiguous (--no-export, --no-trailer)"
	# a unique prefix still works
	run_jail --no-exp -- true
	assert_eq "$rc" 0 "$err"
}

test_diff_color_value_must_be_attached() {
	mkrepo "$T/p"
	run_jail -D "$T/p" --no-export -- sh -c 'echo more >>README'
	expect_fail125 diff -D "$T/p" --color always
	assert_contains "$err" "--color always: write --color=always"
	run_jail diff -D "$T/p" --color=always
	assert_eq "$rc" 0 "$err"
	assert_contains "$out" $'\e['
	# a bare --color before a path is still "always"
	run_jail diff -D "$T/p" --color README
	assert_contains "$out" $'\e['
}

test_diff_stat_and_name_status_are_one_or_the_other() {
	mkrepo "$T/p"
	run_jail -D "$T/p" --no-export -- sh -c 'echo more >>README'
	expect_fail125 diff -D "$T/p" --stat --name-status
	assert_contains "$err" "--stat and --name-status: give one of them"
	run_jail diff -D "$T/p" --name-status
	assert_eq "$out" "$(printf 'M\tREADME')"
}

test_export_output_that_cannot_be_made_names_the_flag() {
	mkrepo "$T/p"
	run_jail -D "$T/p" --no-export -- sh -c 'echo more >>README'
	: >"$T/afile"
	expect_fail125 export -D "$T/p" -o "$T/afile/out"
	assert_contains "$err" "jail: -o $T/afile/out: "
	assert_no_file "$T/afile/out"
}

test_state_directory_that_cannot_be_made_names_xdg_state_home() {
	mkrepo "$T/p"
	mkdir -p "$T/rohome" && chmod 555 "$T/rohome"
	set +e
	out=$(cd "$T/p" && env -u XDG_STATE_HOME HOME="$T/rohome" "$JAIL" --no-export -- true 2>&1)
	rc=$?
	set -e
	assert_eq "$rc" 125 "$out"
	assert_eq "$(grep -c . <<<"$out")" 1 "one line: $out"
	assert_contains "$out" "create directory '$T/rohome/.local': Permission denied"
	assert_contains "$out" "set XDG_STATE_HOME to a directory you can write"
}

test_no_session_from_a_subdirectory_names_the_repository() {
	mkrepo "$T/p"
	mkdir -p "$T/p/sub/deep"
	run_jail -D "$T/p" --no-export -- sh -c 'echo more >>README'
	assert_eq "$rc" 0 "$err"
	cd "$T/p/sub/deep"
	for sub in status diff export apply; do
		expect_fail125 "$sub"
		assert_contains "$err" "no session 'default' for $T/p/sub/deep"
		assert_contains "$err" "subdirectory of the git repository $T/p: for its sessions add -D $T/p"
	done
	for sub in rm reset stop; do
		expect_fail125 "$sub"
		assert_contains "$err" "add -D $T/p"
	done
	expect_fail125 exec -- true
	assert_contains "$err" "add -D $T/p"
	# what it names works
	run_jail status -D "$T/p"
	assert_eq "$rc" 0 "$err"
	assert_contains "$out" "M README"
	# no repository above: no hint
	mkdir -p "$T/plain"
	cd "$T/plain"
	expect_fail125 status
	assert_not_contains "$err" "git repository"
	# the line to run is one to paste, with the real project and session
	assert_contains "$err" "run a command in it first (jail -D $T/plain -- COMMAND)"
	expect_fail125 rm -s other
	assert_contains "$err" "jail list -D $T/plain shows its sessions"
	expect_fail125 exec -D "$T/p" -s other -- true
	assert_contains "$err" "start a command in it with jail -D $T/p -s other -- COMMAND"
}

test_no_dir_given_names_the_current_directory() {
	cd /
	expect_fail125 -- true
	assert_eq "$err" "jail: the current directory '/' is a system directory, not a project; cd into the project, or name it with -D DIR"
	# typed, it is named as typed
	expect_fail125 -D / -- true
	assert_contains "$err" "-D /: '/' is a system directory"
	mkdir -p "$T/h"
	cd "$T/h"
	HOME="$T/h" expect_fail125 -- true
	assert_contains "$err" "the current directory '$T/h' is your home directory, not a project"
	expect_fail125 -D '' -- true
	assert_eq "$err" "jail: -D '': an empty path; name the project's directory"
}

test_list_all_with_a_dir_is_one_or_the_other() {
	mkrepo "$T/p"
	# -D was silently ignored: --all listed every project
	expect_fail125 list --all -D "$T/p"
	assert_contains "$err" "--all lists every project, -D one"
	run_jail list --all
	assert_eq "$rc" 0 "$err"
}

test_env_with_a_value_points_at_setenv() {
	mkrepo "$T/p"
	expect_fail125 -D "$T/p" -e FOO=bar -- true
	assert_contains "$err" "set a value with --setenv NAME=VALUE"
	expect_fail125 -D "$T/p" --secret TOKEN -- true
	assert_contains "$err" "--secret TOKEN: expected NAME=SOURCE"
	assert_contains "$err" "broker:SOURCE for HOST"
}

test_output_that_cannot_be_written_is_a_failure() {
	[ -w /dev/full ] || skip "no /dev/full"
	mkrepo "$T/p"
	run_jail -D "$T/p" --no-export -- true
	for args in "--help" "-V" "help status" "list -D $T/p" "list --all" "ps"; do
		set +e
		# shellcheck disable=SC2086 # words on purpose
		err=$("$JAIL" $args 2>&1 >/dev/full)
		rc=$?
		set -e
		assert_eq "$rc" 125 "jail $args >/dev/full"
		assert_contains "$err" "jail: write to standard output: No space left on device"
	done
}

test_completion_of_help_offers_the_subcommands() {
	mkdir -p "$T/comp" "$T/share/policies" "$T/bin"
	sed "s|@DATADIR@|$T/share|" "$TESTS/../completions/jail.bash" >"$T/comp/jail.bash"
	ln -sf "$JAIL" "$T/bin/jail"
	out=$(PATH="$T/bin:$PATH" bash --norc --noprofile -c 'source "$1" || exit 9
		COMP_WORDS=(jail help st); COMP_CWORD=2; _jail
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' bash "$T/comp/jail.bash")
	assert_eq "$out" "status stop "
	command -v zsh >/dev/null || fail "zsh is not installed (scripts/setup installs it)"
	sed "s|@DATADIR@|$T/share|" "$TESTS/../completions/_jail" >"$T/comp/_jail"
	out=$(zsh_complete "jail help sto" "stop")
	assert_contains "$out" "jail help stop"
	assert_not_contains "$out" "_jail:"
}

test_revoke_of_nothing_says_so() {
	mkrepo "$T/p"
	run_jail trust -D "$T/p" --revoke
	assert_eq "$rc" 0 "$err"
	assert_eq "$out" "$T/p/.jail.ini was not trusted; nothing to revoke"
	printf '[net]\nmode = none\n' >"$T/p/.jail.ini"
	run_jail trust -D "$T/p"
	assert_eq "$rc" 0 "$err"
	run_jail trust -D "$T/p" --revoke
	assert_eq "$out" "$T/p/.jail.ini is no longer trusted"
}

test_subcommand_after_options_is_refused_not_run_as_a_program() {
	mkrepo "$T/p"
	cd "$T/p"
	run_jail -D "$T/p" --no-export -- sh -c 'echo more >>README'
	# `diff` is /usr/bin/diff too: it ran in the jail ("diff: missing operand")
	expect_fail125 -D "$T/p" diff --name-status
	assert_contains "$err" "'diff' is a jail subcommand, which comes first: jail diff [OPTIONS]"
	expect_fail125 -s other status
	assert_contains "$err" "'status' is a jail subcommand, which comes first"
	# first, it is the subcommand; after --, the program
	run_jail diff -D "$T/p" --name-status
	assert_eq "$out" "$(printf 'M\tREADME')"
	run_jail -D "$T/p" --no-export -- diff --version
	assert_eq "$rc" 0 "$err"
	assert_contains "$out" "diff"
}

test_dir_and_output_take_a_tilde_as_the_other_paths_do() {
	mkdir -p "$T/h"
	mkrepo "$T/h/p"
	# the shell leaves ~ alone after --dir=; --ro=~/x already expanded it
	HOME="$T/h" run_jail --dir='~/p' --no-export -- sh -c 'pwd; echo more >>README'
	assert_eq "$rc" 0 "$err"
	assert_eq "$out" "$T/h/p"
	HOME="$T/h" run_jail export --dir='~/p' --output='~/out'
	assert_eq "$rc" 0 "$err"
	assert_file "$T/h/out/0001-jail-session-default.patch"
}

test_empty_message_is_refused() {
	mkrepo "$T/p"
	run_jail -D "$T/p" --no-export -- sh -c 'echo more >>README'
	# the body's first line became the subject
	expect_fail125 export -D "$T/p" -o "$T/out" -m ''
	assert_contains "$err" "-m: the message is empty"
	expect_fail125 apply -D "$T/p" -m ' '
	run_jail export -D "$T/p" -o "$T/out" -m 'Fix the README'
	assert_eq "$rc" 0 "$err"
	assert_contains "$(cat "$T"/out/0001-*.patch)" "Subject: [PATCH] Fix the README"
}

test_network_flags_that_would_do_nothing_are_refused() {
	mkrepo "$T/p"
	# --net open lets everything out: the --allow read like a limit
	expect_fail125 -D "$T/p" --net open --allow api.example.com:443 -- true
	assert_contains "$err" "--allow api.example.com:443 limits nothing with --net open"
	assert_contains "$err" "use --net allow"
	expect_fail125 -D "$T/p" --dns-upstream 127.0.0.1 -- true
	assert_contains "$err" "--dns-upstream does nothing with --net none"
	# host:PORT opens the host's loopback with --net open too
	command -v pasta >/dev/null || command -v slirp4netns >/dev/null || skip "no network helper"
	run_jail -D "$T/p" --net open --allow "host:$(free_port)" --no-export -- true
	assert_eq "$rc" 0 "$err"
}

test_tmpfs_over_a_bind_of_the_same_path_is_refused() {
	mkrepo "$T/p"
	mkdir -p "$T/d" && echo host >"$T/d/f"
	# the empty tmpfs covered the bind, in either order, without a word
	expect_fail125 -D "$T/p" --tmpfs "$T/d" --ro "$T/d/" -- true
	assert_contains "$err" "--ro and --tmpfs both name '$T/d"
	expect_fail125 -D "$T/p" --rw "$T/d" --tmpfs "$T/d" -- true
	run_jail -D "$T/p" --ro "$T/d" --no-export -- cat "$T/d/f"
	assert_eq "$out" "host"
}

test_hide_and_show_of_one_pattern_is_refused() {
	mkrepo "$T/p"
	mkdir -p "$T/p/build" && echo out >"$T/p/build/a.o"
	# hiding won without a word: the path the user asked to see stayed hidden
	expect_fail125 -D "$T/p" --hide build --show build -- true
	assert_contains "$err" "--hide build and --show build: the path would stay hidden"
	run_jail -D "$T/p" --show build --no-export -- cat build/a.o
	assert_eq "$out" "out"
}
