# cgroup v2 limits, in the test VM (tests/vm/guest built the hierarchy).
# A test's shell starts in a desktop terminal's scope in the user's app.slice
# ($CG_APP, delegated), or, for test_session_*, in an ssh login's session scope
# owned by root ($CG_SESSION).  scoped_jail puts jail alone in a new scope, as
# `systemd-run --user --scope -p Delegate=yes jail ...` does.
source "$TESTS/security/helpers.bash"

# scoped_jail NAME ARGS...: jail ARGS in the new scope $CG_APP/NAME.scope;
# $out, $err, $rc as run_jail leaves them; $scope is the scope's directory.
scoped_jail() {
	scope=$CG_APP/$1.scope
	shift
	mkdir "$scope"
	set +e
	out=$(sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$scope" \
		"$JAIL" "$@" 2>"$T/err" </dev/null)
	rc=$?
	set -e
	err=$(cat "$T/err")
}

# sjp NAME [JAIL OPTIONS...] -- CASE [ARGS...]: the probe, as jp runs it, in a scope.
sjp() {
	probe_setup
	local name=$1 opts=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	scoped_jail "$name" -q "${opts[@]}" --ro "$T/bin" -D "$T/p" -- "$T/bin/probe" "$@"
	host_safe
}

# after_jail: what a finished jail leaves in its scope: nothing of its own.
scope_clean() {
	assert_eq "$(find "$scope" -mindepth 1 -type d)" "" "cgroups left in $scope"
	assert_eq "$(cat "$scope/cgroup.procs")" "" "processes left in $scope"
	assert_eq "$(cat "$scope/cgroup.subtree_control")" "" "controllers left on in $scope"
}

# bomb NAME PIDS: the fork bomb in a scope, behind a shell that first says
# whether the jail has a cgroup of its own; sets $forked, $bomb_rc, $in_cgroup.
bomb() {
	probe_setup
	scoped_jail "$1" -q --pids "$2" --ro "$T/bin" -D "$T/p" -- \
		sh -c "grep -c '^0::/jail-' /proc/self/cgroup; $T/bin/probe forkbomb; echo rc=\$?"
	host_safe
	in_cgroup=$(sed -n 1p <<<"$out")
	forked=$(sed -n 2p <<<"$out")
	bomb_rc=$(sed -n 's/^rc=//p' <<<"$out")
}

test_pids_limit_holds_the_whole_jail() {
	bomb bomb32 32
	assert_eq "$in_cgroup" 1 "the jail in a cgroup of its own"
	assert_eq "$bomb_rc" "$EAGAIN" "fork at the limit"
	assert_eq "$err" "" "no fallback warning"
	# the jail's init and the shell count too: the cgroup limits the jail,
	# not one process
	[ "$forked" -lt 30 ] && [ "$forked" -gt 20 ] || fail "forked $forked processes with --pids 32"
	scope_clean
	# positive control: a higher limit lets more through
	bomb bomb64 64
	assert_eq "$bomb_rc" "$EAGAIN"
	[ "$forked" -gt 30 ] && [ "$forked" -lt 64 ] || fail "forked $forked with --pids 64"
	scope_clean
}

test_limits_come_from_the_cgroup_not_rlimits() {
	probe_setup
	scoped_jail lim --pids 50 --memory 100M --cpus 1 -D "$T/p" -- \
		sh -c 'cat /proc/self/cgroup; grep -E "Max (processes|data size)" /proc/self/limits'
	assert_eq "$rc" 0
	assert_eq "$err" "" "no fallback warning"
	# the jail sits in a cgroup of its own below its scope
	assert_contains "$out" "0::/jail-"
	# and the rlimit fallbacks are not set on top
	[[ "$(grep 'Max data size' <<<"$out")" == *unlimited*unlimited* ]] ||
		fail "RLIMIT_DATA set with cgroup limits: $out"
	[[ "$(grep 'Max processes' <<<"$out")" != *" 50 "* ]] ||
		fail "RLIMIT_NPROC set with cgroup limits: $out"
	scope_clean
}

test_memory_hog_is_killed_at_the_limit() {
	probe_setup
	# the cgroup counts what is touched, so the hog is killed rather than
	# refused; the shell around it survives and reports
	scoped_jail hog -q --memory 64M --ro "$T/bin" -D "$T/p" -- \
		sh -c "$T/bin/probe memhog 512; echo status=\$?"
	assert_eq "$rc" 0
	assert_contains "$out" "status=137"
	scope_clean
	# positive control: 100 MiB fit in 256M
	scoped_jail fits -q --memory 256M --ro "$T/bin" -D "$T/p" -- "$T/bin/probe" memhog 100
	assert_eq "$rc" 0
	assert_eq "$out" 100
	host_safe
}

# cpu_run NAME CPUS: spin 1.5 s in a jail limited to CPUS, then idle (until
# told, on its stdin) while the host reads the jail cgroup's cpu.max and
# cpu.stat; sets $cpu_max, $throttled, $periods.
cpu_run() {
	probe_setup
	local name=$1 cpus=$2 cg="" spun
	spun="$(session_dir "$T/p" "$name")/upper/spun"
	mkdir "$CG_APP/$name.scope"
	mkfifo "$T/$name.in"
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG_APP/$name.scope" \
		"$JAIL" -q -s "$name" --cpus "$cpus" -D "$T/p" -- \
		sh -c 'timeout 1.5 sh -c "while :; do :; done"; echo >spun; read -r _ || true' \
		<"$T/$name.in" &
	local pid=$!
	exec 7>"$T/$name.in"
	jail_cgroup() {
		cg=$(find "$CG_APP/$name.scope" -maxdepth 1 -name 'jail-*' ! -name '*.supervisor' | head -n 1)
		[ -n "$cg" ]
	}
	wait_for jail_cgroup || fail "no cgroup for the jail in $name.scope"
	wait_for test -e "$spun" # past the spin, the jail idle
	cpu_max=$(cat "$cg/cpu.max")
	throttled=$(awk '$1 == "nr_throttled" {print $2}' "$cg/cpu.stat")
	periods=$(awk '$1 == "nr_periods" {print $2}' "$cg/cpu.stat")
	exec 7>&-
	wait "$pid"
	scope=$CG_APP/$name.scope
	scope_clean
}

test_cpu_limit_throttles() {
	cpu_run half 0.5
	assert_eq "$cpu_max" "50000 100000"
	[ "$throttled" -gt 0 ] || fail "a spin at --cpus 0.5 was never throttled"
	# positive control: one spinning process under a quota of four times the
	# guest's two CPUs.  It can only reach the quota when the guest's period
	# timer fires hundreds of ms late, which an emulated guest on a busy host
	# does now and then; so the control bounds the share of throttled periods
	# instead of asking for none.
	cpu_run wide 8
	assert_eq "$cpu_max" "800000 100000"
	[ "$periods" -gt 0 ] || fail "no CPU periods counted under --cpus 8"
	[ $((throttled * 10)) -lt "$periods" ] ||
		fail "throttled in $throttled of $periods periods under --cpus 8"
}

test_jail_cannot_raise_its_own_limits() {
	sjp where --pids 32 -- read /proc/self/cgroup
	assert_contains "$out" "0::/jail-" "the limits are a cgroup's"
	sjp raise --pids 32 -- write /sys/fs/cgroup/pids.max max
	assert_ne "$rc" 0 "write pids.max from inside"
	sjp mnt --pids 32 -- sys mount_cgroup2
	assert_ne "$rc" 0 "mount cgroup2 from inside"
	sjp bomb --pids 32 -- forkbomb
	assert_eq "$rc" "$EAGAIN"
	[ "$out" -lt 31 ] || fail "forked $out processes with --pids 32"
}

# With nested namespaces allowed back (a container runtime in the jail), the
# agent makes a user and a cgroup namespace of its own, rooted at its cgroup,
# and mounts cgroup2 there.  The files of that root are the user's, and
# without nsdelegate (this guest's mount; systemd's has it) writable to the
# agent: it set pids.max to max and forked 48 with --pids 32.  The limits are
# now one level above the jail's processes, out of what it can see.
test_nested_cgroup_namespace_cannot_lift_the_limits() {
	probe_setup
	scoped_jail nest -q --pids 32 --allow-syscall unshare --allow-syscall mount \
		--ro "$T/bin" -D "$T/p" -- sh -c '
		unshare -Ur --mount --cgroup sh -c "mkdir -p /tmp/cg &&
			mount -t cgroup2 none /tmp/cg && echo mounted && mkdir /tmp/cg/sub
			echo +pids >/tmp/cg/cgroup.subtree_control
			for f in /tmp/cg/*.max /tmp/cg/sub/*.max; do
				[ -e \$f ] && echo max >\$f && echo raised \$f
			done
			cat /proc/self/cgroup" 2>&1
		'"$T"'/bin/probe forkbomb 48 >/tmp/n; echo forked=$(cat /tmp/n)'
	echo "$out" >&2
	assert_contains "$out" mounted "the nested cgroup2 mount (positive control)"
	assert_not_contains "$out" raised
	local forked
	forked=$(sed -n 's/^forked=//p' <<<"$out")
	[ -n "$forked" ] && [ "$forked" -lt 31 ] || fail "forked '$forked' processes with --pids 32"
	host_safe
	scope_clean
}

test_nothing_outlives_the_jail() {
	probe_setup
	# a process that leaves its session and ignores SIGTERM/SIGHUP
	scoped_jail bye -q --pids 40 --ro "$T/bin" -D "$T/p" -- \
		sh -c "setsid sh -c 'trap \"\" TERM HUP; echo >/tmp/up; exec $T/bin/probe sleep 300' &
			until [ -e /tmp/up ]; do sleep 0.05; done; echo started"
	assert_eq "$rc" 0
	assert_contains "$out" started
	no_stray
	scope_clean
}

test_shared_scope_falls_back_to_rlimits() {
	# jail started from the terminal's own scope shares it with this shell,
	# which is not jail's to move: the fallback, said once, and the scope
	# left as it was
	probe_setup
	scope=$(sed -n 's/^0:://p' /proc/self/cgroup)
	scope=/sys/fs/cgroup$scope
	run_jail --pids 32 --ro "$T/bin" -D "$T/p" -- "$T/bin/probe" forkbomb
	assert_eq "$rc" "$EAGAIN" "RLIMIT_NPROC stops the bomb"
	[ "$out" -lt 32 ] || fail "forked $out with --pids 32"
	assert_contains "$err" "which is not jail's"
	assert_contains "$err" "using rlimits"
	# (the hint about hidden ignored paths follows a failed command; not counted)
	assert_eq "$(grep . <<<"$err" | grep -vc "ignored paths were hidden")" 1 "one line"
	assert_eq "$(find "$scope" -mindepth 1 -type d)" "" "cgroups left in $scope"
	assert_eq "$(cat "$scope/cgroup.subtree_control")" ""
	grep -qx "$$" "$scope/cgroup.procs" || fail "this shell was moved out of its scope"
	host_safe
}

test_session_scope_is_not_delegated() {
	probe_setup
	run_jail --pids 32 --ro "$T/bin" -D "$T/p" -- "$T/bin/probe" forkbomb
	assert_eq "$rc" "$EAGAIN" "RLIMIT_NPROC stops the bomb"
	[ "$out" -lt 32 ] || fail "forked $out with --pids 32"
	assert_contains "$err" "session-1.scope is not delegated to uid $(id -u)"
	assert_contains "$err" "systemd-run --user --scope -p Delegate=yes"
	host_safe
}

test_doctor_reports_the_delegation() {
	set +e
	out=$("$JAIL" doctor 2>&1)
	set -e
	assert_contains "$out" "[ok  ] cgroup v2 controllers delegated to you"
	assert_not_contains "$out" "no cgroup v2 delegation"
}

test_half_made_cgroup_falls_back_alive() {
	# the scope takes one child cgroup only: the jail's is made, the
	# supervisor's is refused; jail must undo what it made and run on with
	# the rlimit fallback, its init unharmed
	probe_setup
	scope=$CG_APP/one.scope
	mkdir "$scope"
	echo 1 >"$scope/cgroup.max.descendants"
	set +e
	out=$(sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$scope" \
		"$JAIL" --pids 32 --ro "$T/bin" -D "$T/p" -- "$T/bin/probe" forkbomb 2>"$T/err" </dev/null)
	rc=$?
	set -e
	err=$(cat "$T/err")
	assert_eq "$rc" "$EAGAIN" "RLIMIT_NPROC stops the bomb"
	[ "$out" -lt 32 ] || fail "forked $out with --pids 32"
	assert_contains "$err" "using rlimits"
	scope_clean
	host_safe
}
