# The escape suite: syscalls and capabilities (threat 5 in DESIGN.md).
# Each refused syscall is tried by the probe: the filter's answer (EPERM, or
# ENOSYS for clone3) is asserted; the positive control is the same call with
# --allow-syscall NAME, where the kernel's own, different answer shows the probe
# would notice the call going through, and a harmless call of the same kind
# that still works.  The host side is checked after every run (helpers.bash).
source "$TESTS/security/helpers.bash"

# case  filter's errno  kernel's errno when allowed  harmless case
# The kernel's answer: - when it is EPERM too (no positive control), A,B when
# kernels differ (io_uring_register checks the fd first on 6.1, the opcode on
# later ones), N/X.Y when kernels before X.Y answer EPERM (open_by_handle_at
# checks CAP_DAC_READ_SEARCH first before 6.9).  A kernel or sysctl not in the
# table (io_uring_disabled, say) may answer otherwise: then the same call on
# the host, outside any jail, is the reference (see syscall_case).
syscall_table='
keyctl              1  95  getpid
request_key         1  126 getpid
add_key             1  -   getpid
bpf                 1  22  getpid
perf_event_open     1  14  getpid
userfaultfd         1  0   getpid
io_uring_setup      1  14  getpid
io_uring_enter      1  9   getpid
io_uring_register   1  22,9 getpid
kexec_load          1  -   getpid
kexec_file_load     1  -   getpid
init_module         1  -   getpid
finit_module        1  -   getpid
delete_module       1  -   getpid
mount               1  -   statfs
umount2             1  -   statfs
fsopen              1  -   statfs
fsconfig            1  22  statfs
fsmount             1  -   statfs
fspick              1  -   statfs
move_mount          1  -   statfs
open_tree           1  -   statfs
mount_setattr       1  22  statfs
pivot_root          1  -   getpid
chroot              1  -   getpid
setns               1  9   unshare_files
open_by_handle_at   1  14/6.9 getpid
acct                1  -   getpid
swapon              1  -   getpid
swapoff             1  -   getpid
reboot              1  -   getpid
quotactl            1  19  getpid
syslog              1  -   getpid
unshare_user        1  0   unshare_files
unshare_net         1  -   unshare_files
unshare_ns          1  -   unshare_files
clone3              38 22  getpid
personality_norand  1  0   personality_default
personality_exec    1  0   personality_query
'

# The name --allow-syscall takes for a probe case.
syscall_name() {
	case $1 in
	unshare_*) echo unshare ;;
	personality_*) echo personality ;;
	*) echo "$1" ;;
	esac
}

# kernel_before X.Y: is the running kernel older than X.Y?
kernel_before() {
	local have want=$1
	have=$(uname -r | grep -oE '^[0-9]+\.[0-9]+')
	[ "$(printf '%s\n%s\n' "$have" "$want" | sort -V | head -n 1)" != "$want" ]
}

