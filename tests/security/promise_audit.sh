# The escape suite: the README's promises that no other file of the suite
# proved, claim by claim (the audit of "What it does" and "Security model"
# outside the terminal, the network, the export and hidden files).  Each
# attack runs inside a jail as the agent would; each has a positive control
# (the same attempt on the host, or with the layer under test allowed back)
# that shows the attack would be seen if it worked.  The small attackers are
# Python (ctypes for raw syscalls), written into $T/bin, which the jail sees
# read-only as the probe's directory.
source "$TESTS/security/helpers.bash"

# jpy [JAIL OPTIONS...] -- SCRIPT ARGS...: run $T/bin/SCRIPT with python3 in a
# jail on $T/p; $out, $err and $rc as run_jail leaves them; the host is checked.
jpy() {
	probe_setup
	local opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	local script=$1
	shift
	run_jail -q "${opts[@]}" --ro "$T/bin" -D "$T/p" -- python3 "$T/bin/$script" "$@"
	host_safe
}

# syscalls.py NAME...: one line "NAME ERRNO" (0: the call succeeded) per call,
# each with arguments for which the kernel itself gives an answer of its own
# (not EPERM) where it can, so that a call let through is seen.
write_syscalls_py() {
	probe_setup
	cat >"$T/bin/syscalls.py" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def call(nr, *a):
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(x) if isinstance(x, int) else x for x in a])
    return 0 if r >= 0 else ctypes.get_errno()
buf = ctypes.create_string_buffer(512)
CLONE = {"newuts": 0x04000000, "newipc": 0x08000000, "newpid": 0x20000000,
         "newcgroup": 0x02000000, "newnet": 0x40000000, "newns": 0x00020000,
         "newuser": 0x10000000}
def clone(flag):
    pid = libc.syscall(ctypes.c_long(56), ctypes.c_long(CLONE[flag] | 17), ctypes.c_long(0),
                       ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0))
    if pid == 0:
        os._exit(0)
    if pid < 0:
        return ctypes.get_errno()
    os.waitpid(pid, 0)
    return 0
CASES = {
    "modify_ldt": lambda: call(154, 0, buf, 16),
    "iopl": lambda: call(172, 0),
    "ioperm": lambda: call(173, 0x80, 1, 0),
    "settimeofday": lambda: call(164, 1, 0),
    "clock_settime": lambda: call(227, 1, buf),
    "adjtimex": lambda: call(159, buf),
    "clock_adjtime": lambda: call(305, 0, buf),
    "vhangup": lambda: call(153),
    "quotactl_fd": lambda: call(443, -1, 0, 0, 0),
    "open_tree_attr": lambda: call(467, -1, b"", 0, 0, 0),
    "uselib": lambda: call(134, b"/nonexistent"),
    "lookup_dcookie": lambda: call(212, 0, 0, 0),
    "nfsservctl": lambda: call(180, 0, 0, 0),
    "unshare_newtime": lambda: call(272, 0x80),
    "unshare_newcgroup": lambda: call(272, CLONE["newcgroup"]),
    "unshare_newipc": lambda: call(272, CLONE["newipc"]),
    "unshare_newuts": lambda: call(272, CLONE["newuts"]),
    "unshare_newpid": lambda: call(272, CLONE["newpid"]),
    "sethostname": lambda: call(170, b"pwned", 5),
    "setdomainname": lambda: call(171, b"pwned", 5),
    "prctl_set_mm": lambda: call(157, 35, 1, 0, 0, 0),
    "prctl_securebits": lambda: call(157, 28, 0, 0, 0, 0),
    "prctl_ambient_raise": lambda: call(157, 47, 2, 21, 0, 0),
    "prctl_nnp_off": lambda: call(157, 38, 0, 0, 0, 0),
    "raise_core_limit": lambda: call(160, 4, (ctypes.c_ulong * 2)(1 << 20, 1 << 20)),
    "fanotify_init": lambda: call(300, 0x200, 0),  # FAN_REPORT_FID: unprivileged since 5.13
    "sched_fifo": lambda: call(144, 0, 1, ctypes.byref(ctypes.c_int(1))),
    "nice_below_zero": lambda: call(141, 0, 0, -5),
}
for c in CLONE:
    CASES["clone_" + c] = (lambda f: lambda: clone(f))(c)
