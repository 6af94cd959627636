# The escape suite: live host sockets and FIFOs below a --ro or --rw bind.
# A read-only mount does not stop connect(2), sendto(2) or a FIFO's write:
# the kernel finds the host's socket by its inode, and the process behind it
# (gpg-agent, an ssh ControlMaster, Docker, tmux, syslog) acts with the
# user's rights outside every namespace.  Such a socket is reachable in the
# jail only when the user binds it itself; every other one the host has below
# a bind at start is covered, and jail says so in one line.  Each test of a
# hole fails on the build before its fix.
source "$TESTS/security/helpers.bash"

trap stop_hosts EXIT

# host_listen PATH: a stream socket of the host's listens at PATH; its
# connections are counted in PATH.log.
host_listen() {
	probe_setup
	: >"$1.log"
	"$T/host/probe" listen "$1" 100 >"$1.log" &
	HOSTS+=($!)
	wait_for grep -q listening "$1.log"
}

# host_dgram PATH: a datagram socket of the host's bound at PATH (a
# syslog-style server); its datagrams are counted in PATH.log.
host_dgram() {
	probe_setup
	: >"$1.log"
	"$T/host/probe" dgram-bind "$1" 100 >"$1.log" &
	HOSTS+=($!)
	wait_for grep -q bound "$1.log"
}

# jb [JAIL OPTIONS...] -- CASE [ARGS...]: as jp, with jail's start lines.
jb() {
	probe_setup
	local opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	run_jail "${opts[@]}" --ro "$T/bin" -D "$T/p" -- "$T/bin/probe" "$@"
	host_safe
}

# connections PATH: how many the host socket at PATH took.
connections() { grep -c -e connection -e datagram "$1.log" || true; }
# took PATH N: the host socket at PATH took N (for wait_for: it polls).
took() { [ "$(connections "$1")" = "$2" ]; }

# The gpg-agent shape: ~/.gnupg/S.gpg-agent below a --ro, a --rw, a bind of
# its parent: the agent's connect fails, the host's agent sees nothing, and
# the start says which socket is covered and how to let it in, in one line.
test_a_live_socket_below_a_bind_is_covered_and_named_at_start() {
	mkdir -p "$T/gnupg"
	local s="$T/gnupg/S.gpg-agent"
	host_listen "$s"
	for bind in "--ro $T/gnupg" "--rw $T/gnupg" "--ro $T"; do
		# shellcheck disable=SC2086 # the option and its path are words
		jb $bind -- connect-unix "$s"
		assert_eq "$rc" "$EACCES" "connect to the host's socket under $bind (the cover)"
		assert_eq "$(connections "$s")" 0 "connections the host's agent took ($bind)"
		local said="jail: covered $s, a live socket of the host's that"
		assert_contains "$err" "$said ${bind% *} ${bind#* } shows"
		assert_contains "$err" "; --rw $s lets it in"
		assert_eq "$(grep -c 'live socket' <<<"$err")" 1 "lines about it ($bind)"
	done
}

# A socket the user binds itself is the user letting it in: shown, alone
# or below a bind of its directory, and nothing is said of it.
test_a_socket_the_user_binds_itself_is_shown() {
	mkdir -p "$T/gnupg"
	local s="$T/gnupg/S.gpg-agent"
	host_listen "$s"
	jb --rw "$s" -- connect-unix "$s"
	assert_eq "$rc" 0 "connect through --rw of the socket"
	jb --ro "$T/gnupg" --rw "$s" -- connect-unix "$s"
	assert_eq "$rc" 0 "connect through --rw of the socket below --ro of its dir"
	assert_not_contains "$err" "live socket"
	wait_for took "$s" 2
}

# A datagram socket bound on the host (journald's, a syslog's) takes
# anyone's sendto, a read-only mount or not; one that others connected to
# is "established" for the kernel, and takes anyone's still.
test_a_bound_datagram_socket_is_covered() {
	mkdir -p "$T/log"
	local s="$T/log/dev-log"
	host_dgram "$s"
	python3 -c 'import socket, sys, time
c = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); c.connect(sys.argv[1])
print("connected", flush=True); time.sleep(100)' "$s" >"$T/client.log" &
	HOSTS+=($!)
	wait_for grep -q connected "$T/client.log"
	jb --ro "$T/log" -- sendto-unix "$s"
	assert_eq "$rc" "$EACCES" "sendto the host's datagram socket (the cover)"
	assert_contains "$err" "jail: covered $s, a live socket of the host's that --ro $T/log shows"
	jb --ro "$T/log" --rw "$s" -- sendto-unix "$s"
	assert_eq "$rc" 0 "sendto through a bind of the socket itself"
	wait_for took "$s" 1
}

