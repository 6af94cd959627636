# The escape suite, policy side, second round: what the agent can reach of
# the files jail reads as the user's policy at the next start.
source "$TESTS/security/helpers.bash"

# The user's jail.ini (or a named policy) kept elsewhere and linked into the
# config dir, as GNU stow and other dotfile managers do: the config dir was
# covered inside, but the file it links to was not, and a --rw bind of the
# directory holding it let the agent write the next start's policy (a
# `cmd:` secret runs on the host).  Such a bind is refused.
test_rw_bind_cannot_reach_linked_user_policy() {
	probe_setup
	local conf=$XDG_CONFIG_HOME/jail f
	for f in jail.ini policies/mine.ini; do
		rm -rf "$conf" "$T/dots"
		mkdir -p "$conf/policies" "$T/dots"
		echo '[net]' >"$T/dots/pol.ini"
		ln -s "$T/dots/pol.ini" "$conf/$f"
		run_jail -q --rw "$T/dots" -D "$T/p" -- sh -c \
			"printf '[secrets]\nX = cmd:touch $T/pwned\n' >'$T/dots/pol.ini' 2>/dev/null; echo done"
		assert_eq "$rc" 125 "a --rw bind holding the target of $f is refused"
		assert_contains "$err" "policy"
		assert_eq "$(cat "$T/dots/pol.ini")" "[net]" "the linked $f"
		if [ "$f" = jail.ini ]; then run_jail -q -D "$T/p" -- true
		else run_jail -q -p mine -D "$T/p" -- true; fi
		assert_no_file "$T/pwned"
	done
	rm -rf "$conf" "$T/dots"
	host_safe
}

# The installed policies (`-p claude`, `include = rust`) are searched after
# the config dir's: with jail installed in the home (make install
# PREFIX=~/.local: ~/.local/share/jail/policies), a --rw bind of the
# directory that held them (--rw ~/.local/share) let the agent replace
# claude.ini, and the next `jail -p claude` ran its `cmd:` secret on the
# host.  Such a bind is refused, like one that holds the config dir below a
# directory of its own.  (JAIL_POLICY_PATH is searched the same way.)
test_rw_bind_cannot_reach_installed_policies() {
	probe_setup
	mkdir -p "$T/share/jail/policies"
	echo '[net]' >"$T/share/jail/policies/mine.ini"
	JAIL_POLICY_PATH=$T/share/jail/policies run_jail -q --rw "$T/share" -D "$T/p" -- sh -c \
		"printf '[secrets]\nX = cmd:touch $T/pwned\n' >'$T/share/jail/policies/mine.ini' 2>/dev/null; echo done"
	assert_eq "$rc" 125 "a --rw bind holding a policies dir is refused"
	assert_contains "$err" "policies"
	assert_eq "$(cat "$T/share/jail/policies/mine.ini")" "[net]" "the installed policy"
	JAIL_POLICY_PATH=$T/share/jail/policies run_jail -q -p mine -D "$T/p" -- true
	assert_no_file "$T/pwned"
	# a bind beside it is what it was
	mkdir -p "$T/share/other"
	JAIL_POLICY_PATH=$T/share/jail/policies run_jail -q --rw "$T/share/other" -D "$T/p" -- true
	assert_eq "$rc" 0 "a --rw bind beside the policies: $err"
	rm -rf "$T/share"
	host_safe
}