for n in sys.argv[1:]:
    print(n, CASES[n]())
EOF
}

# syscall_answers CALLS [JAIL OPTIONS]: "NAME ERRNO" lines of the calls in a jail.
syscall_answers() {
	local calls=$1
	shift
	# shellcheck disable=SC2086 # the calls are words
	jpy "$@" -- syscalls.py $calls
	assert_eq "$rc" 0 "syscalls.py in the jail: $err"
}

# The README's seccomp list names these beside the ones tests/security/
# syscalls.sh tries (clock setting, iopl/ioperm/modify_ldt, the rest of
# "host-wide administration").  Refused: EPERM.  Positive control: with the
# calls allowed back the kernel answers as it does on the host, and for most
# that answer is not EPERM, so the probe would see a call let through.
test_admin_syscalls_refused_beyond_the_table() {
	write_syscalls_py
	local calls="modify_ldt iopl ioperm settimeofday clock_settime adjtimex clock_adjtime vhangup
		quotactl_fd open_tree_attr uselib lookup_dcookie nfsservctl"
	local host allow=() n distinct=0
	# shellcheck disable=SC2086
	host=$(python3 "$T/bin/syscalls.py" $calls)
	syscall_answers "$calls"
	for n in $calls; do
		assert_contains "$out" "$n $EPERM"
		allow+=(--allow-syscall "$n")
		[ "$(grep "^$n " <<<"$host")" = "$n $EPERM" ] || distinct=$((distinct + 1))
	done
	syscall_answers "$calls" "${allow[@]}"
	assert_eq "$out" "$host" "the calls allowed back answer as on the host"
	# the control means something: most calls answer otherwise than EPERM
	[ "$distinct" -ge 8 ] || fail "only $distinct calls answer the host with another errno than EPERM: $host"
}

# "unshare and clone with any namespace flag" are refused, each flag alone (the
# suite's syscalls.sh tries user, net and mount); the uts namespace's own
# calls too.  The kernel would refuse them as well (no capability left):
# two walls, and the filter's is asserted by the other flags' positive
# controls in syscalls.sh; here every flag must meet one of them.
test_every_namespace_flag_refused() {
	write_syscalls_py
	local calls="unshare_newtime unshare_newcgroup unshare_newipc unshare_newuts unshare_newpid
		clone_newuts clone_newipc clone_newpid clone_newcgroup clone_newnet clone_newns clone_newuser
		sethostname setdomainname" n
	local host_name
	host_name=$(cat /proc/sys/kernel/hostname /proc/sys/kernel/domainname)
	syscall_answers "$calls"
	for n in $calls; do
		assert_contains "$out" "$n $EPERM"
	done
	# the jail's uts names are its own; the host's are unchanged by the attempts
	run_jail -q --ro "$T/bin" -D "$T/p" -- sh -c 'hostname; cat /proc/sys/kernel/domainname'
	assert_eq "$out" "jail
(none)" "the jail's uts names"
	assert_eq "$(cat /proc/sys/kernel/hostname /proc/sys/kernel/domainname)" "$host_name" "the host's uts names"
}

