# The escape suite: the terminal (threat 4 in DESIGN.md).  script(1) gives the
# jail a terminal, so the pty relay and its filter are in the path; what the
# host terminal receives is script's output.
source "$TESTS/security/helpers.bash"

# jail_pty 'SHELL COMMAND IN THE JAIL' [JAIL OPTIONS]: run it with a terminal,
# then read the host terminal for half a second: anything injected shows as
# got=[...].
jail_pty() {
	probe_setup
	in_pty "$JAIL -q ${2:-} --ro $T/bin -D $T/p -- sh -c \"$1\"; echo rc=\$?; read -t 0.5 l; echo got=[\$l]"
	host_safe
}

test_tiocsti_refused() {
	jail_pty "$T/bin/probe tiocsti 'echo pwned'"
	assert_contains "$out" "rc=$EPERM"
	assert_contains "$out" "got=[]"
	# positive control: allowed back, it injects into the jail's own terminal
	# (the relay gives the jail a pty of its own), still never the host's
	jail_pty "$T/bin/probe tiocsti 'x'" "--allow-syscall ioctl"
	assert_contains "$out" "rc=0"
	assert_contains "$out" "got=[]"
	# positive control: on the host (outside any jail) the same probe injects,
	# and got=[...] shows it, where the kernel still allows TIOCSTI at all
	if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null)" = 1 ]; then
		in_pty "$T/bin/probe tiocsti 'abc
'; read -t 0.5 l; echo got=[\$l]"
		assert_contains "$out" "got=[abc]"
	fi
}

test_tiocsti_high_bits_refused() {
	jail_pty "$T/bin/probe tiocsti-high 'echo pwned'"
	assert_contains "$out" "rc=$EPERM"
	assert_contains "$out" "got=[]"
	jp -- tiocsti-high x
	assert_eq "$rc" "$EPERM" "without a terminal too"
	jp --allow-syscall ioctl -- tiocsti-high x
	assert_eq "$rc" "$ENOTTY" "positive control: the kernel's answer when allowed"
}

test_tioclinux_refused() {
	jail_pty "$T/bin/probe tioclinux"
	assert_contains "$out" "rc=$EPERM"
	jail_pty "$T/bin/probe fionread"
	assert_contains "$out" "rc=0" # a harmless terminal ioctl still works
}

test_other_ptys_unreachable() {
	probe_setup
	in_pty "ls /dev/pts | grep -c '^[0-9]'"
	[ "${out//[!0-9]/}" -ge 1 ] || fail "positive control: the host has ptys"
	jail_pty "ls /dev/pts; for n in 1 2 3 4 5 6 7 8; do $T/bin/probe write /dev/pts/\\\$n PWNED; done"
	assert_not_contains "$out" PWNED
	jp -- ls /dev/pts
	assert_eq "$(printf '%s\n' "$out" | grep -c '^[0-9]')" 0 "host ptys inside"
}

test_osc52_clipboard_stripped() {
	jail_pty "printf 'a\\\\033]52;c;Y2FuYXJ5\\\\007b\\\\033]0;harmless-title\\\\007c\\\\n'"
	assert_not_contains "$out" "]52;"
	assert_not_contains "$out" "Y2FuYXJ5"
	assert_contains "$out" "harmless-title" # positive control: a title passes
	assert_contains "$out" "ab"
}

test_terminal_queries_stripped() {
	jail_pty "printf 'x\\\\033[6ny\\\\033[21tz\\\\033P\\\$qm\\\\033\\\\\\\\w\\\\033]11;?\\\\007v\\\\n'"
	assert_contains "$out" "xyzwv"
	for q in "[6n" "[21t" "P\$q" "]11;?"; do
		assert_not_contains "$out" "$q"
	done
	# positive control: without a terminal the same bytes pass untouched
	run_jail -q -D "$T/p" -- printf 'x\033[6ny'
	assert_contains "$out" "[6n"
}

