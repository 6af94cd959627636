# The escape suite: the command's start from init's launcher thread
# (src/sandbox/launcher.h).  Capabilities, securebits, no_new_privs, the
# syscall filter, the network namespace, the session keyring, the signal
# mask and a parent's death are each a thread's own in Linux, and the command
# takes them from the thread of init's that vforks it, not from init's main
# thread; a `jail exec` command is a child of init's main thread, which keeps
# its capabilities, and drops everything itself.  Each test reads the state
# back from inside (as the kernel reports it) in the command, in what the
# command starts, and in a `jail exec` command, with the network namespace
# made by init's thread (the default) and by the clone (--net none with
# --publish), so that a change to who starts what cannot lose one silently.
source "$TESTS/security/helpers.bash"

# The secure bits the command must hold (caps.c's LOCKED_SECUREBITS: noroot,
# no_setuid_fixup, keep_caps locked, no_cap_ambient_raise, each locked).
LOCKED_SECUREBITS=0xef

# agent_running [JAIL ARGS...]: a jail in the background whose command waits
# for $T/sig/go; `jail exec -D $T/p` then joins it.  The agent's pid in the
# jail is in $T/sig/agent.pid, its network namespace in $T/sig/agent.netns,
# and what $T/bin/state says of it (when there is one) in $T/sig/agent.state.
agent_running() {
	probe_setup
	mkdir -p "$T/sig"
	rm -f "$T/sig/ready" "$T/sig/go" "$T/sig/agent.state"
	"$JAIL" -q -D "$T/p" --rw "$T/sig" --ro "$T/bin" "$@" -- sh -c "
		echo \$\$ >'$T/sig/agent.pid' && readlink /proc/self/ns/net >'$T/sig/agent.netns' &&
		{ [ ! -x '$T/bin/state' ] || '$T/bin/state' >'$T/sig/agent.state'; } &&
		touch '$T/sig/ready' && while [ ! -e '$T/sig/go' ]; do sleep 0.1; done" \
		</dev/null >"$T/agent.out" 2>"$T/agent.err" &
	agent=$!
	wait_for test -e "$T/sig/ready" || fail "the agent did not start: $(cat "$T/agent.err")"
}

agent_done() {
	touch "$T/sig/go"
	set +e
	wait "$agent"
	agent_rc=$?
	set -e
	assert_eq "$agent_rc" 0 "agent: $(cat "$T/agent.err")"
	host_safe
}

# jx ARGS...: `jail exec` into the running agent's jail, $out $err $rc.
jx() { run_jail exec -D "$T/p" -- "$@"; }

# A thread's exit is its children's parent's death: the command, a vfork
# child of init's launcher thread, got its PR_SET_PDEATHSIG when that thread
# ended right after starting it (an agent that asks to die with init was
# killed at its start, about one run in five).  The thread stays now.  Many
# runs: the race was the command's prctl against the thread's exit.
test_command_not_signalled_by_a_thread_of_inits_exit() {
	probe_setup
	local fired=0
	for _ in $(seq 40); do
		jp -- pdeath 100
		assert_eq "$rc" 0 "pdeath probe: $err"
		[ "$out" = quiet ] || fired=$((fired + 1))
	done
	assert_eq "$fired" 0 "runs whose command got its parent-death signal"
	# positive control: the signal comes when the parent really goes (a
	# shell that starts the probe in the background and exits soon after)
	run_jail -q --ro "$T/bin" -D "$T/p" -- sh -c "sh -c '\"$T/bin/probe\" pdeath 500 & sleep 0.2'; sleep 1"
	assert_eq "$rc" 0 "$err"
	assert_eq "$out" fired "the probe whose parent exited"
	host_safe
}