# Capabilities and no_new_privs hold against prctl: no_new_privs cannot be
# cleared, no securebits change, no ambient capability raised, no mm fields
# set, the core-size limit (0, for core dumps off) cannot be raised, no
# real-time scheduling or negative nice value takes the host's CPU first, and
# the OOM score cannot be lowered below the host's.
test_prctl_and_rlimits_cannot_undo_the_drop() {
	write_syscalls_py
	local calls="prctl_set_mm prctl_securebits prctl_ambient_raise prctl_nnp_off raise_core_limit
		sched_fifo nice_below_zero" sched
	# scheduling: what your own rlimits (RTPRIO, NICE) give you on the host, no more
	sched=$(python3 "$T/bin/syscalls.py" sched_fifo nice_below_zero)
	syscall_answers "$calls"
	assert_eq "$out" "prctl_set_mm $EPERM
prctl_securebits $EPERM
prctl_ambient_raise $EPERM
prctl_nnp_off $EINVAL
raise_core_limit $EPERM
$sched" "prctl, setrlimit and scheduling inside"
	# nor can it make itself the OOM killer's last choice (a host process dies first)
	run_jail -q -D "$T/p" -- sh -c 'echo -1 >/proc/self/oom_score_adj 2>/dev/null && echo LOWERED; echo 5 >/proc/self/oom_score_adj && cat /proc/self/oom_score_adj'
	assert_eq "$out" 5 "oom_score_adj: lowering refused, raising (the positive control) works"
	run_jail -q -D "$T/p" -- sh -c 'grep -E "^(NoNewPrivs|CapEff|CapPrm|CapBnd|CapAmb|CapInh)" /proc/self/status | tr -s "\t" " "; ulimit -c; ulimit -Hc'
	assert_eq "$out" "CapInh: 0000000000000000
CapPrm: 0000000000000000
CapEff: 0000000000000000
CapBnd: 0000000000000000
CapAmb: 0000000000000000
NoNewPrivs: 1
0
0" "the agent's capabilities, no_new_privs and core limit"
}

# The jail's init holds host directories open: every way to its fds, memory
# and root fails (ptrace, /proc/1/exe, environ and mem are in process.sh):
# /proc/1 and /proc/1/task/1 spellings, pidfd_getfd, process_vm_readv/writev.
# Positive control: the same reaches a child of the agent's own.
test_init_unreachable_in_every_spelling() {
	probe_setup
	local scope
	scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
	[ "$scope" -lt 2 ] || skip "Yama ptrace_scope $scope: no positive control (a child is not traceable)"
	cat >"$T/bin/init.py" <<'EOF'
import ctypes, os, sys, subprocess
libc = ctypes.CDLL(None, use_errno=True)
def sc(nr, *a):
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(x) if isinstance(x, int) else x for x in a])
    return r if r >= 0 else -ctypes.get_errno()
def try_path(p):
    try:
        if p.endswith("/"):
            os.listdir(p)
        elif p.endswith("/mem") or "/ns/" in p:
            os.close(os.open(p, os.O_RDONLY))  # open only: page 0 is unmapped, ns files unreadable
        else:
            open(p, "rb").read(1)
        return 0
    except OSError as e:
        return e.errno
def attack(pid):
    res = []
    for sub in ("", "task/%d/" % pid):
        for name in ("root/", "cwd/", "fd/", "fdinfo/", "map_files/", "environ", "mem", "exe",
                     "auxv", "syscall", "io", "ns/user", "ns/mnt"):
            if sub and name == "map_files/":
                continue  # a process's, not a thread's
            res.append(("/proc/%d/%s%s" % (pid, sub, name), try_path("/proc/%d/%s%s" % (pid, sub, name))))
    pfd = sc(434, pid, 0)
    res.append(("pidfd_open", 0 if pfd >= 0 else -pfd))
    got = max(sc(438, pfd, fd, 0) for fd in range(0, 16))
    res.append(("pidfd_getfd", 0 if got >= 0 else -got))
    mine = ctypes.create_string_buffer(16)
    loc = (ctypes.c_void_p * 2)(ctypes.cast(mine, ctypes.c_void_p), 16)
    # the remote address: where this same executable is mapped (init is jail,
    # not python; any mapped address will do, an unmapped one gives EFAULT)
    with open("/proc/self/maps") as m:
        addr = int(m.readline().split("-")[0], 16)
    rem = (ctypes.c_void_p * 2)(addr, 16)
    for nr, name in ((310, "process_vm_readv"), (311, "process_vm_writev")):
        r = sc(nr, pid, loc, 1, rem, 1, 0)
        res.append((name, 0 if r >= 0 else -r))
    return res
if sys.argv[1] == "init":
    for what, e in attack(1):
        print(what.replace("/proc/1/", "/proc/PID/").replace("task/1/", "task/PID/"), e)
else:
    child = subprocess.Popen(["python3", "-c", "import time; time.sleep(60)"])
    for what, e in attack(child.pid):
        print(what.replace("/proc/%d/" % child.pid, "/proc/PID/").replace("task/%d/" % child.pid, "task/PID/"), e)
    child.kill()
