# The escape suite: a fresh attacker's look at the kernel surface the syscall
# filter, the capability drop, the namespaces and the /proc masks leave open
# (threats 1 and 5 in DESIGN.md).  syscalls.sh has the refused calls one by
# one; this file has the other spellings that reach the same places.
source "$TESTS/security/helpers.bash"

# socketpair(2) makes its sockets as socket(2) does: the family's and the
# protocol's create code runs (a module loads on demand where the kernel has
# modules) before the family says it has no pairs.  vsock and UDP-Lite were
# made that way past the socket rules; the same rules hold for both calls now.
test_socketpair_refuses_what_socket_refuses() {
	local IPPROTO_UDPLITE=136
	# positive control: let through, the kernel makes the sockets and answers
	# for the pair itself (EOPNOTSUPP), or lacks the family (EAFNOSUPPORT)
	jp --allow-syscall socketpair -- socketpair 40 1 0
	assert_ne "$rc" "$EPERM" "AF_VSOCK socketpair allowed back: the kernel's answer"
	for bad in "40 1 0" "38 5 0" "17 3 0" "2 2 $IPPROTO_UDPLITE" "10 1 132" "2 5 0" \
		"16 2 9" "0x100000028 1 0" "2 2 0x100000088"; do
		jp -- socketpair $bad
		assert_eq "$rc" "$EPERM" "socketpair $bad"
	done
	jp -- socketpair 1 1 0
	assert_eq "$rc" 0 "a unix socketpair"
	jp -- socketpair 1 2 0
	assert_eq "$rc" 0 "a unix datagram socketpair"
}

# jail_in_keyring RING [JAIL ARGS...] -- PROBE ARGS: from a fresh session
# keyring on the host holding the user key $KEY=$SECRET (in the session
# keyring, RING s, or the user keyring, u), run the probe in a jail.
jail_in_keyring() {
	local ring=$1 opts=()
	shift
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	probe_setup
	set +e
	out=$(hp key-exec "$KEY" "$SECRET" "$ring" "$JAIL" -q "${opts[@]}" --ro "$T/bin" \
		-D "$T/p" -- "$T/bin/probe" "$@" 2>"$T/.stderr" </dev/null)
	rc=$?
	set -e
	err=$(cat "$T/.stderr")
	host_safe
}

# The jail's processes inherited the caller's session keyring: where a policy
# allows keyctl back (for a tool that keeps its token there), the agent
# possessed the login's keys and read them, password and Kerberos tickets
# alike.  Only /proc/keys was masked.  The jail has a session keyring of its
# own now, empty; the user keyring is the jail's user namespace's already.
test_host_session_keyring_out_of_reach() {
	probe_setup
	KEY="jailtest-$$-$RANDOM" SECRET="hunter2-$RANDOM"
	# positive control: the same keyring on the host gives the key up
	set +e
	out=$(hp key-exec "$KEY" "$SECRET" s "$T/host/probe" key-read "$KEY")
	rc=$?
	set -e
	[ "$rc" != "$ENOSYS" ] || skip "no kernel keyrings here"
	assert_eq "$rc" 0 "the host reads its own session key"
	assert_eq "$out" "$SECRET"
	jail_in_keyring s --allow-syscall keyctl -- key-read "$KEY"
	assert_eq "$rc" "$ENOKEY" "keyctl search of the session keyring in the jail: $out $err"
	assert_not_contains "$out" "$SECRET"
	jail_in_keyring s --allow-syscall request_key --allow-syscall keyctl -- \
		key-read "$KEY" request
	assert_eq "$rc" "$ENOKEY" "request_key in the jail: $out $err"
	assert_not_contains "$out" "$SECRET"
	set +e
	out=$(hp key-exec "$KEY" "$SECRET" u "$T/host/probe" key-read "$KEY" request)
	rc=$?
	set -e
	assert_eq "$out" "$SECRET" "the host finds its user-keyring key: $rc"
	jail_in_keyring u --allow-syscall request_key --allow-syscall keyctl -- \
		key-read "$KEY" request
	assert_eq "$rc" "$ENOKEY" "request_key of a user-keyring key in the jail: $out $err"
	assert_not_contains "$out" "$SECRET"
	# and by default keyctl is refused outright
	jail_in_keyring s -- key-read "$KEY"
	assert_eq "$rc" "$EPERM" "keyctl refused by default"
}

# What the own session keyring cannot stop: a key's permissions are the uid's,
# yours inside as outside, and the kernel gives the owner of the user keyring
# everything.  With keyctl back the agent tries serials until it finds that
# keyring (2^31 of them: ~16 minutes at 2 million a second), links it into its
# own and reads its keys; a filter cannot tell the jail's serials from the
# host's.  And request_key of a missing key makes the kernel run the host's
# /sbin/request-key as root, in the host's namespaces, with the agent's type,
# description and callout (seen here with a stand-in helper that logged uid 0
# and the host's netns).  So allowing any of the three back is said at start.
test_keyring_calls_allowed_back_are_announced() {
	probe_setup
	run_jail -q --allow-syscall keyctl -D "$T/p" -- true
	assert_eq "$rc" 0 "$err"
	assert_contains "$err" "keyctl is allowed back: the agent can read and change the keys of your user keyring"
	run_jail -q --allow-syscall add_key -D "$T/p" -- true
	assert_contains "$err" "add_key is allowed back"
	run_jail -q --allow-syscall request_key -D "$T/p" -- true
	assert_contains "$err" "request_key is allowed back: the agent makes the host run /sbin/request-key as root"
	run_jail -q -D "$T/p" -- true
	assert_eq "$err" "" "nothing to say by default"
	host_safe
}