# The launcher's thread drops the capabilities and loads the filter; when that
# fails the command must not start, and the user must hear why.  Its error
# reached init's main thread after READY, when the supervisor no longer reads
# init's errors: the jail ended with 125 and no word.  A filter that cannot
# load: the host's side fills the kernel's per-task bound on filters (32768
# instructions) with allow-all ones before it starts jail.
test_filter_load_failure_fails_closed_and_says_why() {
	probe_setup
	local fill="$T/host/probe seccomp-fill 64"
	for net in none allow; do
		set +e
		out=$($fill "$JAIL" -q --net "$net" --ro "$T/bin" -D "$T/p" -- sh -c 'echo RAN' \
			2>"$T/.stderr" </dev/null)
		rc=$?
		set -e
		err=$(cat "$T/.stderr")
		assert_eq "$rc" 125 "the jail whose filter cannot load (--net $net): $out $err"
		assert_not_contains "$out" RAN
		assert_contains "$err" "seccomp: load the filter"
		assert_eq "$(printf '%s\n' "$err" | grep -c .)" 1 "error lines: $err"
		host_safe
	done
	# positive control: with room left for the jail's filter, it starts
	out=$("$T/host/probe" seccomp-fill 4096 "$JAIL" -q --ro "$T/bin" -D "$T/p" -- sh -c 'echo RAN' 2>&1 </dev/null) || true
	assert_eq "$out" RAN "with room left for the jail's filter"
}

# state_script: $T/bin/state, the state of a process as the kernel reports
# it, one NAME=VALUE or /proc line each; run by a shell, so the probe in it
# is something the command started.
state_script() {
	probe_setup
	cat >"$T/bin/state" <<'SH'
#!/bin/sh
P=$(dirname "$0")/probe
"$P" status
echo "securebits=$("$P" securebits)"
grep -E '^(Seccomp_filters|SigBlk|SigPnd|ShdPnd):' /proc/self/status
echo "net=$(readlink /proc/self/ns/net)"
echo "pidns=$(readlink /proc/self/ns/pid) mntns=$(readlink /proc/self/ns/mnt)"
echo "lo=$("$P" ifflags lo)"
echo "devs=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ,)"
echo "root=$(stat -c %d:%i /)"
echo "scratch=$(cut -d' ' -f5 /proc/self/mountinfo | grep -cE '^/(oldroot|newroot)(/|$)')"
echo "cgroup=$(tr '\n' ' ' </proc/self/cgroup)"
grep -E '^Max (processes|data size|core file size)' /proc/self/limits | tr -s ' ' | sed 's/ *$//'
"$P" sys mount; echo "mount=$?"
"$P" sys unshare_net; echo "unshare_net=$?"
"$P" sys setns; echo "setns=$?"
SH
	chmod +x "$T/bin/state"
}

# assert_armed STATE FILTERS: no capability in any of the five sets, the
# secure bits locked, no_new_privs, FILTERS seccomp filters (and the
# filter's refusals in force), no signal blocked or pending, the jail's
# network namespace (not the host's; lo, up, its only device).
assert_armed() {
	local s=$1 set bits
	for set in Inh Prm Eff Bnd Amb; do
		assert_contains "$s" "Cap$set:	0000000000000000"
	done
	assert_contains "$s" "NoNewPrivs:	1"
	assert_contains "$s" "Seccomp:	2"
	assert_contains "$s" "Seccomp_filters:	$2"
	bits=$(sed -n 's/^securebits=//p' <<<"$s")
	[ -n "$bits" ] && [ $((bits & LOCKED_SECUREBITS)) = $((LOCKED_SECUREBITS)) ] ||
		fail "secure bits '$bits', expected $LOCKED_SECUREBITS set: $s"
	for sig in SigBlk SigPnd ShdPnd; do
		assert_contains "$s" "$sig:	0000000000000000"
	done
	assert_contains "$s" "mount=$EPERM"
	assert_contains "$s" "unshare_net=$EPERM"
	assert_contains "$s" "setns=$EPERM"
	assert_not_contains "$s" "net=$(readlink /proc/self/ns/net)"
	assert_contains "$s" "net=net:["
	assert_not_contains "$s" "pidns=$(readlink /proc/self/ns/pid)"
	assert_not_contains "$s" "mntns=$(readlink /proc/self/ns/mnt)"
	assert_contains "$s" "pidns=pid:["
	# the root is the jail's, fully built: nothing of the scratch root's
	# pivots (mounts.c) is left to see
	assert_contains "$s" "scratch=0"
	bits=$(sed -n 's/^lo=//p' <<<"$s")
	[ -n "$bits" ] && [ $((bits & 1)) = 1 ] || fail "lo is not up: $s"
	assert_contains "$s" "devs=lo,"
}