EOF
	jpy -- init.py init
	assert_eq "$rc" 0 "init.py: $err"
	local line what e
	while read -r what e; do
		case $what in
		pidfd_open) assert_eq "$e" 0 "pidfd_open of init (a pidfd alone reaches nothing)" ;;
		*) [ "$e" != 0 ] || fail "the agent reached init's $what" ;;
		esac
	done <<<"$out"
	assert_eq "$(grep -c . <<<"$out")" 29 "attempts on init"
	# positive control: the agent's own child is reached every way (a write
	# with process_vm_writev to its own text fails: EFAULT counts as reached)
	jpy -- init.py child
	assert_eq "$rc" 0 "init.py child: $err"
	while read -r what e; do
		case $what in
		process_vm_writev) [ "$e" = 0 ] || [ "$e" = "$EFAULT" ] ||
			fail "positive control: process_vm_writev to the agent's child: $e" ;;
		*) assert_eq "$e" 0 "positive control: the agent's child's $what" ;;
		esac
	done <<<"$out"
}

# "IPC namespace": POSIX message queues are the IPC namespace's, so a host
# queue cannot be opened inside, and a queue the jail makes is not the host's.
test_posix_message_queues_are_the_jails_own() {
	probe_setup
	cat >"$T/bin/mq.py" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
name = sys.argv[2].encode()
if sys.argv[1] == "create":
    r = libc.mq_open(name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600, None)
elif sys.argv[1] == "open":
    r = libc.mq_open(name, os.O_RDWR)
else:
    r = libc.mq_unlink(name)
print(0 if r >= 0 else ctypes.get_errno())
EOF
	local q="/jail-audit-$$-$RANDOM"
	assert_eq "$(python3 "$T/bin/mq.py" create "$q")" 0 "the host's queue made"
	jpy -- mq.py open "$q"
	assert_eq "$out" "$ENOENT" "the host's queue opened inside"
	jpy -- mq.py create "$q"
	assert_eq "$out" 0 "positive control: the jail makes its own queue of that name"
	assert_eq "$(python3 "$T/bin/mq.py" open "$q")" 0 "positive control: the host opens its queue"
	assert_eq "$(python3 "$T/bin/mq.py" unlink "$q")" 0 "the host's queue removed"
	assert_eq "$(python3 "$T/bin/mq.py" open "$q")" "$ENOENT" "the jail's queue did not reach the host"
}

# POSIX shared memory lives in /dev/shm: the jail's is a tmpfs of its own, so
# the host's segments are not there and the jail's do not reach the host.
test_dev_shm_is_the_jails_own() {
	probe_setup
	local name="jail-audit-$$-$RANDOM"
	{ [ -d /dev/shm ] && [ -w /dev/shm ]; } || skip "the host has no writable /dev/shm"
	printf 'host-shm-canary\n' >"/dev/shm/$name"
	run_jail -q -D "$T/p" -- sh -c 'cat "/dev/shm/$1" 2>&1; ls -A /dev/shm | grep -c "$1"; echo jail-shm >"/dev/shm/$1.j" && cat "/dev/shm/$1.j"' sh "$name"
	rm -f "/dev/shm/$name"
	assert_not_contains "$out" "host-shm-canary"
	assert_eq "$(sed -n 2p <<<"$out")" 0 "the host's segment listed inside"
	assert_eq "$(sed -n 3p <<<"$out")" jail-shm "positive control: /dev/shm works inside"
	assert_no_file "/dev/shm/$name.j"
}

