# The escape suite, second review of a round's fixes and start-up changes:
# each attacked again by another spelling, path, timing or layer.  A test of
# a hole fails on the build before its fix; the others keep what held (and
# fail if it stops holding).
source "$TESTS/security/helpers.bash"

# The one bounded tmpfs (/tmp, /dev/shm, /run, the home, --tmpfs) bounded its
# bytes by --memory but not its files: the kernel's default allows one inode
# per two pages of RAM, each about 1 KiB of kernel memory its size does not
# count, so a --memory 64M jail held 1.3 GiB of slab in a million empty files
# (memory no process owns, as the bytes were).  With --memory 64M it now
# takes 16,384 files: 20,000 empty ones do not fit.
test_scratch_tmpfs_files_bounded_by_memory() {
	probe_setup
	run_jail -q --memory 64M -D "$T/p" -- sh -c \
		'cd /tmp && seq -f f%.0f 1 20000 | xargs touch 2>/dev/null; ls | wc -l'
	local n=${out##*$'\n'}
	[ -n "$n" ] && [ "$n" -gt 1000 ] || fail "no files made in /tmp: $out $err"
	[ "$n" -lt 20000 ] || fail "20,000 files fit in /tmp of a --memory 64M jail"
	run_jail -q --memory 64M -D "$T/p" -- sh -c 'mkdir /dev/shm/a && ls /dev/shm'
	assert_eq "$rc" 0 "a file in /dev/shm: $err"
	host_safe
}

# /dev is a tmpfs of its own (64 KiB), writable by the jail's user, and its
# size bounded its bytes, not its files: empty files there took inodes by
# the kernel's default (3 million on this machine), gigabytes of kernel
# memory, --memory or not.  It takes 128 now, twenty of them its own.
test_dev_tmpfs_files_bounded() {
	probe_setup
	run_jail -q -D "$T/p" -- sh -c \
		'cd /dev && seq -f f%.0f 1 2000 | xargs touch 2>/dev/null; ls /dev | wc -l; echo x >/dev/null && echo null-ok'
	assert_eq "$rc" 0 "$err"
	local n=${out%%$'\n'*}
	[ "$n" -lt 2000 ] || fail "2,000 files fit in the jail's /dev"
	assert_contains "$out" null-ok
	host_safe
}

# SysV shared memory segments over 256 KiB were refused (memory no process
# owns, which killing the agent does not give back); the other two kinds of
# SysV IPC are the same memory, with limits as high in a fresh namespace: a
# --memory 64M jail held 2 GiB in 1,000 sets of 32,000 semaphores (64 GiB
# in reach), and 130 MiB in 100 queues of empty messages (40 GiB in reach).
# Sets of at most 32 semaphores work (PostgreSQL's hold 17); message queues
# are refused; both come back with --allow-syscall.
test_sysv_semaphores_and_message_queues_bounded() {
	command -v python3 >/dev/null || skip "no python3"
	probe_setup
	local py='
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def say(what, r):
    print(what, "ok" if r >= 0 else os.strerror(ctypes.get_errno()))
for n in (17, 32, 33, 32000):
    i = libc.semget(0, n, 0o1600)  # IPC_PRIVATE
    say("sem%d" % n, i)
    if i >= 0:
        libc.semctl(i, 0, 0)  # IPC_RMID
i = libc.msgget(0, 0o1600)
say("msg", i)
if i >= 0:
    libc.msgctl(i, 0, None)
'
	run_jail -q --memory 64M -D "$T/p" -- python3 -c "$py"
	assert_eq "$rc" 0 "$err"
	assert_contains "$out" "sem17 ok" # positive control
	assert_contains "$out" "sem32 ok"
	assert_contains "$out" "sem33 Invalid argument"
	assert_contains "$out" "sem32000 Invalid argument"
	assert_contains "$out" "msg Operation not permitted"
	run_jail -q --allow-syscall semget --allow-syscall msgget -D "$T/p" -- python3 -c "$py"
	assert_contains "$out" "sem32000 ok"
	assert_contains "$out" "msg ok"
	host_safe
}

# The broker put the placeholder back wherever an upstream quoted the real
# key, "however the bytes are split" into reads; but a chunked body splits
# them with bytes of its own: a chunk that ends inside the key
# ("...REALk\r\n10;n=48\r\ney0123...") showed the scrubber no whole value, and
# curl, which drops the framing, printed the key.  The agent picks where the
# echo falls by what it sends; the upstream's chunks end where its buffers
# do.  The body's data is now scrubbed without the framing and leaves in
# chunks of the broker's own; a HEAD's chunked head (no body) still ends.
test_broker_chunked_echo_gets_the_placeholder() {
	source "$TESTS/integration/broker_world.bash"
	broker_world
	run_jail "${B[@]}" -- sh -c '
		for n in 1 7 16 4096; do
			curl -sS -m 20 -D - -H "x-api-key: $ANTHROPIC_API_KEY" \
				https://api.anthropic.com/echo-chunked/$n
		done
		curl -sS -m 20 -I -H "x-api-key: $ANTHROPIC_API_KEY" https://api.anthropic.com/echo-chunked/8
		printf "%s\n" "$ANTHROPIC_API_KEY"'
	assert_eq "$rc" 0 "curl through the broker (stderr: $err)"
	assert_contains "$(cat "$T/up.log")" "$REAL_KEY" "the upstream got the key"
	assert_not_contains "$out" "REALkey0123456789"
	local ph
	ph=$(tail -n 1 <<<"$out")
	assert_eq "$(grep -c "^x-api-key: $ph\$" <<<"$out")" 4 "echoes with the placeholder"
	assert_eq "$(grep -c "^HTTP/1.1 400" <<<"$out")" 5 "answers"
}

# A later layer decides how one path is bound (--ro X over a policy's rw = X);
# but a path below another was bound by list, the --ro paths first, and a
# --rw dir bound after them hid them: --rw d --ro d/keep left keep writable.
# A directory is now bound before what lies in it.  And a directory between
# the --rw dir and a --ro path could be renamed (mv d/a d/z): the next start
# found no d/a/b to bind (a policy's ro path is optional), d/z/b was writable
# under d, and the agent moved it back when done.  Those directories are
# mount points now, which cannot be moved or removed.
test_ro_below_rw_stays_read_only() {
	probe_setup
	mkdir -p "$T/d/keep" "$T/d/a/b"
	echo orig >"$T/d/keep/f"
	echo orig >"$T/d/a/b/f"
	echo orig >"$T/d/file"
	run_jail -q --rw "$T/d" --ro "$T/d/keep" --ro "$T/d/a/b" --ro "$T/d/file" -D "$T/p" -- sh -c "
		echo x >>'$T/d/keep/f' && echo wrote-keep
		echo x >>'$T/d/a/b/f' && echo wrote-b
		echo x >>'$T/d/file' && echo wrote-file
		echo new >'$T/d/a/new' && echo wrote-rw
		mv '$T/d/a' '$T/d/z' && echo moved
		true"
	assert_eq "$rc" 0 "$err"
	assert_eq "$out" wrote-rw "what the jail could do"
	assert_eq "$(cat "$T/d/keep/f" "$T/d/a/b/f" "$T/d/file")" "$(printf 'orig\norig\norig')"
	assert_eq "$(cat "$T/d/a/new")" new
	host_safe
}

# The project's overlay is volatile (no syncs; the jail's fsync returns at
# once), and a run that changed the session syncs it at its end: "changed"
# as the upper dir's stamp says (runstamp.h).  The stamp did not look into a
# directory it could not read (mode 311: the agent's files in it stay
# usable), so a run that rewrote a file there looked unchanged: no export,
# no sync, and a crash of the host before the kernel wrote it back lost it.
# Such a walk is partial now: the run counts as changed.
test_change_in_an_unreadable_dir_is_synced() {
	probe_setup
	run_jail -D "$T/p" -- sh -c 'mkdir d && echo one >d/f && chmod 311 d'
	assert_eq "$rc" 0 "$err"
	if command -v strace >/dev/null; then
		strace -f -qq -e trace=syncfs -o "$T/st" "$JAIL" -D "$T/p" -- sh -c 'echo two >d/f' \
			>/dev/null 2>"$T/run2.err" </dev/null
		assert_contains "$(cat "$T/st")" "syncfs(" "the run's change synced"
	else
		"$JAIL" -D "$T/p" -- sh -c 'echo two >d/f' >/dev/null 2>"$T/run2.err" </dev/null
	fi
	assert_contains "$(cat "$T/run2.err")" "cannot read it" "the run's summary"
	run_jail -q -D "$T/p" -- cat d/f
	assert_eq "$out" two
	host_safe
}

# The /etc pieces programs need bring /etc/ssl and /etc/pki, beside the
# services' private keys (readable on the host to a user in their group);
# README promised /etc/pki/*/private empty, but only tls and CA were covered:
# /etc/pki/nginx/private, dovecot's, libvirt's stayed readable.  Every
# /etc/pki/NAME/private is covered now.  (This host's own keys: the test
# skips where none is readable; checked by hand with /etc/pki/nginx/private.)
test_etc_private_keys_covered() {
	probe_setup
	local f found=
	for f in /etc/ssl/private/* /etc/pki/*/private/*; do
		[ -f "$f" ] && [ -r "$f" ] && found="$found $f"
	done
	[ -n "$found" ] || skip "no private key here this user can read"
	run_jail -q -D "$T/p" -- sh -c 'for f; do cat "$f" >/dev/null 2>&1 && echo "read $f"; done; true' \
		sh $found
	assert_eq "$rc" 0 "$err"
	assert_eq "$out" "" "host private keys read in the jail"
}
