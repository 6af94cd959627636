# The fifth review's second attacker: what the three reviews of the day
# (hiding, the host side, the terminal) closed, reached by another spelling.
source "$TESTS/security/helpers.bash"

# jail's own lines pass escape_controls (log.c), which let every valid UTF-8
# character through but U+0080..U+009F.  On a terminal in an 8-bit encoding
# (the locale ISO-8859-1, what the pty relay already reads as eight_bit) the
# byte 0x9B is CSI and 0x9D OSC by themselves: U+00DB (C3 9B) in a name jail
# listed or in a line git am quoted ("trailing whitespace") cleared the
# screen, U+00DD (C3 9D) ... U+00DC (C3 9C) set the clipboard.  Under such a
# locale every byte 0x80..0x9F of a line is escaped.
test_fix5b_log_line_on_an_eight_bit_terminal_carries_no_c1_byte() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'printf "ok()\n\303\2332J\303\23552;c;Y3VybA==\303\234  \n" > a.sh
		echo more >> README; : > "$(printf "n\303\2332J")"'
	assert_eq "$rc" 0 "the run ($err)"
	{ LC_ALL=en_US.ISO-8859-1 run_jail apply -D "$T/p"; } 2>/dev/null  # bash: no such locale here
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" "trailing whitespace"  # git's warning, with the line
	assert_contains "$err" $'\xc3\\x9b2J'  # Ã, then the CSI byte escaped
	assert_contains "$err" $'A n\xc3\\x9b2J'  # the name, in jail's own line
	assert_not_contains "$err" $'\x9b'
	assert_not_contains "$err" $'\x9d'
	assert_not_contains "$err" $'\x9c'
	assert_eq "$(grep -c $'\303\2332J' "$T/p/a.sh")" 1 "the landed file's bytes"
	# in UTF-8 the character is a character, as before
	run_jail -q -D "$T/p" -- sh -c 'printf "x\303\233y  \n" > b.sh'
	LC_ALL=en_US.UTF-8 run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" $'x\303\233y'
}

# A changed .gitignore is checked against the paths the host ignores, but
# only the first 20,000 host git lists: past them the review said nothing of
# a host file the agent's rules un-hide (zz/secret.key after 20,001 build
# logs), as if there were none.  The note says now that the check was cut.
test_fix5b_gitignore_check_past_the_candidate_cap_says_so() {
	mkrepo "$T/p"
	printf '*.log\nsecret.key\n' >"$T/p/.gitignore"
	mkdir -p "$T/p/a" "$T/p/zz"
	: >"$T/p/a/keep"
	git -C "$T/p" add .gitignore a/keep && git -C "$T/p" commit -qm ignore
	(cd "$T/p/a" && seq 0 20000 | sed 's/$/.log/' | xargs touch)
	echo 'k' >"$T/p/zz/secret.key"
	run_jail -q --no-export -D "$T/p" -- sh -c 'printf "*.log\n" > .gitignore'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail status -D "$T/p"
	assert_eq "$rc" 0 "jail status ($err)"
	assert_not_contains "$out$err" "no longer ignores a/"
	assert_contains "$out$err" "more than 20000 host-ignored paths"
}

# jail status writes the agent's names to stdout, escaped by escape_name
# alone: on an 8-bit terminal U+00DB in a name was CSI there.
test_fix5b_status_names_on_an_eight_bit_terminal_carry_no_c1_byte() {
	mkrepo "$T/p"
	run_jail -q --no-export -D "$T/p" -- sh -c ': > "$(printf "n\303\2332J")"'
	assert_eq "$rc" 0 "the run ($err)"
	{ LC_ALL=en_US.ISO-8859-1 run_jail status -D "$T/p"; } 2>/dev/null
	assert_eq "$rc" 0 "jail status ($err)"
	assert_contains "$out" $'A n\xc3\\x9b2J'
	assert_not_contains "$out$err" $'\x9b'
	run_jail status -D "$T/p"  # a UTF-8 terminal: the character as it is
	assert_contains "$out" $'A n\xc3\x9b2J'
}