# A host unix socket in the project is not reachable, whatever hides or shows
# it: the project is an overlay (over the view), whose inodes are not the
# host's, and a socket is found by its inode.  The same for a --cow dir.  (A
# --ro or --rw bind is the host's inode: see README "Limitations".)
test_host_socket_in_the_project_unreachable() {
	probe_setup
	mkdir -p "$T/cowdir"
	local sock log lpid n
	for sock in "$T/p/dev.sock" "$T/p/build/db.sock" "$T/cowdir/c.sock"; do
		log="$T/$(basename "$sock").log"
		"$T/host/probe" listen "$sock" 600 >"$log" &
		lpid=$!
		wait_for grep -q listening "$log"
		BEFORE=$(tree_hash "$T/p")
		for mode in "" "--hide-ignored=none" "--hide-start-only --hide-ignored=none"; do
			# shellcheck disable=SC2086 # the mode is words
			jp $mode --cow "$T/cowdir" -- connect-unix "$sock"
			# ENOENT where the name is hidden (build/ is ignored), else refused
			[ "$rc" = "$ECONNREFUSED" ] || { [ "$rc" = "$ENOENT" ] && [ -z "$mode" ] &&
				[ "$sock" = "$T/p/build/db.sock" ]; } ||
				fail "connect to $sock (${mode:-default}): errno $rc"
		done
		hp connect-unix "$sock" || fail "positive control: the host connects to $sock"
		wait_for grep -q connection "$log"
		n=$(grep -c connection "$log")
		kill "$lpid"
		wait "$lpid" 2>/dev/null || true
		assert_eq "$n" 1 "connections $sock saw (the host's own only)"
	done
}

# The environment is built from nothing: what a desktop or login session
# puts in it (display, session bus, agent sockets, runtime dir, credentials,
# loader and shell hooks, a locale-looking name that is no locale category)
# stays out; the locale, TZ and COLORTERM come in (the positive control).
test_environment_carries_nothing_of_the_hosts_session() {
	probe_setup
	# shellcheck disable=SC2054 # TMUX's value holds commas
	local leak=(DISPLAY=:0 WAYLAND_DISPLAY=wayland-0 XDG_RUNTIME_DIR=/run/user/1000
		XAUTHORITY=/home/u/.Xauthority DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket
		DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus SSH_AUTH_SOCK=/tmp/ssh/agent
		SSH_AGENT_PID=42 GPG_AGENT_INFO=/run/user/1000/gnupg/S.gpg-agent KRB5CCNAME=FILE:/tmp/krb5cc
		GNOME_KEYRING_CONTROL=/run/user/1000/keyring LD_PRELOAD=/nonexistent/libx.so
		LD_LIBRARY_PATH=/tmp/evil BASH_ENV=/tmp/evil.sh ENV=/tmp/evil.sh PROMPT_COMMAND=evil
		PYTHONSTARTUP=/tmp/evil.py NODE_OPTIONS=--require=/tmp/evil.js GIT_ASKPASS=/tmp/askpass
		SSH_ASKPASS=/tmp/askpass GITHUB_TOKEN=canary-audit-1 AWS_SECRET_ACCESS_KEY=canary-audit-2
		ANTHROPIC_API_KEY=canary-audit-3 LC_TERMINAL=iTerm2 LC_SECRET=canary-audit-4
		XDG_SESSION_ID=3 SUDO_USER=someone TMUX=/tmp/tmux-1000/default,1,0 STY=1.pts-0
		HISTFILE=/home/u/.bash_history MAIL=/var/mail/u)
	env "${leak[@]}" LC_TIME=C.UTF-8 TZ=Europe/Paris COLORTERM=truecolor LANGUAGE=en \
		"$JAIL" -q -D "$T/p" -- env >"$T/env.out" 2>"$T/env.err" </dev/null ||
		fail "jail -- env: $(cat "$T/env.err")"
	out=$(cat "$T/env.out")
	local kv names
	names=" $(cut -d= -f1 <"$T/env.out" | tr '\n' ' ')"
	for kv in "${leak[@]}"; do
		assert_not_contains "$names" " ${kv%%=*} "
	done
	assert_not_contains "$out" "canary-audit"
	assert_not_contains "$out" "/run/user"
	assert_contains "$out" "LC_TIME=C.UTF-8"
	assert_contains "$out" "TZ=Europe/Paris"
	assert_contains "$out" "COLORTERM=truecolor"
	assert_contains "$out" "LANGUAGE=en"
}