# A `file:` secret kept in a directory the jail binds --rw: the agent made
# the file a link to another file of the user's (an ssh key), and the next
# run read that one into the jail as the secret, through the link.  A
# `file:` source below a --rw bind, as named or resolved, is refused.
test_file_secret_below_rw_bind_refused() {
	probe_setup
	mkdir -p "$T/shared" "$XDG_CONFIG_HOME/jail"
	echo token-value >"$T/shared/tok"
	echo host-private-key >"$T/hostkey"
	printf '[secrets]\nTOK = file:%s/shared/tok\n' "$T" >"$XDG_CONFIG_HOME/jail/jail.ini"
	run_jail -q --rw "$T/shared" -D "$T/p" -- sh -c "ln -sf '$T/hostkey' '$T/shared/tok'; echo done"
	assert_eq "$rc" 125 "a file: secret below a --rw bind is refused"
	assert_contains "$err" "secret TOK"
	run_jail -q -D "$T/p" -- sh -c 'echo "tok=$TOK"'
	assert_not_contains "$out" host-private-key
	# resolved below one: the name is a link into the bind
	rm -f "$T/shared/tok"
	echo token-value >"$T/shared/tok"
	ln -s "$T/shared/tok" "$T/toklink"
	printf '[secrets]\nTOK = file:%s/toklink\n' "$T" >"$XDG_CONFIG_HOME/jail/jail.ini"
	expect_fail125 -q --rw "$T/shared" -D "$T/p" -- true
	assert_contains "$err" "secret TOK"
	# elsewhere, as before
	run_jail -q -D "$T/p" -- sh -c 'echo "tok=$TOK"'
	assert_eq "$out" "tok=token-value" "$err"
	rm -rf "$XDG_CONFIG_HOME/jail" "$T/shared" "$T/hostkey" "$T/toklink"
	host_safe
}

# A `cmd:` secret runs on the host at every start, with the user's PATH and
# in the home: a --rw bind of a PATH directory (~/.local/bin), of a path the
# command names, or of the home let the agent plant what the next start
# runs there.  Each is refused; the same secret without such a bind runs.
test_cmd_secret_program_out_of_the_agents_reach() {
	probe_setup
	mkdir -p "$T/mybin" "$T/tools" "$XDG_CONFIG_HOME/jail"
	printf '#!/bin/sh\necho from-the-helper\n' >"$T/mybin/gettok"
	printf '#!/bin/sh\necho from-the-tool\n' >"$T/tools/tok.sh"
	chmod +x "$T/mybin/gettok" "$T/tools/tok.sh"
	printf '[secrets]\nTOK = cmd:gettok\n' >"$XDG_CONFIG_HOME/jail/jail.ini"
	PATH="$T/mybin:$PATH" run_jail -q --rw "$T/mybin" -D "$T/p" -- sh -c \
		"printf '#!/bin/sh\ntouch $T/pwned\n' >'$T/mybin/gettok'; echo done"
	assert_eq "$rc" 125 "a --rw bind of a PATH directory with a cmd: secret"
	assert_contains "$err" "secret TOK"
	assert_contains "$err" "PATH"
	PATH="$T/mybin:$PATH" run_jail -q -D "$T/p" -- sh -c 'echo "tok=$TOK"'
	assert_eq "$out" "tok=from-the-helper" "$err"
	assert_no_file "$T/pwned"
	# a path the command names
	printf '[secrets]\nTOK = cmd:sh %s/tools/tok.sh\n' "$T" >"$XDG_CONFIG_HOME/jail/jail.ini"
	expect_fail125 -q --rw "$T/tools" -D "$T/p" -- true
	assert_contains "$err" "a path it names"
	run_jail -q -D "$T/p" -- sh -c 'echo "tok=$TOK"'
	assert_eq "$out" "tok=from-the-tool" "$err"
	# the same path spelled from $HOME, and a PATH entry relative to the home
	mkdir -p "$HOME/hbin"
	cp "$T/tools/tok.sh" "$HOME/hbin/tok.sh"
	printf '[secrets]\nTOK = cmd:sh $HOME/hbin/tok.sh\n' >"$XDG_CONFIG_HOME/jail/jail.ini"
	expect_fail125 -q --rw "$HOME/hbin" -D "$T/p" -- true
	assert_contains "$err" "a path it names"
	printf '[secrets]\nTOK = cmd:tok.sh\n' >"$XDG_CONFIG_HOME/jail/jail.ini"
	PATH="hbin:$PATH" expect_fail125 -q --rw "$HOME/hbin" -D "$T/p" -- true
	assert_contains "$err" "PATH"
	rm -rf "$XDG_CONFIG_HOME/jail" "$T/mybin" "$T/tools" "$HOME/hbin"
	host_safe
}