# The command and what it starts: nothing held, everything in force, with
# the network namespace made by init's launcher thread (the default) and by
# the clone (--net none with --publish: netns.h).
test_command_holds_nothing_in_both_network_cases() {
	state_script
	local port opts
	port=$(free_port)
	for opts in "" "--publish $port"; do
		# shellcheck disable=SC2086 # the case's options, split
		run_jail -q $opts --ro "$T/bin" -D "$T/p" -- sh -c "'$T/bin/state'"
		assert_eq "$rc" 0 "[$opts]: $err"
		assert_armed "$out" 1
		assert_contains "$out" "Max core file size 0 0"
		host_safe
		# and its own fds are 0-2 only
		# shellcheck disable=SC2086
		jp $opts -- fds
		assert_eq "$(tr '\n' ' ' <<<"$out")" "0 1 2 " "the command's fds [$opts]"
	done
}

# A `jail exec` command is a child of init's main thread, which keeps its
# capabilities (and, since the launcher thread, a full bounding set: it
# mounts, and never executes anything): the joined command drops them all
# itself, and takes one more filter.  In the agent's network namespace,
# whoever made it.
test_joined_command_holds_nothing_in_both_network_cases() {
	state_script
	local port opts
	port=$(free_port)
	for opts in "" "--publish $port"; do
		# shellcheck disable=SC2086 # the case's options, split
		agent_running $opts
		jx sh -c "'$T/bin/state'"
		assert_eq "$rc" 0 "exec [$opts]: $err"
		assert_armed "$out" 2
		assert_contains "$out" "net=$(cat "$T/sig/agent.netns")"
		assert_armed "$(cat "$T/sig/agent.state")" 1
		# the agent's pid and mount namespaces and root, too
		assert_eq "$(grep -E '^(pidns|root)=' <<<"$out")" \
			"$(grep -E '^(pidns|root)=' "$T/sig/agent.state")" "jail exec's namespaces and root"
		assert_contains "$out" "Max core file size 0 0"
		jx "$T/bin/probe" fds
		assert_eq "$(tr '\n' ' ' <<<"$out")" "0 1 2 " "the joined command's fds [$opts]"
		# the extra filter: the agent is out of its reach
		jx "$T/bin/probe" ptrace "$(cat "$T/sig/agent.pid")"
		assert_eq "$rc" "$EPERM" "ptrace the agent from jail exec [$opts]"
		agent_done
	done
}

# The session keyring is a thread's own: init leaves the caller's before
# its launcher thread starts, which the command takes it from; `jail exec`'s
# command takes init's main thread's.  Neither finds a key of the host's
# session keyring, keyctl allowed back.
test_session_keyring_the_jails_for_command_and_exec() {
	probe_setup
	local key="jailtest-$$-$RANDOM" secret="hunter2-$RANDOM"
	set +e
	out=$(hp key-exec "$key" "$secret" s "$T/host/probe" key-read "$key")
	rc=$?
	set -e
	[ "$rc" != "$ENOSYS" ] || skip "no kernel keyrings here"
	assert_eq "$out" "$secret" "positive control: the host reads its session key"
	mkdir -p "$T/sig"
	rm -f "$T/sig/ready" "$T/sig/go"
	hp key-exec "$key" "$secret" s "$JAIL" -q -D "$T/p" --rw "$T/sig" --ro "$T/bin" \
		--allow-syscall keyctl -- sh -c "
		'$T/bin/probe' key-read '$key' >'$T/sig/agent.key'; echo \$? >'$T/sig/agent.keyrc'
		touch '$T/sig/ready'; while [ ! -e '$T/sig/go' ]; do sleep 0.1; done" \
		</dev/null >"$T/agent.out" 2>"$T/agent.err" &
	agent=$!
	wait_for test -e "$T/sig/ready" || fail "the agent did not start: $(cat "$T/agent.err")"
	assert_eq "$(cat "$T/sig/agent.keyrc")" "$ENOKEY" "the command's search: $(cat "$T/sig/agent.key")"
	jx "$T/bin/probe" key-read "$key"
	assert_eq "$rc" "$ENOKEY" "jail exec's search: $out $err"
	assert_not_contains "$out" "$secret"
	agent_done
}