# The jail's inotify counts are charged to its user namespace and to your uid
# in the host's, where your own programs draw on the same limit.  The jail's
# bound was the host's per-user default (128 instances): an agent holding them
# all left your editor, file manager and file watchers on the host none
# (inotify_init: EMFILE) while it ran.  The jail gets half of each limit.
test_inotify_leaves_the_host_user_its_share() {
	command -v python3 >/dev/null || skip "no python3"
	probe_setup
	local limit held host_got
	limit=$(cat /proc/sys/fs/inotify/max_user_instances)
	"$JAIL" -q -D "$T/p" -- python3 -c '
import ctypes, time
libc = ctypes.CDLL(None)
fds = []
while len(fds) < 100000:
    fd = libc.inotify_init1(0o2000000)
    if fd < 0:
        break
    fds.append(fd)
open("held", "w").write(str(len(fds)))
time.sleep(60)' >/dev/null 2>&1 &
	local jail=$!
	wait_for test -s "$(session_dir "$T/p")/upper/held"
	held=$(cat "$(session_dir "$T/p")/upper/held")
	# the host user's own inotify_init, while the jail holds what it could
	set +e
	host_got=$(hp inotify-many)
	set -e
	run_jail stop -D "$T/p"
	wait "$jail" || true
	[ "$held" -gt 0 ] && [ "$held" -le $((limit / 2)) ] ||
		fail "the jail held $held of the $limit inotify instances"
	[ "$host_got" -ge $((limit / 2 - 8)) ] ||
		fail "the host user could open $host_got inotify instances while the jail held $held"
	host_safe
}

# Legacy AIO's events count against one host-wide limit (fs.aio-max-nr,
# 65536), in no namespace and for no user: sixteen io_setup calls from the
# jail took it all, and while the agent held them every io_setup on the host
# failed with EAGAIN, root's included (the native AIO of databases and VMs).
# io_setup now answers ENOSYS, as a kernel without AIO does, so libaio's users
# take their fallback.
test_aio_refused_as_absent() {
	jp -- sys io_setup
	assert_eq "$rc" "$ENOSYS" "io_setup in the jail"
	jp --allow-syscall io_setup -- sys io_setup
	assert_eq "$rc" 0 "io_setup allowed back (positive control)"
}

# Every process of the jail takes a pid and a thread of the host's too
# (kernel.pid_max, threads-max: the initial namespaces count every one), and
# without --pids nothing bounded the jail's but the user's own process limit,
# here three times pid_max: a fork bomb in a default jail could leave no one
# on the host, root included, a process to start (not run here: the machine
# is shared; the bound is what is asserted).  Without --pids the jail gets half
# of the least of them.  (The jail's own pid_max, per pid namespace since
# Linux 6.14, shows no such bound: the host's values are read on the host.)
test_default_process_limit_leaves_the_host_half() {
	probe_setup
	local pid_max threads bound
	pid_max=$(cat /proc/sys/kernel/pid_max)
	threads=$(cat /proc/sys/kernel/threads-max)
	bound=$((pid_max < threads ? pid_max : threads))
	run_jail -q -D "$T/p" -- bash -c 'ulimit -Hu'
	assert_eq "$rc" 0 "$err"
	[ "$out" != unlimited ] && [ "$out" -le $((bound / 2)) ] ||
		fail "the jail may run $out processes; the host holds $bound"
	run_jail -q --pids 50 -D "$T/p" -- bash -c 'ulimit -Hu'
	assert_eq "$out" 50 "--pids sets its own bound (positive control)"
	host_safe
}

# The user's pending signals (RLIMIT_SIGPENDING) are counted the same way, in
# the jail's namespace and for the uid on the host: an agent that queued
# 96,365 real-time signals to itself left the user's host programs none
# (sigqueue and timer_create: EAGAIN) while it ran; POSIX message queues share
# RLIMIT_MSGQUEUE so.  The jail gets half of each.
test_pending_signals_leave_the_host_user_its_share() {
	probe_setup
	local limit held host_got
	limit=$(bash -c 'ulimit -i')
	[ "$limit" != unlimited ] || skip "no pending-signal limit here"
	"$JAIL" -q --ro "$T/bin" -D "$T/p" -- sh -c "$T/bin/probe sigqueue-many 60 >held" \
		>/dev/null 2>&1 &
	local jail=$!
	wait_for test -s "$(session_dir "$T/p")/upper/held"
	held=$(cat "$(session_dir "$T/p")/upper/held")
	set +e
	host_got=$(hp sigqueue-many)
	set -e
	run_jail stop -D "$T/p"
	wait "$jail" || true
	[ "$held" -gt 0 ] && [ "$held" -le $((limit / 2)) ] ||
		fail "the jail queued $held of the user's $limit pending signals"
	[ "$host_got" -ge $((limit / 2 - 64)) ] ||
		fail "the host user could queue $host_got signals while the jail held $held"
	host_safe
}