syscall_case() { # case filtered allowed harmless
	local allowed=$3
	if [[ "$allowed" == */* ]]; then
		kernel_before "${allowed#*/}" && allowed=- || allowed=${allowed%/*}
	fi
	jp -- sys "$1"
	assert_eq "$rc" "$2" "probe sys $1 in the jail (errno)"
	jp -- sys "$4"
	assert_eq "$rc" 0 "harmless $4 still works"
	[ "$allowed" != - ] || return 0
	jp --allow-syscall "$(syscall_name "$1")" -- sys "$1"
	[[ ",$allowed," != *",$rc,"* ]] || return 0
	# not a kernel of the table's: this host's own answer, outside any jail
	local host
	set +e; hp sys "$1" >/dev/null 2>&1; host=$?; set -e
	[ "$rc" != "$host" ] || [ "$host" != "$2" ] ||
		skip "this host refuses $1 outside any jail too, with the filter's own errno $host: no positive control here"
	[ "$rc" = "$host" ] ||
		fail "probe sys $1 allowed back (the kernel's answer): expected $allowed or the host's $host, got $rc"
}

while read -r name filt allowed harmless; do
	[ -n "$name" ] || continue
	eval "test_refused_$name() { syscall_case $name $filt $allowed $harmless; }"
done <<<"$syscall_table"

test_clone_newuser_refused_plain_clone_works() {
	jp -- clone 0x10000000
	assert_eq "$rc" "$EPERM" "clone(CLONE_NEWUSER)"
	jp -- clone 0x40000000
	assert_eq "$rc" "$EPERM" "clone(CLONE_NEWNET)"
	jp -- clone 0
	assert_eq "$rc" 0 "plain clone (fork)"
	jp --allow-syscall clone -- clone 0x10000000
	assert_eq "$rc" 0 "clone(CLONE_NEWUSER) allowed back: the probe notices success"
}

# The flag and family rules are a hand-made BPF prefix (argfilter.c,
# sockfilter.c): every namespace flag alone and with upper bits, personality
# and socket families in the spellings a 32-bit compare could miss, and the
# harmless values beside them.
test_flag_rules_in_every_spelling() {
	local f
	for f in 0x10000000 0x20000 0x20000000 0x40000000 0x8000000 0x4000000 0x2000000 0x80 \
		0x140000000 0xffffffff00020000; do
		jp -- unshare $f
		assert_eq "$rc" "$EPERM" "unshare $f"
	done
	for f in 0x20000 0x20000000 0x8000000 0x4000000 0x2000000 0x110000000; do
		jp -- clone $f
		assert_eq "$rc" "$EPERM" "clone $f"
	done
	jp -- unshare 0x400
	assert_eq "$rc" 0 "unshare(CLONE_FILES)"
	for f in 8 0x100000000 0x1ffffffff 0x0400000 0xfffffffe; do
		jp -- personality $f
		assert_eq "$rc" "$EPERM" "personality $f"
	done
	for f in 0 0xffffffff; do
		jp -- personality $f
		assert_eq "$rc" 0 "personality $f"
	done
	jp --allow-syscall personality -- personality 8
	assert_eq "$rc" 0 "personality allowed back: the kernel's answer"
	jp --allow-syscall unshare -- unshare 0x10000000
	assert_eq "$rc" 0 "unshare allowed back: the kernel's answer"
	for f in "0 1 0" "3 2 0" "0x100000010 2 0" "16 2 0x100000000" "0xffffffff 1 0"; do
		jp -- socket $f
		assert_eq "$rc" "$EPERM" "socket $f"
	done
	jp -- socketpair 38 5 0
	assert_eq "$rc" "$EPERM" "socketpair AF_ALG"
	jp -- socketpair 1 1 0
	assert_eq "$rc" 0 "socketpair AF_UNIX"
}

test_nested_user_namespace_with_unshare_tool() {
	probe_setup
	run_jail -q -D "$T/p" -- sh -c 'unshare -U -r id -u; echo "rc=$?"'
	assert_contains "$out" "rc=1"
	assert_not_contains "$out" "rc=0"
	run_jail -q --allow-syscall unshare -D "$T/p" -- sh -c 'unshare -U -r id -u'
	assert_eq "$out" 0 "positive control: nested namespace when allowed back"
	host_safe
}

test_capabilities_all_zero_nnp_seccomp() {
	jp -- status
	assert_eq "$rc" 0
	for set in CapInh CapPrm CapEff CapBnd CapAmb; do
		assert_contains "$out" "$set:	0000000000000000"
	done
	assert_contains "$out" "NoNewPrivs:	1"
	assert_contains "$out" "Seccomp:	2"
	# positive control: the host's own probe shows a non-empty bounding set
	assert_not_contains "$(hp status)" "CapBnd:	0000000000000000"
}

test_setuid_binary_gains_nothing() {
	probe_setup
	su=$(command -v su || true)
	# the premise is the host's: a setuid-root program to try
	[ -n "$su" ] && [ -u "$su" ] || skip "no setuid su on this host to try"
	run_jail -q -D "$T/p" -- sh -c "ls -l $su; $su -c 'id -u' root </dev/null; echo rc=\$?"
	assert_contains "$out" "rwsr"
	assert_not_contains "$out" "$(printf '\n0\n')"
	assert_contains "$out" "rc=1"
	host_safe
}

# A kernel without the i386 entry (no IA32 emulation, ia32_emulation=0) faults
# int 0x80 before seccomp sees it (SIGSEGV, 139): nothing to test there.  Where
# the host serves it, the jail must kill it: let through, it would exit 0.
test_foreign_abi_i386_killed() {
	local host
	set +e; hp int80; host=$?; set -e
	[ "$host" != 139 ] || skip "this kernel does not serve int 0x80 (SIGSEGV on the host, no jail)"
	assert_eq "$host" 0 "positive control: int 0x80 (i386 getpid) works on the host"
	jp -- int80
	assert_eq "$rc" 159 "int 0x80 (i386 getpid): killed by SIGSYS"
	jp -- sys getpid
	assert_eq "$rc" 0 "positive control: native getpid"
}

test_foreign_abi_x32_killed() {
	jp -- x32
	assert_eq "$rc" 159 "x32 getpid: killed by SIGSYS"
}

test_socket_families() {
	jp -- socket 17 3 0
	assert_eq "$rc" "$EPERM" "AF_PACKET"
	jp -- socket 38 5 0
	assert_eq "$rc" "$EPERM" "AF_ALG"
	jp --allow-syscall socket -- socket 38 5 0
	assert_ne "$rc" "$EPERM" "AF_ALG allowed back: the kernel's answer"
	jp -- socket 40 1 0
	assert_eq "$rc" "$EPERM" "AF_VSOCK"
	jp -- socket 0x100000001 1 0
	assert_eq "$rc" "$EPERM" "AF_UNIX with high bits"
	jp -- socket 16 2 9
	assert_eq "$rc" "$EPERM" "netlink audit"
	jp -- socket 16 2 15
	assert_eq "$rc" "$EPERM" "netlink uevent"
	jp --allow-syscall socket -- socket 16 2 9
	assert_eq "$rc" 0 "netlink audit allowed back"
	for ok in "1 1 0" "2 2 0" "10 1 0" "16 2 0"; do
		jp -- socket $ok
		assert_eq "$rc" 0 "socket $ok (unix, inet, inet6, netlink route)"
	done
}

# Internet sockets reach protocol modules the kernel loads on demand for
# anyone (SCTP, L2TP, DCCP; UDP-Lite is built in): only TCP, UDP, ICMP and
# MPTCP are made, by type and by protocol, in every spelling.
test_inet_protocols_beyond_tcp_udp_refused() {
	local IPPROTO_UDPLITE=136
	# positive control: UDP-Lite is there to be had where the kernel has it
	jp --allow-syscall socket -- socket 2 2 $IPPROTO_UDPLITE
	local have_udplite=$rc
	for bad in "2 2 $IPPROTO_UDPLITE" "10 2 $IPPROTO_UDPLITE" "2 1 132" "10 1 132" \
		"2 5 0" "2 5 132" "2 6 0" "2 6 33" "2 2 115" "2 4 0" \
		"2 2 0x100000088" "0x100000002 2 136" "2 0x100000005 0"; do
		jp -- socket $bad
		assert_eq "$rc" "$EPERM" "socket $bad"
	done
	[ "$have_udplite" = 0 ] || echo "# note: no UDP-Lite in this kernel ($have_udplite): the control is moot"
	for ok in "2 1 0" "2 1 6" "2 2 17" "10 1 6" "10 2 0" "2 1 262" "2 0x80801 0"; do
		jp -- socket $ok
		assert_eq "$rc" 0 "socket $ok (TCP, UDP, MPTCP; flags in the type)"
	done
	jp -- socket 2 2 1
	assert_ne "$rc" "$EPERM" "ICMP ping sockets are the kernel's to refuse (ping_group_range)"
}

test_unknown_allow_syscall_refused_before_anything_runs() {
	probe_setup
	expect_fail125 --allow-syscall no_such_call -D "$T/p" -- sh -c 'echo ran > marker'
	assert_contains "$err" "no_such_call"
	assert_no_file "$(session_dir "$T/p")/upper/marker"
	host_safe
}

test_clone3_enosys_lets_threads_and_spawn_fall_back() {
	probe_setup
	run_jail -q -D "$T/p" -- python3 -c '
import threading, subprocess
done = []
ts = [threading.Thread(target=lambda: done.append(1)) for _ in range(8)]
[t.start() for t in ts]; [t.join() for t in ts]
print(len(done), subprocess.run(["echo", "spawned"], capture_output=True, text=True).stdout.strip())'
	assert_eq "$out" "8 spawned" "threads (pthread_create) and posix_spawn inside"
	host_safe
}