# "A minimal /dev": the character devices of a C runtime and nothing else (no
# /dev/fuse, kvm, net/tun, userfaultfd, mem, a disk), no block device, no sysfs
# (/sys would show the host's devices and let uevents in), and no device node
# can be made (the jail's /dev is a tmpfs the agent owns).
test_minimal_dev_and_no_sysfs() {
	probe_setup
	run_jail -q -D "$T/p" -- sh -c '
		for f in /dev/* /dev/*/* /dev/.[!.]*; do
			[ -L "$f" ] && continue
			{ [ -c "$f" ] && echo "$f c"; } || { [ -b "$f" ] && echo "$f b"; } || true
		done | LC_ALL=C sort | tr "\n" " "; echo
		test -e /sys && echo SYS || echo no-sys
		grep -c " - sysfs " /proc/self/mountinfo
		mknod /dev/evil c 1 1 2>/dev/null && echo MKNOD || echo no-mknod'
	assert_eq "$rc" 0 "$err"
	assert_eq "$(sed -n 1p <<<"$out")" "/dev/full c /dev/null c /dev/pts/ptmx c /dev/random c /dev/tty c /dev/urandom c /dev/zero c " "device nodes inside"
	assert_eq "$(sed -n 2,4p <<<"$out")" "no-sys
0
no-mknod" "sysfs and mknod inside"
}

# A read-only bind stays read-only however its files are named: through
# /proc/self/root, /proc/thread-self/root, /dev/fd of a directory fd, a
# reopen of a read-only fd for writing, and as a mount point (chmod, rename,
# remove).  Positive control: the same writes through a --rw bind land.
test_read_only_bind_in_every_spelling() {
	probe_setup
	mkdir -p "$T/data" "$T/w"
	printf 'orig\n' >"$T/data/f"
	printf 'orig\n' >"$T/w/f"
	chmod 777 "$T/data" "$T/w"
	chmod 666 "$T/data/f" "$T/w/f"
	local script='d=$1
		echo a >"/proc/self/root$d/new1" 2>/dev/null && echo W1
		echo b >"/proc/thread-self/root$d/new2" 2>/dev/null && echo W2
		exec 7<"$d"; echo c >"/dev/fd/7/new3" 2>/dev/null && echo W3; exec 7<&-
		exec 8<"$d/f"; echo d >"/proc/self/fd/8" 2>/dev/null && echo W4; exec 8<&-
		truncate -s 0 "/proc/self/root$d/f" 2>/dev/null && echo W5
		touch -d @0 "$d/f" 2>/dev/null && echo W6
		chmod 700 "$d" 2>/dev/null && echo W7
		mv "$d" "$d.moved" 2>/dev/null && echo W8
		ln "$d/f" "$d/hard" 2>/dev/null && echo W9
		cd /proc/self/cwd && echo e >"$d/../$(basename "$d")/new4" 2>/dev/null && echo W10
		true'
	local before
	before=$(tree_hash "$T/data")
	run_jail -q --ro "$T/data" -D "$T/p" -- sh -c "$script" sh "$T/data"
	assert_eq "$rc" 0 "$err"
	assert_eq "$out" "" "writes through the read-only bind"
	assert_eq "$(tree_hash "$T/data")" "$before" "the read-only bind's host dir"
	run_jail -q --rw "$T/w" -D "$T/p" -- sh -c "$script" sh "$T/w"
	assert_contains "$out" "W1"
	assert_contains "$out" "W3"
	assert_contains "$out" "W4"
	assert_eq "$(cat "$T/w/new3")" c "positive control: the --rw bind was written"
}

# The same for a named FIFO the host reads commands from: the jail's open for
# writing finds no reader (ENXIO: the project's and a --cow dir's FIFO is the
# overlay's own pipe), where the host's own open finds its reader.
test_host_fifo_in_the_project_not_live() {
	probe_setup
	cat >"$T/bin/fifo.py" <<'PY'
import os, sys
try:
    os.close(os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK))
    print(0)
except OSError as e:
    print(e.errno)
PY
	mkdir -p "$T/cowdir"
	local f rpid mode
	for f in "$T/p/cmd.fifo" "$T/cowdir/cmd.fifo"; do
		mkfifo "$f"
		sleep 600 <>"$f" &  # a reader (and writer: it never sees EOF)
		rpid=$!
		BEFORE=$(tree_hash "$T/p")
		for mode in "" "--hide-start-only"; do
			# shellcheck disable=SC2086 # the mode is words
			jpy $mode --cow "$T/cowdir" -- fifo.py "$f"
			assert_eq "$out" 6 "open of the host's $f for writing (${mode:-default}): errno (ENXIO: no reader)"
		done
		assert_eq "$(python3 "$T/bin/fifo.py" "$f")" 0 "positive control: the host's open finds the reader"
		kill "$rpid"
		wait "$rpid" 2>/dev/null || true
	done
}

