# The escape suite: the terminal, a second attacker's round (threat 4 in
# DESIGN.md; terminal.sh and terminal_attack.sh hold the earlier ones).  The
# filter (termfilter.c) must read what it lets through as terminals read it:
# a sequence it reads one way and a terminal another passes modes the reset
# does not know, or leaves on what the reset thinks is off.  script(1) gives
# the jail a terminal; what the host terminal receives is its output.
source "$TESTS/security/helpers.bash"

# The filter took an SGR's last number for the attributes' state: a colour
# ending in 0 (38;2;255;0;0, 48;5;0) read as a reset, so bold, reverse,
# concealed text or a black-on-black colour stayed on after the jail, and
# the user's prompt and what they type showed so (or not at all).  tmux
# ignores a parameter with sub-parameters whole (0:1 does not reset there).
test_attributes_left_on_are_put_back() {
	local p
	for p in '\033[1mb\033[7;38;2;255;0;0m' '\033[8;38;5;0m' '\033[30;48;2;0;0;0m' \
		'\033[8;0:1m'; do
		show sgr "a${p}END\n"
		assert_contains "$(after_end)" $'\e[m' "attributes of $p"
	done
	# positive control: a plain reset at the end leaves nothing to put back
	show sgr0 'a\033[1;31mb\033[0;;0mEND\n'
	assert_contains "$out" $'a\e[1;31mb\e[0;;0mEND'
	assert_not_contains "$(after_end)" $'\e[m'
}

# Sub-parameters (':') are standard in SGR only, and terminals read them
# elsewhere three ways: xterm drops the sequence, or (XTMODKEYS) reads them
# as the next parameter: CSI > 4:2 m is modifyOtherKeys 2 there, where the
# filter saw resource 4 put back; the reset then left Ctrl-C sending
# CSI 27;5;99~ to the user's shell instead of ^C.  None passes but in SGR.
test_sub_parameters_pass_only_in_sgr() {
	show sub 'a\033[>4:2mb\033[?25:1004hc\033[2:1 qd\033[4:3meEND\n'
	assert_contains "$out" $'abcd\e[4:3meEND'
	for s in ">4:2m" "25:1004" "2:1 q"; do
		assert_not_contains "$out" "$s"
	done
	# positive control: modifyOtherKeys as xterm documents it passes, and is
	# put back at the end
	show modkeys 'a\033[>4;2mEND\n'
	assert_contains "$out" $'a\e[>4;2mEND'
	assert_contains "$(after_end)" $'\e[>4m'
}

# CSI > m puts back resources 1 to 5 in xterm, not all of them: what the
# agent set on resource 6 or 7 (modifyModifierKeys, modifySpecialKeys) stays
# set unless the reset undoes it.
test_modkeys_reset_all_is_not_trusted() {
	show modall 'a\033[>6;1m\033[>mEND\n'
	assert_contains "$out" $'a\e[>6;1m\e[>mEND'
	assert_contains "$(after_end)" $'\e[>6m'
}

# The terminal keeps the cursor saved last (DECSC, CSI s, modes 1048 and
# 1049) for a later restore, with the attributes, the character sets and
# origin mode of that moment.  The agent saved concealed text in the
# line-drawing set and put the current state back; a program after the jail
# that restores without saving first (DECRC, leaving mode 1049) showed the
# user's text concealed or as line drawing (found against tmux 3.3).  The
# reset ends by saving the clean state over the agent's.
test_saved_cursor_is_not_left_to_the_agent() {
	show save 'a\033(0\033[8m\0337\033[m\033(BEND\n'
	assert_contains "$out" $'a\e(0\e[8m\e7\e[m\e(BEND'
	assert_contains "$(after_end)" $'\x0f\e(B\e7'
	# the margins' own reset saves too: the clean state is saved after it
	show margins 'a\033[3;5r\033[8mEND\n'
	assert_contains "$(after_end)" $'\e7\e[r\e8\e[m\e7'
	# the alternate screen keeps a slot of its own (xterm, VTE, kitty)
	show altsave 'a\033[?1049h\033(0\0337\033(B\033[?1049lEND\n'
	assert_contains "$(after_end)" $'\e(B\e[?1049h\e7\e[?1049l\e7'
	# positive control: nothing saved, no save at the end
	show nosave 'a\033[?1000hEND\n'
	assert_not_contains "$(after_end)" $'\e7'
}

# A report the terminal sent before it read jail's reset (a mouse move,
# the focus report tmux sends as soon as mode 1004 is set) arrived after the
# relay stopped reading, missed the flush of the input at the end, and the
# user's shell read it as typed (1 run in 5 under tmux).  jail now asks for
# the device attributes after the reset and reads until their answer:
# terminals answer in order.
test_reports_in_flight_do_not_reach_the_next_program() {
	probe_setup
	printf 'a\033[?1004hEND\n' >"$T/bin/focus"
	out=$(python3 "$TESTS/helpers/report_terminal.py" \
		"$JAIL -q --ro $T/bin -D $T/p -- cat $T/bin/focus; echo rc=\$?; $(pending_input)")
	assert_contains "$out" "rc=0"
	assert_contains "$out" $'\e[?1004l' # the reset, which the report races
	assert_contains "$out" "pending=b''"
	# positive control: without jail's reset and fence (the payload on the
	# bare terminal, then the reset by hand), the late report is typed in
	out=$(python3 "$TESTS/helpers/report_terminal.py" \
		"cat $T/bin/focus; printf '\\033[?1004l'; $(pending_input)")
	assert_contains "$out" "pending=b'\\x1b[I'"
	host_safe
}

# A terminal that does not answer the device attributes costs one bounded
# wait at the end, no hang; without a reporting mode, no question is asked.
test_report_fence_is_bounded() {
	probe_setup
	printf 'a\033[?1004hEND\n' >"$T/bin/focus"
	out=$(timeout 30 python3 "$TESTS/helpers/report_terminal.py" --no-da \
		"$JAIL -q --ro $T/bin -D $T/p -- cat $T/bin/focus; echo rc=\$?")
	assert_contains "$out" "rc=0"
	assert_contains "$out" $'\e[c'
	show plain 'a\033[?2004hEND\n'
	assert_not_contains "$out" $'\e[c'
}

# XTSAVE keeps mode values for a later XTRESTORE: the agent saved mouse
# reports and the alternate screen on, and a program after the jail that
# restored without saving first turned them on again.  The reset saves the
# defaults over them.
test_saved_modes_are_saved_at_their_default() {
	show xtsave 'a\033[?1000;1049h\033[?1000;1049s\033[?1000;1049lEND\n'
	local tail
	tail=$(after_end)
	assert_contains "$tail" $'\e[?1000s'
	assert_contains "$tail" $'\e[?1049s'
	# positive control: nothing saved, nothing saved again
	show noxtsave 'a\033[?1000hEND\n'
	assert_not_contains "$(after_end)" 's'
}

# XTPUSHSGR keeps attributes on a stack for a later XTPOPSGR: concealed
# text the agent pushed came back at a pop of a program after the jail.
# The reset pops what the agent left there, then resets the attributes.
test_sgr_stack_left_is_popped() {
	show sgrpush 'a\033[8m\033[#{\033[mEND\n'
	assert_contains "$out" $'a\e[8m\e[#{\e[mEND'
	assert_contains "$(after_end)" $'\e[#}\e[m'
	# positive control: a push popped again leaves nothing on the stack
	show sgrpop 'a\033[#{\033[#}END\n'
	assert_not_contains "$(after_end)" $'\e[#}'
}
