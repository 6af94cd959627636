# The escape suite: the terminal, a third attacker's round (threat 4 in
# DESIGN.md; terminal.sh, terminal_attack.sh and terminal_attack2.sh hold the
# earlier ones).  The filter (termfilter.c) must read what it lets through as
# every terminal reads it, also one that reads bytes, not characters, in
# some of its states.  script(1) gives the jail a terminal; what the host
# terminal receives is its output.
source "$TESTS/security/helpers.bash"

# The Linux console reads the bytes of a control string (OSC) one by one,
# and the byte 0x9B is CSI to it there: a title holding a character whose
# UTF-8 has that byte (U+00DB, 四 U+56DB, 国 U+56FD) started a control
# sequence the filter never saw (ESC ] 0 ; Û 6 n BEL: a cursor report typed
# in; CSI 12;1 ] switched the console; CSI 3 h left it showing control
# characters, undecoded, after the jail).  Such a character in an OSC now
# reaches the terminal as U+FFFD, or U+00BF for a 2-byte one (never longer;
# not '?': OSC 4;1;? is a colour query).
test_c1_byte_inside_a_title_never_passes() {
	show title 'a\033]0;x\303\2336n\007b\033]2;\345\233\275\007END\n'
	assert_not_contains "$out" $'\x9b'
	assert_contains "$out" $'a\e[22;0t\e]0;x\xc2\xbf6n\ab'
	assert_contains "$out" $'\e]2;\xef\xbf\xbd\a'
	show colour 'a\033]4;1;\303\233\007END\n'
	assert_contains "$out" $'a\e]4;1;\xc2\xbf\aEND'
	# positive control: other characters pass as they are, in a title
	# (✳ U+2733 holds 0x9C, which no terminal reads there) and in text
	show title2 'a\033]0;\342\234\263 t\007\303\233\345\233\275END\n'
	assert_contains "$out" $'a\e[22;0t\e]0;\xe2\x9c\xb3 t\a\xc3\x9b\xe5\x9b\xbdEND'
}

# With a locale in an 8-bit encoding no byte 0x80-0x9F may pass at all (the
# terminal reads each as a C1 control), but an OSC's body was judged as
# UTF-8 alone: ESC ] 0 ; Ý 52;c;... BEL held 0x9D, OSC to such a terminal,
# inside the title: a clipboard write.  In that encoding a character of an
# OSC that holds any byte of the range is now replaced (U+00BF here).
test_c1_byte_inside_a_title_on_an_eight_bit_terminal() {
	probe_setup
	printf 'a\033]0;\303\23552;c;Y2FuYXJ5\007END\n' >"$T/bin/t8"
	in_pty "LANG=en_US.ISO-8859-1 $JAIL -q --ro $T/bin -D $T/p -- cat $T/bin/t8; echo rc=\$?"
	assert_contains "$out" "rc=0"
	assert_not_contains "$out" $'\x9d'
	assert_contains "$out" $'a\e[22;0t\e]0;\xc2\xbf52;c;Y2FuYXJ5\aEND'
	host_safe
}

# After SO (G1 into GL: terminfo's smacs for TERM=linux) the Linux console
# stops decoding UTF-8 until SI and reads each byte: 0x9B inside a character
# (Û, 国) is CSI there, a sequence the filter never saw.  While G1 is in,
# such a character reaches the terminal as '?'.
test_c1_byte_in_text_after_shift_out_never_passes() {
	show so 'a\016x\303\2336ny\017\303\233END\n'
	assert_not_contains "$out" $'\x0ex\xc3\x9b'
	assert_contains "$out" $'a\x0ex?6ny\x0f\xc3\x9bEND'
	# SGR 11 and 12 (the Linux console's PC font: no UTF-8 decoding
	# either, and SGR 0 keeps it) are dropped; SGR 10 passes
	show pcfont 'a\033[0;11mb\033[12mc\033[0;10;1md\033[mEND\n'
	assert_contains "$out" $'abc\e[0;10;1md\e[mEND'
}

# With stdin not the terminal (jail -- agent </dev/null, cmd | jail ...),
# jail relays nothing the terminal sends: a report could never reach the
# agent, only wait there for the user's shell.  The agent turned focus (or
# mouse) reports on, tmux sent one at once, and every focus change or mouse
# move of the session was typed into the shell after the jail (no fence is
# possible without reading the terminal).  Such modes are dropped there.
test_reports_without_an_input_relay_are_not_turned_on() {
	probe_setup
	printf 'a\033[?1004hb\033[?1003;1006hc\033[>3ud\033[?1004rEND\n' >"$T/bin/focus"
	out=$(python3 "$TESTS/helpers/report_terminal.py" --tmux \
		"$JAIL -q --ro $T/bin -D $T/p -- cat $T/bin/focus </dev/null; echo rc=\$?; $(pending_input)")
	assert_contains "$out" "rc=0"
	assert_contains "$out" "abcdEND"
	assert_contains "$out" "pending=b''"
	# positive control: read by jail (stdin the terminal), the modes pass,
	# the report goes to the agent, and nothing is left for the shell
	out=$(python3 "$TESTS/helpers/report_terminal.py" --tmux \
		"$JAIL -q --ro $T/bin -D $T/p -- cat $T/bin/focus; echo rc=\$?; $(pending_input)")
	assert_contains "$out" $'a\e[?1004hb'
	assert_contains "$out" "pending=b''"
	host_safe
}
