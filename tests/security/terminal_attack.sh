# The escape suite: the terminal, as an attacker tries it (threat 4 in
# DESIGN.md; terminal.sh has the first line of defence).  What the filter lets
# through is an allowlist (termfilter.c): sequences some terminal reads in a
# way the filter does not model are dropped, and every mode that passes is
# put back when the jail ends, on the screen where it was set.  script(1)
# gives the jail a terminal; what the host terminal receives is its output.
source "$TESTS/security/helpers.bash"

# DEC private modes outside the ones the reset knows: xterm's Tektronix mode
# (?38: another parser), logging to a file (?46), selection to the clipboard
# (?1041), reverse wraparound (?45), mintty's escape-key and shortcut modes
# (?7727 ?7783); ANSI modes but IRM and LNM (CRM, 3).  None is reset at the
# end, so none may pass.
test_unlisted_modes_dropped() {
	show modes 'a\033[?38hb\033[?46hc\033[?1041hd\033[?45he\033[?7727;7783hf\033[3hg\033[?1049;38hEND\n'
	assert_contains "$out" "abcdefgEND"
	for m in "?38h" "?46h" "?1041h" "?45h" "?7727" "[3h" "?1049;38h"; do
		assert_not_contains "$out" "$m"
	done
	# positive control: the modes a full-screen program uses pass, and are
	# put back when it ends
	show known 'a\033[?1049h\033[?1;12;2004hEND\n'
	assert_contains "$out" $'a\e[?1049h\e[?1;12;2004hEND'
	local tail
	tail=$(after_end)
	for s in $'\e[?1l' $'\e[?12l' $'\e[?2004l' $'\e[?1049l'; do
		assert_contains "$tail" "$s"
	done
}

# Control sequences no program needs, which some terminal acts on: playing
# notes (DECPS), bell and key-click volumes, the keyboard language (DECKBD),
# formatOtherKeys (> f), the pointer mode (> p), two intermediates (a
# terminal reading the first sees DECRQM, which answers), a private marker in
# the middle; ESC l (xterm locks the lines above the cursor until reset).
test_unknown_sequences_dropped() {
	show csi 'a\033[5;6;7,~b\033[3 tc\033[2 }d\033[>1;1fe\033[>2pf\033[?2$!pg\033[2?1hh\033li\033mEND\n'
	assert_contains "$out" "abcdefghiEND"
	for s in ",~" " t" " }" ">1;1f" ">2p" '$!p' "2?1h" $'\el' $'\em'; do
		assert_not_contains "$out" "$s"
	done
	# positive control: what terminfo uses passes
	show ti 'a\033[1;31m\033[2J\033[H\033[5 q\033[!p\033[3;10r\033M\0337\0338END\n'
	assert_contains "$out" $'a\e[1;31m\e[2J\e[H\e[5 q\e[!p\e[3;10r\eM\e7\e8END'
}

# The kitty keyboard protocol keeps one stack per screen (kitty, foot,
# ghostty).  Pushed on the main screen, then again on the alternate one: the
# reset must pop each on its own screen, or the main screen keeps sending
# CSI u keys to the user's shell after the jail.
test_kitty_keyboard_reset_on_each_screen() {
	show k1 'a\033[>1u\033[?1049h\033[>1uEND\n'
	local tail
	tail=$(after_end)
	assert_contains "$tail" $'\e[<1u\e[?1049l'
	assert_contains "${tail#*$'\e[?1049l'}" $'\e[<1u' "popped again on the main screen"
	# pushed on the alternate screen and left there: the next program that
	# uses that screen would inherit it
	show k2 'a\033[?1049h\033[>1u\033[?1049lEND\n'
	tail=$(after_end)
	assert_contains "$tail" $'\e[?1049h\e[<1u\e[?1049l'
}

# OSC 10 with more values sets the next dynamic colours too (11, 12, then
# 13-19), which the reset does not know: one colour per OSC passes.
test_chained_dynamic_colours_dropped() {
	show colours 'a\033]10;red;black;green;blue\007b\033]11;#000000\007END\n'
	assert_contains "$out" "ab"
	assert_not_contains "$out" "black;green"
	assert_contains "$out" $'\e]11;#000000\a' # positive control
	assert_contains "$(after_end)" $'\e]111\e\\'
}

# A hyperlink's target is opened by whatever claims its scheme, on a click:
# vscode:, ssh:, smb: (an NTLM hash to a remote share), ms-msdt:, mailto:
# with an attachment; file: names the jail's files, which on the host are
# others or the agent's own (the upper dir).  Web and manual pages pass.
test_hyperlink_schemes_allowlisted() {
	show links 'a\033]8;;vscode://vscode.git/clone?url=x\007b\033]8;;\007c\033]8;;SMB://h/s\033\\d\033]8;;mailto:x?attach=/etc/passwd\007e\033]8;id=1;https://example.test/;x\007fEND\n'
	assert_contains "$out" $'ab\e]8;;\acde' # the end of a link passes
	assert_contains "$out" $'\e]8;id=1;https://example.test/;x\a' # positive control
	for s in "vscode:" "SMB:" "mailto:"; do
		assert_not_contains "$out" "$s"
	done
	show flink 'a\033]8;;file:///tmp/x.sh\007b\033]8;;\007END\n'
	assert_contains "$out" $'ab\e]8;;\aEND'
	assert_not_contains "$out" "file:"
}