# "In new user, mount, pid, network, ipc, uts and cgroup namespaces": each of
# the jail's namespaces is another than the host's (nsfs inode numbers are
# unique machine-wide); the cgroup namespace is rooted at the jail's cgroup, so its path shows as "/".
test_every_namespace_is_the_jails_own() {
	probe_setup
	local kinds="user mnt pid net ipc uts cgroup" k host=()
	for k in $kinds; do host+=("$k=$(readlink "/proc/self/ns/$k")"); done
	run_jail -q -D "$T/p" -- sh -c 'for k in '"$kinds"'; do echo "$k=$(readlink /proc/self/ns/$k)"; done
		cut -d: -f3 /proc/self/cgroup | sort -u'
	assert_eq "$rc" 0 "$err"
	assert_eq "$(grep -c '=' <<<"$out")" 7 "namespaces read inside: $out"
	for k in "${host[@]}"; do
		assert_contains "$k" ":["  # the host's own reading worked
		assert_not_contains "$out" "$k"
	done
	assert_eq "$(grep -v = <<<"$out")" "/" "the jail's cgroup paths"
}

# "fanotify is unavailable": a fanotify group watches a whole filesystem (the
# host's, under a bind) and counts against your per-user limit; the jail's
# user namespace allows none.  Positive control: the host makes one.
test_fanotify_unavailable() {
	write_syscalls_py
	[ "$(python3 "$T/bin/syscalls.py" fanotify_init)" = "fanotify_init 0" ] ||
		skip "the host's kernel gives an unprivileged user no fanotify group"
	syscall_answers fanotify_init
	assert_eq "$out" "fanotify_init $EMFILE" "fanotify_init inside"
}

# "Only fds 0, 1 and 2 reach the agent", in every network mode too: init makes
# the sockets that live in the jail's network namespace (the resolver's, the
# ruleset's netlink socket) and hands them out; none stays open for the agent.
test_only_stdio_in_every_network_mode() {
	probe_setup
	command -v pasta >/dev/null || command -v slirp4netns >/dev/null ||
		skip "no pasta or slirp4netns for a network mode"
	local mode modes=("--net allow --allow 192.0.2.1:443" "--net open")
	command -v pasta >/dev/null && modes+=("--publish $(free_port)")  # pasta only
	for mode in "${modes[@]}"; do
		# shellcheck disable=SC2086 # the mode is words
		jp $mode -- fds
		assert_eq "$rc" 0 "$mode: $err"
		assert_eq "$(printf '%s\n' "$out" | tr '\n' ' ')" "0 1 2 " "fds inside with $mode"
	done
}

