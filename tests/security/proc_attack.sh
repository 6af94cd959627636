# The escape suite: a fresh attacker's look at the process side of the jail
# and at what of the host's it can use up.
source "$TESTS/security/helpers.bash"

# Every writable tmpfs of the jail is memory no process owns: the OOM killer
# cannot get it back by killing the agent.  One tmpfs each (half the RAM
# apiece by the kernel's default) let the agent fill /tmp, /dev/shm, /run and
# its home past what the host has, so the kernel killed host processes; and
# --memory (a per-process rlimit without cgroups) bounded none of them.  They
# are one tmpfs now, at most --memory's bytes.
test_writable_tmpfs_share_one_budget() {
	probe_setup
	run_jail -q --tmpfs /opt/scratch -D "$T/p" -- \
		sh -c 'stat -c %d /tmp /dev/shm /run "$HOME" /opt/scratch | sort -u | wc -l'
	assert_eq "$rc" 0 "$err"
	assert_eq "$out" 1 "/tmp, /dev/shm, /run, the home and --tmpfs on one filesystem"
	# with --memory 64M, 40 MiB in /tmp leave no room for 40 more in /dev/shm
	run_jail -q --memory 64M -D "$T/p" -- sh -c '
		dd if=/dev/zero of=/tmp/a bs=1M count=40 2>/dev/null || { echo first-failed; exit 0; }
		dd if=/dev/zero of=/dev/shm/b bs=1M count=40 2>/dev/null && echo both-fit || echo full'
	assert_eq "$out" full "80 MiB of tmpfs in a --memory 64M jail"
	# positive control: what fits the budget is written
	run_jail -q --memory 64M -D "$T/p" -- sh -c '
		dd if=/dev/zero of=/tmp/a bs=1M count=20 2>/dev/null &&
		dd if=/dev/zero of=/dev/shm/b bs=1M count=20 2>/dev/null && echo both-fit'
	assert_eq "$out" both-fit
	host_safe
}

# SysV shared memory is the same kind of memory: a segment outlives every
# process that used it, and a fresh IPC namespace allows ~2^64 bytes of it
# (200 MiB went into a --memory 64M jail, detached, owned by nobody).  Large
# segments are refused as above shmmax (EINVAL); small ones work.
test_sysv_shm_segments_bounded() {
	command -v python3 >/dev/null || skip "no python3"
	probe_setup
	run_jail -q --memory 64M -D "$T/p" -- python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
for size in (4096, 256 << 10, (256 << 10) + 1, 200 << 20):
    i = libc.shmget(0, ctypes.c_size_t(size), 0o1600)
    print(size, "ok" if i >= 0 else os.strerror(ctypes.get_errno()))
    if i >= 0:
        libc.shmctl(i, 0, None)  # IPC_RMID
'
	assert_eq "$rc" 0 "$err"
	assert_contains "$out" "4096 ok" # positive control: PostgreSQL's size
	assert_contains "$out" "262144 ok"
	assert_contains "$out" "262145 Invalid argument"
	assert_contains "$out" "209715200 Invalid argument"
	# a policy that allows shmget back gets the kernel's own limits
	run_jail -q --allow-syscall shmget -D "$T/p" -- python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
i = libc.shmget(0, ctypes.c_size_t(1 << 20), 0o1600)
print("ok" if i >= 0 else os.strerror(ctypes.get_errno())); libc.shmctl(i, 0, None)'
	assert_eq "$out" ok
}
