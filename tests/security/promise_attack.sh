# The escape suite: other ways to what the README promises stays out (threat 1
# in DESIGN.md): host secrets that reach the jail through a layer the other
# files do not try (procfs, the /etc pieces).
source "$TESTS/security/helpers.bash"

# key_add DESC: a "user" key of that description in the user keyring (the one
# every process of the user may view), its id printed.
key_add() {
	python3 - "$1" <<'EOF'
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
r = libc.syscall(248, b"user", sys.argv[1].encode(), b"canary-key-value", 16, -4)  # add_key, @u
sys.exit(1) if r < 0 else print(r)
EOF
}
key_drop() { # ID: invalidate it (KEYCTL_INVALIDATE)
	python3 -c 'import ctypes, sys; ctypes.CDLL(None).syscall(250, 21, int(sys.argv[1]))' "$1" || true
}

# /proc/keys lists every key its reader may view, and a key's owner may view
# it from any user namespace: the jail would list the host's keys (the
# login's keyrings, a Kerberos cache, fscrypt keys) by description and size.
test_host_kernel_keys_not_listed() {
	command -v python3 >/dev/null || skip "no python3 to add a key"
	probe_setup
	desc="jail-canary-key-$$-$RANDOM"
	id=$(key_add "$desc") || skip "the kernel refuses add_key here"
	grep -q "$desc" /proc/keys || { key_drop "$id"; skip "this kernel does not list the key in /proc/keys"; }
	run_jail -q -D "$T/p" -- sh -c 'cat /proc/keys /proc/key-users; echo done'
	key_drop "$id"
	assert_eq "$rc" 0 "reading /proc/keys inside"
	assert_contains "$out" done
	assert_not_contains "$out" "$desc"
	assert_not_contains "$out" "$(id -u):"
	host_safe
}

# The CA store is a piece of /etc programs need; the host services' private
# keys beside it (/etc/ssl/private, group ssl-cert) are not, and a user in that
# group would read them inside.  The jail's directory there is not the host's.
test_etc_private_key_directories_not_the_hosts() {
	probe_setup
	dirs=()
	for d in /etc/ssl/private /etc/pki/tls/private /etc/pki/CA/private; do
		[ -d "$d" ] && dirs+=("$d")
	done
	[ ${#dirs[@]} -gt 0 ] || skip "the host has no /etc/ssl/private"
	for d in "${dirs[@]}"; do
		run_jail -q -D "$T/p" -- sh -c "stat -c '%d:%i' $d; ls -A $d | wc -l; ls /etc/ssl/certs | grep -c ."
		assert_eq "$rc" 0 "stat $d inside"
		lines=($out)
		assert_ne "${lines[0]}" "$(stat -c '%d:%i' "$d")" "$d inside is the host's"
		assert_eq "${lines[1]}" 0 "entries of $d inside"
		# positive control: the CA store beside it is there
		[ ! -d /etc/ssl/certs ] || [ "${lines[2]}" -gt 0 ] || fail "/etc/ssl/certs is empty inside"
	done
	host_safe
}

# A secret-shaped name in another case (`SERVER.KEY`, `.ENV`, `Id_Rsa`) holds
# the same secret, and is the same name where the project is also checked out
# (macOS, Windows): hidden as the lower-case one, in a project without git and
# below a shown ignored directory with hide_ignored = secrets.
test_secret_names_hidden_in_any_case() {
	probe_setup
	names=".ENV .Env.local SERVER.KEY cert.PEM Id_Rsa .NETRC prod.TFSTATE .AWS"
	mkdir -p "$T/ng/sub"
	for n in $names; do printf 'canary-%s\n' "$n" >"$T/ng/sub/$n"; done
	printf 'plain\n' >"$T/ng/sub/notes.txt"
	run_jail -q -D "$T/ng" -- sh -c 'ls -A sub; cat sub/* 2>/dev/null'
	assert_eq "$rc" 0 "listing the project without git"
	assert_contains "$out" notes.txt # positive control
	assert_not_contains "$out" canary-
	for n in $names; do assert_not_contains "$out" "$n"; done

	mkdir -p "$T/p/build"
	for n in $names; do printf 'canary-%s\n' "$n" >"$T/p/build/$n"; done
	BEFORE=$(tree_hash "$T/p") # the files just made are the host's
	run_jail -q --hide-ignored=secrets -D "$T/p" -- sh -c 'ls -A build; cat build/* 2>/dev/null'
	assert_eq "$rc" 0 "listing the shown ignored build/"
	assert_contains "$out" out.o # positive control: build/ is shown
	assert_not_contains "$out" canary-
	host_safe
}

# --copy names a file of the host's home; a fifo there (or a device, or a
# link, which a --rw bind above it would let the agent plant) held the start
# in an open no signal ends.  Now it is refused at once, in one line.
test_home_copy_refuses_what_is_not_a_regular_file() {
	probe_setup
	h="$T/hosthome"
	mkdir -p "$h/dot"
	mkfifo "$h/.fifo"
	printf 'dot\n' >"$h/dot/rc"
	ln -s dot/rc "$h/.linked"
	printf 'copied-%s\n' ok >"$h/.plain"
	for f in .fifo .linked; do
		set +e
		out=$(HOME="$h" timeout -k 5 60 "$JAIL" -q -D "$T/p" --copy "$h/$f" -- true 2>&1 </dev/null)
		rc=$?
		set -e
		assert_eq "$rc" 125 "exit status with --copy ~/$f"
		assert_eq "$(printf '%s\n' "$out" | grep -c .)" 1 "error lines with --copy ~/$f"
		assert_contains "$out" "home copy"
	done
	HOME="$h" run_jail -q -D "$T/p" --copy "$h/.plain" -- cat "$h/.plain"
	assert_eq "$out" copied-ok "positive control: a regular file is copied in"
	no_stray
}

# -D of your home is refused: it holds the secrets the jail keeps out.  With
# $HOME set elsewhere (HOME=/tmp/x in a wrapper or a CI step) the home of
# your passwd entry still holds ~/.ssh, and is refused the same way.
test_passwd_home_refused_as_project_whatever_home_says() {
	probe_setup
	real=$(getent passwd "$(id -u)" | cut -d: -f6)
	[ -d "$real" ] && [ "$real" != / ] || skip "no home directory in the passwd entry"
	mkdir -p "$T/otherhome"
	HOME="$T/otherhome" expect_fail125 -q -D "$real" -- true
	assert_contains "$err" "your home directory"
	# positive control: a project beside it still runs with that HOME
	HOME="$T/otherhome" run_jail -q -D "$T/p" -- true
	assert_eq "$rc" 0 "a project run with HOME elsewhere"
}