# Every way to the covered socket leads to the cover: a bind nested in
# another that shows it too, a link in the bind to it, the jail's
# /proc/self/root, a directory fd's /proc/self/fd link, a bind named through
# a symlinked parent, a socket the host named through a link to its
# directory.
test_every_path_to_a_covered_socket_is_covered() {
	mkdir -p "$T/gnupg" "$T/d"
	ln -s gnupg "$T/gnupg-link"
	ln -s ../gnupg/S.gpg-agent "$T/d/agent-link"
	local s="$T/gnupg/S.gpg-agent"
	host_listen "$T/gnupg-link/S.gpg-agent"
	for way in "$s" "$T/gnupg-link/S.gpg-agent" "$T/d/agent-link" "/proc/self/root$s"; do
		jb --ro "$T" --rw "$T/gnupg" -- connect-unix "$way"
		assert_eq "$rc" "$EACCES" "connect by $way (the cover)"
	done
	assert_contains "$err" "jail: covered $s, a live socket of the host's that --ro $T shows"
	# through a directory fd's magic link: the name below it is the cover
	run_jail --ro "$T" --ro "$T/bin" -D "$T/p" -- sh -c \
		'exec 3<"$1" && exec "$2" connect-unix /proc/self/fd/3/S.gpg-agent' _ "$T/gnupg" "$P"
	assert_eq "$rc" "$EACCES" "connect by /proc/self/fd/3 (the cover)"
	ln -s "$T" "$T/up"
	jb --ro "$T/up/gnupg" -- connect-unix "$T/up/gnupg/S.gpg-agent"
	assert_eq "$rc" "$EACCES" "connect through a bind named through a link (the cover)"
	assert_contains "$err" "jail: covered $T/up/gnupg/S.gpg-agent,"
	assert_eq "$(connections "$T/gnupg-link/S.gpg-agent")" 0 "connections the agent took"
}

# ssh's ControlMaster binds a temporary name, links its ControlPath
# (~/.ssh/cm-*) to it and unlinks the first: the kernel's name for the socket
# is gone, the live one is another; a second name beside a socket's own is
# as live.  Both are found by the socket's inode in its directory.
test_a_socket_under_another_name_in_its_directory_is_covered() {
	mkdir -p "$T/ssh" "$T/gnupg"
	host_listen "$T/ssh/cm-git@host:22.tmpXXXX"
	ln "$T/ssh/cm-git@host:22.tmpXXXX" "$T/ssh/cm-git@host:22"
	rm "$T/ssh/cm-git@host:22.tmpXXXX"
	host_listen "$T/gnupg/S.gpg-agent"
	ln "$T/gnupg/S.gpg-agent" "$T/gnupg/second"
	for way in "$T/ssh/cm-git@host:22" "$T/gnupg/S.gpg-agent" "$T/gnupg/second"; do
		jb --ro "$T/ssh" --ro "$T/gnupg" -- connect-unix "$way"
		assert_eq "$rc" "$EACCES" "connect by $way (the cover)"
	done
	assert_contains "$err" " (and 2 more), a live socket of the host's that --ro $T/"
	assert_eq "$(connections "$T/ssh/cm-git@host:22.tmpXXXX")" 0 "connections ssh took"
	assert_eq "$(connections "$T/gnupg/S.gpg-agent")" 0 "connections the agent took"
}

