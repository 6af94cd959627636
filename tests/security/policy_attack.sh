# The escape suite: the policy side attacked.  Two attackers: the agent, which
# controls what it can write in its session (and in a --rw bind), and a
# repository with a .jail.ini committed in it, run before or after `jail
# trust`.  What either gets jail to read as policy on the host decides what the
# next run may reach, and a `cmd:` secret source runs on the host.  A test of
# a hole fails on the build before its fix; the others keep what held.
source "$TESTS/security/helpers.bash"

# proj_ini TEXT: the project's .jail.ini, printf-style escapes expanded.
proj_ini() { printf "$1" >"$T/p/.jail.ini"; }

# An untrusted .jail.ini is read by nothing that acts: no network, binds,
# variables, secrets (a cmd: source would run on the host), home mode or
# export allowance, for a run nor for status/export.
test_untrusted_project_policy_grants_nothing() {
	probe_setup
	mkdir -p "$T/outside"
	echo host-file >"$T/outside/f"
	proj_ini '[net]\nmode = open\n[fs]\nrw = %s\nhide_ignored = none\n[env]\nset = LEAK=1\n[secrets]\nX = cmd:touch %s/pwned\n[home]\nmode = persistent\n' \
		"$T/outside" "$T"
	run_jail -q -D "$T/p" -- sh -c "echo \"leak=\${LEAK:-} x=\${X:-}\"; cat '$T/outside/f' 2>&1; cat .env 2>&1; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '"
	assert_eq "$rc" 0 "run with an untrusted .jail.ini"
	assert_contains "$out" "leak= x="
	assert_not_contains "$out" host-file
	assert_not_contains "$out" canary-env
	assert_eq "$(echo "$out" | tail -1)" lo "interfaces inside"
	assert_contains "$err" "not trusted"
	assert_no_file "$T/pwned"
	run_jail status -D "$T/p"
	assert_no_file "$T/pwned"
	rm -f "$T/p/.jail.ini"
}

# The agent's own .jail.ini stays in its session: the next run reads the
# host's (none), and `jail trust` finds nothing to trust.
test_agent_written_project_policy_not_read() {
	probe_setup
	run_jail -q -D "$T/p" -- sh -c "printf '[secrets]\nX = cmd:touch $T/pwned\n' >.jail.ini"
	assert_eq "$rc" 0 "the agent writes .jail.ini"
	run_jail -q -D "$T/p" -- sh -c 'test -e .jail.ini && echo "x=${X:-}"'
	assert_eq "$out" "x="
	assert_no_file "$T/pwned"
	expect_fail125 trust -D "$T/p"
	assert_contains "$err" "no .jail.ini"
	host_safe
}

# A --rw bind that holds jail's config dir (--rw ~/.config) showed the agent
# the user's jail.ini, named policies and trust records, writable: a
# `[secrets] X = cmd:...` written there ran on the host at the next start
# (the same with the config dir not made yet: the agent made it).  The config
# dir is covered like the state dir: an empty read-only tmpfs.
test_rw_bind_cannot_plant_user_policy() {
	probe_setup
	local conf=$XDG_CONFIG_HOME
	for exists in yes no; do
		rm -rf "$conf/jail"
		[ "$exists" = no ] || { mkdir -p "$conf/jail/trust"; echo '[net]' >"$conf/jail/jail.ini"; }
		run_jail -q --rw "$conf" -D "$T/p" -- sh -c "
			ls -A '$conf/jail' 2>&1
			mkdir -p '$conf/jail/policies' 2>/dev/null
			printf '[secrets]\nX = cmd:touch $T/pwned\n' >'$conf/jail/jail.ini' 2>/dev/null
			printf '[secrets]\nX = cmd:touch $T/pwned\n' >'$conf/jail/policies/default.ini' 2>/dev/null
			echo done"
		assert_eq "$rc" 0 "run with --rw of the config dir's parent ($exists)"
		assert_eq "$out" done "what the agent saw of jail's config dir ($exists)"
		run_jail -q -D "$T/p" -- true
		assert_no_file "$T/pwned"
		[ "$exists" = no ] || assert_eq "$(cat "$conf/jail/jail.ini")" "[net]" "the user's jail.ini"
	done
	rm -rf "$conf/jail"
	host_safe
}

# ... and a --rw bind may not hold it below a directory the agent could
# rename (the cover is on the config dir by its name).
test_rw_bind_holding_config_dir_deeper_refused() {
	probe_setup
	mkdir -p "$T/cfgtop/sub/jail"
	local saved=$XDG_CONFIG_HOME
	export XDG_CONFIG_HOME=$T/cfgtop/sub
	expect_fail125 -q --rw "$T/cfgtop" -D "$T/p" -- true
	export XDG_CONFIG_HOME=$saved
	assert_contains "$err" "config dir"
	host_safe
}