# term_payload: what an agent prints to switch the filter off (leave UTF-8, 8-bit
# controls, DECSCL, VT52 mode, then raw C1 controls) and to leave the terminal in
# modes that send input by themselves (mouse, focus, paste, kitty keyboard,
# modifyOtherKeys), on the alternate screen with application keys.
term_payload() {
	probe_setup
	printf 'A\033%%@B\233?1000hC\033 GD\033[62;0"pE\033[?2lF\23552;c;Y2FuYXJ5\007G' \
		>"$T/bin/payload"
	printf '\033[?1000h\033[?1006h\033[?1004h\033[?2004h\033[?1049h\033=\033[?1h' \
		>>"$T/bin/payload"
	printf '\033[>1u\033[>4;2m\033)0\016END\n' >>"$T/bin/payload"
	RESETS=($'\e[?1000l' $'\e[?1006l' $'\e[?1004l' $'\e[?2004l' $'\e[?1049l' $'\e>'
		$'\e[?1l' $'\e[<1u' $'\e[>4m' $'\e(B')
}

# assert_switches_dropped: none of the payload's switches reached the terminal.
assert_switches_dropped() {
	assert_contains "$out" "ABCDEFG"
	assert_not_contains "$out" $'\e%@'
	assert_not_contains "$out" $'\e G'
	assert_not_contains "$out" '"p'
	assert_not_contains "$out" $'\e[?2l'
	assert_not_contains "$out" $'\233'
	assert_not_contains "$out" "Y2FuYXJ5"
}