# The working directory a program reports (OSC 7, ConEmu's and Windows
# Terminal's OSC 9;9) is where the terminal opens its next tab or split, with
# the host's shell.  The agent can name its own files on the host: the
# session's upper dir, where a repository it made has a core.fsmonitor that a
# git-aware prompt runs.  Neither passes.
test_working_directory_reports_dropped() {
	probe_setup
	local upper
	upper="$(session_dir "$T/p")/upper"
	show cwd "a\033]7;file://host$upper/evil\007b\033]9;9;$upper/evil\033\\\\c\033]0;title\007END\n"
	assert_contains "$out" "abc"
	assert_not_contains "$out" "$upper"
	assert_contains "$out" $'\e]0;title\a' # positive control: a title passes
}

# The supervisor killed outright (SIGKILL, as the OOM killer does; or a
# signal whose default kills, which no handler catches): the keeper process
# (termkeeper.h) still puts the terminal back, raw mode included.
test_terminal_reset_when_the_supervisor_is_killed() {
	probe_setup
	printf 'A\033[?1000h\033[?2004h\033[>1uEND\n' >"$T/bin/modes"
	local ready sig
	ready="$(session_dir "$T/p")/upper/READY"
	for sig in KILL ALRM; do
		rm -f "$ready"
		in_pty "stty -a | grep -q -- -icanon && echo RAW-BEFORE
			$JAIL -q --ro $T/bin -D $T/p -- sh -c 'cat $T/bin/modes; touch READY; sleep 60' <&0 &
			pid=\$!; for i in \$(seq 300); do [ -e $ready ] && break; sleep 0.1; done
			kill -$sig \$pid; wait \$pid; echo rc=\$?
			for i in \$(seq 300); do stty -a | grep -q -- -icanon || break; sleep 0.1; done
			stty -a | grep -q -- -icanon && echo RAW-AFTER; echo checked"
		assert_contains "$out" "checked"
		assert_not_contains "$out" "RAW-BEFORE"
		assert_not_contains "$out" "RAW-AFTER" # the keeper put the settings back
		local tail=${out##*END}
		[ "$tail" != "$out" ] || fail "SIG$sig: the payload's output is missing: $out"
		for s in $'\e[?1000l' $'\e[?2004l' $'\e[<1u'; do
			assert_contains "$tail" "$s" "SIG$sig"
		done
	done
	host_safe
}

# State that outlives the jail in the terminal: a hyperlink never ended
# makes everything the user's shell prints after it a link to the agent's
# page; a progress indicator (OSC 9;4) stays in the tab; a window title
# ("sudo: password for you") stays up; tab stops cleared (TBC) or set (HTS)
# stay so.  The link and the progress are ended, the user's titles pushed
# before the first title and popped at the end; tab stops do not change.
test_state_left_behind_is_undone() {
	show left 'a\033]8;;https://evil.test/\007b\033]9;4;3\007c\033[3gd\033He\t\033]0;sudo\007END\n'
	assert_contains "$out" $'a\e]8;;https://evil.test/\ab\e]9;4;3\acde\t\e[22;0t\e]0;sudo\aEND'
	local tail
	tail=$(after_end)
	assert_contains "$tail" $'\e]8;;\e\\'
	assert_contains "$tail" $'\e]9;4;0\e\\'
	assert_contains "$tail" $'\e[23;0t'
	# positive control: a link that was ended, and no progress, leave nothing
	show ended 'a\033]8;;https://x.test/\007b\033]8;;\007END\n'
	assert_not_contains "$(after_end)" $'\e]'
}

# Reads split the stream anywhere (the pty hands over at most a few KiB at a
# time, the relay reads 8 KiB): dangerous sequences placed across every
# likely boundary, in each spelling (7-bit, UTF-8 encoded C1), never pass
# whole, and the text around them all arrives.  (This angle held before the
# allowlists: a regression test.)
test_sequences_across_read_boundaries() {
	probe_setup
	local f="$T/bin/split" i pad
	: >"$f"
	for i in $(seq 1 40); do
		pad=$((4096 - 7 + i % 9))
		head -c "$pad" /dev/zero | tr '\0' 'x' >>"$f"
		printf 'M%02d\033]52;c;Q0xJUA==\007\302\2336n\033P$qm\033\\' "$i" >>"$f"
	done
	printf 'END\n' >>"$f"
	in_pty "$JAIL -q --ro $T/bin -D $T/p -- cat $f; echo rc=\$?"
	assert_contains "$out" "rc=0"
	for i in $(seq -w 1 40); do
		assert_contains "$out" "M$i" "marker $i"
	done
	for s in "]52;" "Q0xJUA" $'\302\233' "[6n" 'P$q'; do
		assert_not_contains "$out" "$s"
	done
	host_safe
}

# The keeper gone first (killed by hand): the supervisor's word to it must
# not kill the supervisor (SIGPIPE), and it puts the terminal back itself.
test_jail_ends_normally_without_its_keeper() {
	probe_setup
	printf 'A\033[?1000hEND\n' >"$T/bin/modes"
	mkdir -p "$T/sig"
	rm -f "$T/sig/"*
	in_pty "$JAIL -q --ro $T/bin --rw $T/sig -D $T/p -- sh -c 'cat $T/bin/modes; touch $T/sig/ready
			while [ ! -e $T/sig/go ]; do sleep 0.1; done' <&0 &
		pid=\$!; for i in \$(seq 300); do [ -e $T/sig/ready ] && break; sleep 0.1; done
		k=\$(pgrep -P \$pid -x jail-termkeeper); echo keeper=\$k; [ -n \"\$k\" ] && kill -KILL \$k
		touch $T/sig/go; wait \$pid; echo rc=\$?"
	assert_contains "$out" "keeper=" # positive control below: it was there
	[[ "$out" =~ keeper=[0-9]+ ]] || fail "no keeper ran: $out"
	assert_contains "$out" "rc=0"
	assert_contains "${out##*END}" $'\e[?1000l'
	host_safe
}