# Below a bind inside the project (walked for secret-shaped names anyway)
# every socket and named FIFO is covered, whatever its name: a hard link to
# a live socket's inode, a FIFO a host process reads.
test_sockets_and_fifos_below_a_bind_in_the_project_are_covered() {
	probe_setup
	printf 'run/\n' >>"$T/p/.gitignore"
	git -C "$T/p" commit -q -am 'ignore run/'
	mkdir -p "$T/p/run" "$T/elsewhere"
	host_listen "$T/elsewhere/app.sock"
	ln "$T/elsewhere/app.sock" "$T/p/run/other-name"
	mkfifo "$T/p/run/fifo"
	BEFORE=$(tree_hash "$T/p")
	exec 3<>"$T/p/run/fifo" # a host reader: a write would reach it
	jb --rw "$T/p/run" -- connect-unix "$T/p/run/other-name"
	assert_eq "$rc" "$EACCES" "connect by a hard link in a bind in the project"
	jb --rw "$T/p/run" -- write-fifo "$T/p/run/fifo"
	assert_ne "$rc" 0 "write to the host's FIFO in a bind in the project"
	assert_eq "$(timeout 1 dd bs=64 count=1 iflag=nonblock <&3 2>/dev/null | grep -c escaped)" 0 \
		"lines the host's FIFO reader got"
	exec 3<&-
	assert_eq "$(connections "$T/elsewhere/app.sock")" 0 "connections the host's socket took"
}

# A socket in the project below a bind that holds the project: the project's
# own view shows it there (its own inode: dead), nothing to cover or say.
test_a_socket_in_the_project_is_the_views() {
	probe_setup
	host_listen "$T/p/app.sock"
	BEFORE=$(tree_hash "$T/p")
	jb --ro "$T" -- connect-unix "$T/p/app.sock"
	assert_ne "$rc" 0 "connect to the project's socket"
	assert_not_contains "$err" "live socket"
	assert_eq "$(connections "$T/p/app.sock")" 0 "connections it took"
}

# A socket whose directory the jail hides (a --tmpfs over a directory above
# it, a secret-named directory covered below a bind in the project) has
# nothing to cover: the start goes on, the socket is not there.
test_a_socket_the_jail_hides_is_left_alone() {
	mkdir -p "$T/outer/gnupg"
	host_listen "$T/outer/gnupg/S.gpg-agent"
	jb --ro "$T" --tmpfs "$T/outer" -- connect-unix "$T/outer/gnupg/S.gpg-agent"
	assert_eq "$rc" "$ENOENT" "connect to a socket below a --tmpfs"
	jb --ro "$T" --tmpfs "$T/outer/gnupg" -- connect-unix "$T/outer/gnupg/S.gpg-agent"
	assert_eq "$rc" "$ENOENT" "connect to a socket in a --tmpfs dir"
	assert_not_contains "$err" "live socket"
	assert_eq "$(connections "$T/outer/gnupg/S.gpg-agent")" 0 "connections it took"
	probe_setup
	printf 'run/\n' >>"$T/p/.gitignore"
	git -C "$T/p" commit -q -am 'ignore run/'
	mkdir -p "$T/p/run/secrets/d"
	host_listen "$T/p/run/secrets/d/app.sock"
	BEFORE=$(tree_hash "$T/p")
	jb --rw "$T/p/run" -- connect-unix "$T/p/run/secrets/d/app.sock"
	assert_eq "$rc" "$ENOENT" "connect to a socket in a covered secret-named directory"
	assert_eq "$(connections "$T/p/run/secrets/d/app.sock")" 0 "connections it took"
}

# An abstract socket of the host lives in the host's network namespace: the
# jail's is its own (no bind is needed to reach one, and none can).
test_an_abstract_socket_of_the_host_is_not_reachable() {
	host_listen "@jail-bind-sockets-$$"
	jb -- connect-abstract "jail-bind-sockets-$$"
	assert_eq "$rc" "$ECONNREFUSED" "connect to the host's abstract socket"
	assert_eq "$(connections "@jail-bind-sockets-$$")" 0 "connections it took"
}

# Nothing to cover, nothing said: no bind, a dead socket file (its listener
# gone) below a bind.
test_nothing_live_says_nothing() {
	mkdir -p "$T/gnupg"
	host_listen "$T/gnupg/S.gpg-agent"
	jb -- connect-unix "$T/gnupg/S.gpg-agent"
	assert_not_contains "$err" "live socket"
	stop_hosts
	jb --ro "$T/gnupg" -- connect-unix "$T/gnupg/S.gpg-agent"
	assert_eq "$rc" "$ECONNREFUSED" "connect to a dead socket"
	assert_not_contains "$err" "live socket"
}