# assert_reset_after_end: after the payload's last word, the terminal is put
# back: every mode it turned on is turned off again.
assert_reset_after_end() {
	local tail=${out##*END}
	[ "$tail" != "$out" ] || fail "the payload's output is missing: $out"
	for s in "${RESETS[@]}"; do
		assert_contains "$tail" "$s"
	done
}

test_terminal_mode_switches_dropped_and_modes_reset() {
	term_payload
	# positive control: on the host's own terminal every byte arrives
	in_pty "cat $T/bin/payload"
	assert_contains "$out" $'\e%@'
	assert_contains "$out" $'\233'
	jail_pty "cat $T/bin/payload"
	assert_contains "$out" "rc=0"
	assert_switches_dropped
	assert_reset_after_end
	# a session that turned nothing on gets nothing written
	jail_pty "echo plain"
	assert_not_contains "$out" $'\e['
}

test_terminal_modes_reset_when_the_agent_is_killed() {
	term_payload
	jail_pty "cat $T/bin/payload; kill -9 \\\$\\\$"
	assert_contains "$out" "rc=137"
	assert_switches_dropped
	assert_reset_after_end
}

# The supervisor itself crashes (here: SIGSEGV from outside, as a bug would
# raise it) while the agent runs: its handler still puts the terminal back.
test_terminal_modes_reset_when_the_supervisor_crashes() {
	term_payload
	local ready
	ready="$(session_dir "$T/p")/upper/READY"
	in_pty "$JAIL -q --ro $T/bin -D $T/p -- sh -c 'cat $T/bin/payload; touch READY; sleep 60' <&0 &
		pid=\$!; for i in \$(seq 300); do [ -e $ready ] && break; sleep 0.1; done
		kill -SEGV \$pid; wait \$pid; echo rc=\$?"
	assert_contains "$out" "rc=139"
	assert_switches_dropped
	assert_reset_after_end
}

# jail exec from a terminal relays a pty of the jail, which the agent can write
# to (it is the same user's devpts): the same filter, with the host's encoding,
# and the same reset when the joined command ends.
test_exec_terminal_filtered_and_reset() {
	term_payload
	printf '\302\2336n\302\233?1000hEND8\n' >"$T/bin/c1-utf8"
	mkdir -p "$T/sig"
	"$JAIL" -q --ro "$T/bin" --rw "$T/sig" -D "$T/p" -- sh -c "touch '$T/sig/ready';
		while [ ! -e '$T/sig/go' ]; do sleep 0.1; done" </dev/null >/dev/null 2>"$T/agent.err" &
	agent=$!
	wait_for test -e "$T/sig/ready"
	in_pty "$JAIL exec -D $T/p -- cat $T/bin/payload; echo rc=\$?"
	assert_contains "$out" "rc=0"
	assert_switches_dropped
	assert_reset_after_end
	# a locale of another encoding: no C1 byte at all, not even inside UTF-8
	in_pty "LC_ALL=en_US.ISO-8859-1 $JAIL exec -D $T/p -- cat $T/bin/c1-utf8; echo rc=\$?"
	assert_contains "$out" "END8"
	assert_not_contains "$out" $'\233'
	touch "$T/sig/go"
	wait "$agent" || fail "agent: $(cat "$T/agent.err")"
	host_safe
}

# Line disciplines (n_hdlc, n_gsm, slip, ...) are kernel code loaded on demand
# (dev.tty.ldisc_autoload) and a known way in (CVE-2017-2636 in n_hdlc, the
# n_gsm use-after-frees); a coding agent never sets one.  TIOCSETD is refused
# on any terminal the jail can open, its own ptys included.
test_tiocsetd_refused() {
	jp -- tiocsetd 27 # N_NULL: built in where it is listed, harmless if it ran
	assert_eq "$rc" "$EPERM" "TIOCSETD N_NULL on the jail's own pty"
	jp -- tiocsetd 0
	assert_eq "$rc" "$EPERM" "TIOCSETD N_TTY too"
	jail_pty "$T/bin/probe tiocsetd 27"
	assert_contains "$out" "rc=$EPERM"
	# positive control: allowed back, the kernel takes it (N_NULL, where the
	# kernel has it), so the refusal above is the filter's
	if grep -q '^n_null' /proc/tty/ldiscs 2>/dev/null; then
		jp --allow-syscall ioctl -- tiocsetd 27
		assert_eq "$rc" 0 "positive control: TIOCSETD N_NULL allowed back"
	fi
}

# OSC 9 and 777 are notifications, but terminals also read commands there:
# ConEmu runs a GuiMacro (9;6) or a process (9;7), urxvt hands 777's text to the
# perl extension its first field names.  Only notifications, progress (9;4)
# and 777's notify/precmd/preexec pass (the working directory, 9;9, does not:
# terminal_attack.sh).
test_osc_commands_behind_notifications_dropped() {
	probe_setup
	printf 'a\033]9;7;"calc.exe"\007b\033]9;6;Shell("new_console","","calc")\033\\c' >"$T/bin/osc"
	printf '\033]777;background;1\007d\033]9;1;5000\007e' >>"$T/bin/osc"
	printf '\033]9;build done\007f\033]9;4;1;50\007g\033]777;notify;T;Body\007END\n' >>"$T/bin/osc"
	jail_pty "cat $T/bin/osc"
	assert_contains "$out" "abcde"
	assert_contains "$out" $'Body\aEND'
	for q in "calc" "]777;background" "]9;1;"; do
		assert_not_contains "$out" "$q"
	done
	# positive controls: the notifications themselves pass
	assert_contains "$out" $'\e]9;build done\a'
	assert_contains "$out" $'\e]9;4;1;50\a'
	assert_contains "$out" $'\e]777;notify;T;Body\a'
}

# Media copy makes the terminal print, not show: the screen or everything that
# follows goes to its printer command, or xterm writes an HTML or SVG dump of
# the screen into a file on the host.
test_media_copy_dropped() {
	probe_setup
	printf 'a\033[5ib\033[4ic\033[?10id\033[?11ie\033[iEND\n' >"$T/bin/mc"
	jail_pty "cat $T/bin/mc"
	assert_contains "$out" "abcdeEND"
	assert_not_contains "$out" $'\e[5i'
	assert_not_contains "$out" $'\e[?10i'
}
