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