# Limits: from a cgroup where one is delegated (the supervisor moves init,
# all its threads, with cgroup.procs), else rlimits set in the command's own
# process.  The command and a joined command are under the same.
test_limits_hold_for_command_and_exec() {
	state_script
	agent_running --pids 48 --memory 256M
	local agent_state
	# the agent's own, read by a command it started
	agent_state=$(cat "$T/sig/agent.state")
	assert_armed "$agent_state" 1
	jx sh -c "'$T/bin/state'"
	assert_eq "$rc" 0 "$err"
	for s in "$agent_state" "$out"; do
		if [[ "$s" == *"cgroup="*jail-* ]]; then
			assert_contains "$s" "Max core file size 0 0"
		else
			assert_contains "$s" "Max processes 48 48"
			assert_contains "$s" "Max data size 268435456 268435456"
		fi
	done
	# a joined command is in the agent's cgroup
	assert_eq "$(sed -n 's/^cgroup=//p' <<<"$out")" "$(sed -n 's/^cgroup=//p' <<<"$agent_state")" \
		"jail exec's cgroup, as seen inside"
	agent_done
}

# /proc/1 is init, every thread of it: its launcher thread (which holds the
# command's credentials, nothing more) as much as its main thread (which
# holds the user namespace's capabilities).  Neither's memory, environment
# or command line (wiped, before the command started, to NULs), nor a trace
# of either.
test_every_thread_of_init_out_of_reach() {
	probe_setup
	local marker="launcher-marker-$RANDOM"
	run_jail -q --hide "$marker" --allow-syscall ptrace --ro "$T/bin" -D "$T/p" -- sh -c "
		for t in /proc/1/task/*; do
			n=\${t##*/}
			'$T/bin/probe' read \$t/environ >/dev/null; echo \"environ \$n \$?\"
			'$T/bin/probe' read \$t/mem >/dev/null; echo \"mem \$n \$?\"
			'$T/bin/probe' ptrace \$n; echo \"ptrace \$n \$?\"
			echo \"cmdline \$n [\$(tr -d '\\0' <\$t/cmdline)]\"
		done"
	assert_eq "$rc" 0 "$err"
	[ "$(grep -c '^environ' <<<"$out")" -ge 2 ] || fail "init's launcher thread is gone: $out"
	assert_not_contains "$out" "$marker"
	while read -r what tid r; do
		case $what in
		environ | mem) assert_eq "$r" "$EACCES" "$what of init's thread $tid" ;;
		ptrace) assert_eq "$r" "$EPERM" "ptrace of init's thread $tid" ;;
		cmdline) assert_eq "$r" "[]" "the command line of init's thread $tid" ;;
		*) fail "unexpected: $what $tid $r" ;;
		esac
	done <<<"$out"
	host_safe
}

# The launcher's thread makes the network namespace; when it cannot, the jail
# ends with that error and the command never starts (nor in the host's
# namespace).  The host's side sets the outer user namespace's bound on new
# network namespaces to 0 (the jail's is nested in it).
test_network_namespace_failure_fails_closed() {
	probe_setup
	command -v unshare >/dev/null || skip "no unshare(1)"
	local run="'$JAIL' -q --ro '$T/bin' -D '$T/p' -- sh -c 'echo RAN'"
	set +e
	out=$(unshare -Ur sh -c "$run" 2>&1 </dev/null)
	rc=$?
	set -e
	[ "$rc" = 0 ] || skip "jail does not run in a user namespace of unshare(1)'s here: $out"
	assert_eq "$out" RAN "positive control: in the outer namespace, unbounded"
	set +e
	out=$(unshare -Ur sh -c "echo 0 >/proc/sys/user/max_net_namespaces && $run" 2>&1 </dev/null)
	rc=$?
	set -e
	assert_eq "$rc" 125 "no network namespace to be had: $out"
	assert_not_contains "$out" RAN
	assert_contains "$out" "network namespace"
	assert_eq "$(printf '%s\n' "$out" | grep -c .)" 1 "error lines: $out"
	host_safe
}