# A project's .jail.ini is trusted after a person read it: what they read
# must be what jail reads.  A carriage return or an escape sequence inside a
# line drew one value over another in `cat` (`mode = open ;\rmode = none`
# shows "mode = none", loads "open"), a bidi override reorders a line, and a
# NUL byte ended the file for jail where the reader saw more.  Each is
# refused with the file and line, by `jail trust` and by a run.
test_policy_text_that_hides_from_a_reader_refused() {
	probe_setup
	local bad
	for bad in '[net]\nmode = open ;\rmode = none     \n' \
		'[net]\nmode = open ;\033[2K\033[1Gmode = none\n' \
		'[fs]\nro = /tmp ;\342\200\256 enon = edom\n' \
		'[fs]\nro = /usr\n\000[net]\nmode = open\n' \
		'[fs]\nro = /usr ;\302\233 C1 CSI\n' \
		'[fs]\nro = /caf\351\n'; do
		proj_ini "$bad"
		expect_fail125 trust -D "$T/p"
		assert_contains "$err" "$T/p/.jail.ini:"
		printf "$bad" >"$T/named.ini"
		expect_fail125 -q -p "$T/named.ini" -D "$T/p" -- true
		assert_contains "$err" "named.ini:"
	done
	# what editors write is no such text: CRLF line ends, a byte order mark,
	# tabs, UTF-8 in comments
	proj_ini '\357\273\277; caf\303\251\r\n[net]\r\nmode\t= none\r\n'
	run_jail trust -D "$T/p"
	assert_eq "$rc" 0 "trust a CRLF file with a BOM: $err"
	run_jail -q -D "$T/p" -- true
	assert_eq "$rc" 0 "run with it: $err"
	run_jail trust --revoke -D "$T/p"
	rm -f "$T/p/.jail.ini"
	no_stray
}

# A policy file far larger than any policy: one line that says so.
test_huge_policy_file_refused_in_one_line() {
	probe_setup
	head -c 2000000 /dev/zero | tr '\0' ';' >"$T/p/.jail.ini"
	expect_fail125 trust -D "$T/p"
	assert_contains "$err" "larger than"
	rm -f "$T/p/.jail.ini"
}

# A relative JAIL_POLICY_PATH (or XDG_CONFIG_HOME) named a directory of
# whatever directory jail ran in: in a cloned repository, its policies/
# answered -p NAME (before the installed ones) with a cmd: secret of its
# own.  Like the XDG variables, a relative one is ignored.
test_relative_policy_path_not_read_from_the_cwd() {
	probe_setup
	mkdir -p "$T/p/policies" "$T/p/jail"
	printf '[secrets]\nX = cmd:touch %s/pwned\n' "$T" >"$T/p/policies/claude.ini"
	printf '[secrets]\nX = cmd:touch %s/pwned\n' "$T" >"$T/p/jail/jail.ini"
	cd "$T/p"
	JAIL_POLICY_PATH=policies run_jail policy show -p claude -D .
	assert_not_contains "$out$err" "$T/p/policies"
	XDG_CONFIG_HOME=. run_jail -q -D . -- true
	cd /
	assert_no_file "$T/pwned"
}

# A state dir in the project is refused, also when XDG_STATE_HOME reaches it
# through a link and is not made yet: the check compared the name as spelled,
# the first run made the state dir in the host's project tree and put the
# overlay's upper dir inside its lower.
test_state_dir_in_project_through_a_link_refused_on_first_run() {
	probe_setup
	ln -s "$T/p" "$T/plink"
	local saved=$XDG_STATE_HOME
	export XDG_STATE_HOME=$T/plink/st
	expect_fail125 -q -D "$T/p" -- true
	export XDG_STATE_HOME=$saved
	assert_contains "$err" "overlaps jail's state directory '$T/p/st/jail'"
	assert_no_file "$T/p/st"
	host_safe
}

# The user's own `cmd:` secret ran in whatever directory jail started in,
# most often the project: a cloned repository's keyring.py answered
# `cmd:python3 -m keyring get ...` (python -m looks in the cwd first) and ran
# on the host before any jail.  A secret's command runs in the home.
test_secret_command_does_not_run_in_the_project() {
	probe_setup
	mkdir -p "$XDG_CONFIG_HOME/jail"
	printf '[secrets]\nWHERE = cmd:pwd\n' >"$XDG_CONFIG_HOME/jail/jail.ini"
	cd "$T/p"
	run_jail -q -D . -- sh -c 'echo "where=$WHERE"'
	cd /
	assert_eq "$rc" 0 "$err"
	assert_eq "$out" "where=$(cd "$HOME" && pwd)"
	command -v python3 >/dev/null || { rm -f "$XDG_CONFIG_HOME/jail/jail.ini"; return 0; }
	printf '[secrets]\nK = cmd:python3 -m jailkeyring get svc user\n' >"$XDG_CONFIG_HOME/jail/jail.ini"
	printf 'open("%s/pwned", "w").write("x")\nprint("from-the-repo")\n' "$T" >"$T/p/jailkeyring.py"
	cd "$T/p"
	run_jail -q -D . -- sh -c 'echo "k=$K"'
	cd /
	rm -f "$XDG_CONFIG_HOME/jail/jail.ini" "$T/p/jailkeyring.py"
	assert_no_file "$T/pwned"
	assert_eq "$rc" 125 "the secret's command (no such module in the home) fails the start"
	assert_contains "$err" "secret K"
}

# --ro X on the command line over a policy's `rw = X` left X writable: the
# lists added up and the rw bind won whatever the layer.  A path is bound one
# way, the later layer's; both ways on the command line is refused.
test_later_layer_decides_how_a_path_is_bound() {
	probe_setup
	mkdir -p "$T/shared"
	printf '[fs]\nrw = %s\n' "$T/shared" >"$T/rw.ini"
	run_jail -q -p "$T/rw.ini" --ro "$T/shared" -D "$T/p" -- sh -c "touch '$T/shared/x' 2>/dev/null; echo done"
	assert_eq "$rc" 0 "$err"
	assert_no_file "$T/shared/x"
	printf '[fs]\nro = %s\n' "$T/shared" >"$T/ro.ini"
	run_jail -q -p "$T/ro.ini" --rw "$T/shared" -D "$T/p" -- touch "$T/shared/y"
	assert_eq "$rc" 0 "$err"
	assert_file "$T/shared/y"
	expect_fail125 -q --rw "$T/shared" --ro "$T/shared" -D "$T/p" -- true
	assert_contains "$err" "both name"
	no_stray
}
