# The escape suite: resources.  Limits come from cgroup v2 where a delegated
# subtree is writable, else from rlimits; either way the probe must stop at
# the limit, the host stays responsive and nothing is left running.
source "$TESTS/security/helpers.bash"

test_fork_bomb_stops_at_the_limit() {
	jp --pids 32 -- forkbomb
	assert_eq "$rc" "$EAGAIN" "fork at the limit"
	small=$out
	[ "$small" -lt 32 ] || fail "forked $small processes with --pids 32"
	# positive control: a higher limit lets more through, so the limit is
	# what stopped it
	jp --pids 64 -- forkbomb
	assert_eq "$rc" "$EAGAIN"
	[ "$out" -gt "$small" ] && [ "$out" -lt 64 ] || fail "forked $out with --pids 64"
	# the host stays responsive: our own fork still works at once
	timeout 5 true || fail "host fork failed after the bomb"
}

test_fork_bomb_shell_style_contained() {
	probe_setup
	set +e
	# the bomb's shells carry a name of this test's (its forks keep it): the
	# user's other shells, another suite's bomb among them, are not counted.
	# (Not ":" for the function's name: dash refuses it, and nothing forks.)
	local bomb=jail-bomb-$$
	timeout 60 "$JAIL" -q --pids 40 -D "$T/p" -- bash -c 'exec -a "$0" sh -c "b(){ b|b& };b; sleep 1; echo survived"' "$bomb" \
		>"$T/out" 2>&1 </dev/null
	set -e
	timeout 5 true || fail "host fork failed"
	no_stray
	wait_for no_process "^$bomb " || fail "shell processes left behind: $(pgrep -c -u "$(id -u)" -f "^$bomb ")"
	assert_contains "$(cat "$T/out")" survived
	host_safe
}

test_memory_hog_stops_at_the_limit() {
	jp --memory 64M -- memhog 512
	assert_eq "$rc" "$ENOMEM" "allocation past the limit"
	[ "$out" -lt 64 ] || fail "allocated $out MiB with --memory 64M"
	jp --memory 256M -- memhog 100
	assert_eq "$rc" 0 "positive control: 100 MiB fit in 256M"
	assert_eq "$out" 100
}

test_limits_fallback_is_announced() {
	probe_setup
	run_jail --cpus 1 --memory 64M -D "$T/p" -- cat /proc/self/cgroup
	assert_eq "$rc" 0
	if [[ "$out" != *jail-* ]]; then
		# no delegated cgroup here: the user is told what still holds
		assert_contains "$err" "cgroup"
		assert_contains "$err" "--cpus is NOT enforced"
	fi
	host_safe
}

test_inotify_instances_bounded() {
	jp -- inotify-many
	assert_eq "$rc" "$EMFILE" "inotify_init past the bound"
	[ "$out" -gt 0 ] && [ "$out" -le 128 ] || fail "opened $out inotify instances"
}

test_pty_count_bounded() {
	jp -- ptmx-many
	assert_eq "$rc" "$ENOSPC" "opening ptys past the devpts bound"
	[ "$out" -gt 0 ] && [ "$out" -le 256 ] || fail "opened $out ptys"
}

test_namespace_counts_zero_unless_allowed_back() {
	jp -- read /proc/sys/user/max_user_namespaces
	assert_eq "$out" 0
	jp --allow-syscall unshare -- read /proc/sys/user/max_user_namespaces
	assert_ne "$out" 0 "positive control: allowed back, the count is left alone"
	jp --allow-syscall unshare -- sys unshare_user
	assert_eq "$rc" 0 "and a nested namespace works"
}

# A disk filler: --disk stops the run once it added more than allowed; the state
# filesystem (here a 64 MiB tmpfs of the test's own) keeps its reserve.
disk_jail() { # tmpfs-size jail-args... ; sets $out (stdout+stderr) with rc=N last
	mkdir -p "$T/st"
	out=$(unshare -Urm sh -c "mount -t tmpfs -o size=$1 none $T/st && shift &&
		XDG_STATE_HOME=$T/st \"\$@\"; echo rc=\$?; df -k $T/st | tail -n 1" sh "$@" 2>&1)
}

test_disk_filler_stopped_by_the_disk_limit() {
	mkrepo "$T/p"
	# a filler that writes as an agent does, a chunk at a time, twice the limit,
	# then waits to be stopped (30 s at most: the guard looks ten times a
	# second, and a slow machine must not let it finish first)
	disk_jail 256M "$JAIL" --disk 8M -D "$T/p" -- sh -c 'for i in $(seq 16); do dd if=/dev/zero of=f$i bs=1M count=1 2>/dev/null; sleep 0.01; done
		i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; echo wrote-all'
	assert_contains "$out" "rc=125"
	assert_contains "$out" "wrote more than --disk 8 MiB"
	assert_not_contains "$out" "wrote-all"
	# the host's copy of the project got nothing
	assert_no_file "$T/p/f1"
}

# With a terminal the guard watches from a thread of its own (the relay may
# block writing to the host terminal); without one, from the supervisor's
# wait (diskguard.h): the same filler is stopped both ways.
test_disk_filler_stopped_with_a_terminal_too() {
	command -v script >/dev/null || skip "no script(1)"
	mkrepo "$T/p"
	mkdir -p "$T/st"
	cat >"$T/filler" <<'SH'
for i in $(seq 16); do dd if=/dev/zero of=f$i bs=1M count=1 2>/dev/null; sleep 0.01; done
i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; echo wrote-all
SH
	cat >"$T/fill.sh" <<SH
mount -t tmpfs -o size=256M none "$T/st" || exit 9
[ -t 1 ] && echo on-a-terminal
XDG_STATE_HOME="$T/st" "$JAIL" --disk 8M -D "$T/p" -- sh -c "\$(cat "$T/filler")"
echo rc=\$?
SH
	in_pty "unshare -Urm sh $T/fill.sh"
	out=$(tr -d "\r" <<<"$out")
	assert_contains "$out" "on-a-terminal"
	assert_contains "$out" "rc=125"
	assert_contains "$out" "wrote more than --disk 8 MiB"
	assert_not_contains "$out" "wrote-all"
	assert_no_file "$T/p/f1"
}

test_disk_filler_keeps_the_reserve() {
	mkrepo "$T/p"
	disk_jail 64M "$JAIL" -D "$T/p" -- sh -c 'for i in $(seq 64); do dd if=/dev/zero of=f$i bs=1M count=1 2>/dev/null || { echo ENOSPC-inside; exit 3; }; sleep 0.02; done; echo wrote-all'
	assert_not_contains "$out" "wrote-all"
	[[ "$out" == *"it was filling the disk"* || "$out" == *"ENOSPC-inside"* ]] ||
		fail "neither the guard nor ENOSPC stopped the filler: $out"
	# positive control: the same filler with room to spare writes everything
	disk_jail 256M "$JAIL" -D "$T/p" -s roomy -- sh -c 'for i in $(seq 8); do dd if=/dev/zero of=f$i bs=1M count=1 2>/dev/null || exit 3; done; echo wrote-all'
	assert_contains "$out" "wrote-all"
}