# A host socket below a --ro or --rw bind would be live (a read-only mount
# does not stop a connect): jail covers it, and says so at start, naming the
# socket, for the bind by its own name or through a link; --cow shows the
# directory with the socket dead (the overlay's own inode) and says nothing.
test_live_socket_in_a_bind_is_covered_and_named_at_start() {
	probe_setup
	mkdir -p "$T/gnupg"
	ln -s gnupg "$T/gnupg-link"
	local log="$T/agent.log" lpid
	"$T/host/probe" listen "$T/gnupg/S.gpg-agent" 600 >"$log" &
	lpid=$!
	wait_for grep -q listening "$log"
	for bind in "--ro $T/gnupg" "--rw $T/gnupg" "--ro $T"; do
		# shellcheck disable=SC2086 # the option and its path are words
		run_jail $bind --ro "$T/bin" -D "$T/p" -- "$P" connect-unix "$T/gnupg/S.gpg-agent"
		host_safe
		assert_eq "$rc" "$EACCES" "connect under $bind (the cover)"
		assert_contains "$err" "jail: covered $T/gnupg/S.gpg-agent, a live socket of the host's that ${bind% *} ${bind#* } shows"
		assert_eq "$(grep -c 'live socket' <<<"$err")" 1 "lines for $bind"
	done
	# a link bound is copied, not followed: it leads to nothing in the jail
	run_jail --ro "$T/gnupg-link" --ro "$T/bin" -D "$T/p" -- "$P" connect-unix \
		"$T/gnupg-link/S.gpg-agent"
	assert_eq "$rc" "$ENOENT" "connect through a bound link"
	assert_not_contains "$err" "live socket"
	assert_eq "$(grep -c connection "$log")" 0 "connections the host's agent took"
	run_jail --cow "$T/gnupg" --ro "$T/bin" -D "$T/p" -- "$P" connect-unix "$T/gnupg/S.gpg-agent"
	assert_eq "$rc" "$ECONNREFUSED" "the socket through --cow"
	assert_not_contains "$err" "live socket"
	kill "$lpid"
	wait "$lpid" 2>/dev/null || true
	# nothing listens: nothing to say (the socket file is left, dead)
	run_jail --ro "$T/gnupg" --ro "$T/bin" -D "$T/p" -- "$P" connect-unix "$T/gnupg/S.gpg-agent"
	assert_not_contains "$err" "live socket"
	# what the jail covers anyway is not named: a socket in jail's state dir
	# (another jail's exec.sock) below a bind that holds it; one beside it is
	mkdir -p "$XDG_STATE_HOME/jail"
	"$T/host/probe" listen "$XDG_STATE_HOME/jail/exec.sock" 600 >"$log" &
	lpid=$!
	wait_for grep -q listening "$log"
	run_jail --ro "$XDG_STATE_HOME" --ro "$T/bin" -D "$T/p" -- "$P" connect-unix \
		"$XDG_STATE_HOME/jail/exec.sock"
	assert_eq "$rc" "$ENOENT" "the state dir's socket, covered"
	assert_not_contains "$err" "live socket"
	"$T/host/probe" listen "$XDG_STATE_HOME/beside.sock" 600 >"$T/beside.log" &
	local bpid=$!
	wait_for grep -q listening "$T/beside.log"
	run_jail --ro "$XDG_STATE_HOME" --ro "$T/bin" -D "$T/p" -- "$P" connect-unix \
		"$XDG_STATE_HOME/beside.sock"
	assert_eq "$rc" "$EACCES" "the socket beside the state dir (the cover)"
	assert_contains "$err" "jail: covered $XDG_STATE_HOME/beside.sock,"
	kill "$lpid" "$bpid"
	wait "$lpid" "$bpid" 2>/dev/null || true
}

# "Under an init that ... forwards SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH,
# SIGUSR1 and SIGUSR2": each one sent to jail reaches the command (which
# handles it: no signal kills it on the way), in turn, and the command's own
# exit status comes back.  Signals a background caller ignored (INT, QUIT) are
# set back to their defaults for jail first, as an interactive shell has them.
test_every_forwarded_signal_reaches_the_command() {
	probe_setup
	cat >"$T/bin/sigs.py" <<'PY'
import signal, sys
names = sys.argv[1:]
got = []
def on(n, frame):
    got.append(n)
    print("got-" + signal.Signals(n).name, flush=True)
for name in names:
    signal.signal(getattr(signal, name), on)
print("ready", flush=True)
while len(got) < len(names):
    signal.pause()
sys.exit(3)
PY
	local sigs="SIGINT SIGTERM SIGHUP SIGQUIT SIGWINCH SIGUSR1 SIGUSR2" s jpid
	# shellcheck disable=SC2086 # the signal names are words
	env --default-signal=SIGINT,SIGQUIT "$JAIL" -q --ro "$T/bin" -D "$T/p" -- \
		python3 "$T/bin/sigs.py" $sigs >"$T/sigs.out" 2>&1 </dev/null &
	jpid=$!
	wait_for grep -q ready "$T/sigs.out"
	for s in $sigs; do
		kill -s "${s#SIG}" "$jpid"
		wait_for grep -q "got-$s" "$T/sigs.out"
	done
	set +e
	wait "$jpid"
	rc=$?
	set -e
	assert_eq "$rc" 3 "the command's exit status: $(cat "$T/sigs.out")"
	assert_eq "$(grep -c '^got-' "$T/sigs.out")" 7 "signals the command got"
}
