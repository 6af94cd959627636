# helpers.bash — shared by the escape suite (tests/security/*.sh source it).
#
# jp [JAIL OPTIONS...] -- CASE [ARGS...]: run the probe in a jail on the
# project $T/p (a small git repository made on first use) and leave $out, $err
# and $rc as run_jail does.  The probe is static and reaches the jail through a
# read-only bind of $T/bin.  After every run the host side is checked: the
# project tree is byte-for-byte what it was, and no probe process is left.

probe_setup() {
	[ -d "$T/p" ] && return 0
	mkrepo "$T/p"
	mkdir -p "$T/bin" "$T/host"
	cp "$PROBE" "$T/bin/probe"
	cp "$PROBE" "$T/host/probe" # host-side canaries: not counted as strays
	P="$T/bin/probe"
	BEFORE=$(tree_hash "$T/p")
}

jp() {
	probe_setup
	local opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	run_jail -q "${opts[@]}" --ro "$T/bin" -D "$T/p" -- "$T/bin/probe" "$@"
	host_safe
}

# host_safe: the outcome seen from the host.
host_safe() {
	assert_eq "$(tree_hash "$T/p")" "$BEFORE" "host project tree"
	no_stray
}

# no_stray: no process of ours still runs the probe (the jail's processes all
# die with it); the kernel reaps them soon, so wait for that (30 s: a test
# whose probe sleeps makes it sleep longer, so that a stray is still seen).
no_stray() {
	wait_for no_process "$T/bin/probe" ||
		fail "processes left behind: $(pgrep -a -u "$(id -u)" -f "$T/bin/probe")"
}

# hp CASE ARGS...: the probe on the host, for canaries and positive controls.
hp() { probe_setup; "$T/host/probe" "$@"; }

# in_pty CMD: run a shell command with a terminal (script(1)), output in $out.
# script's stdin stays open (a fifo held by a sleeper): at EOF script would
# type an EOF character into the terminal, racing what the test injects there.
in_pty() {
	local fifo="$T/.pty-in.$RANDOM" spid
	mkfifo "$fifo"
	sleep 600 >"$fifo" &
	spid=$!
	set +e
	out=$(SHELL=/bin/bash script -qec "$1" /dev/null <"$fifo" 2>&1)
	rc=$?
	set -e
	kill "$spid" 2>/dev/null || true
	rm -f "$fifo"
}

# errno numbers the probe reports
EPERM=1 ENOENT=2 ESRCH=3 EBADF=9 EAGAIN=11 ENOMEM=12 EACCES=13 EFAULT=14 ENOTTY=25
EROFS=30 EMFILE=24 ENOSPC=28 EINVAL=22 ENODEV=19 ENOSYS=38 EAFNOSUPPORT=97 ECONNREFUSED=111 ENOKEY=126

# in_cwd NAME [JAIL ARGS...]: from the host's $T/p/NAME, a command that prints
# where it runs (as the jail sees it) and "at-root" when that is the project's
# root (the fallback for a directory that is gone or leads out).
in_cwd() {
	local name=$1
	shift
	cd "$T/p/$name"
	run_jail "$@" -- sh -c \
		'readlink /proc/self/cwd; [ "$(stat -c %d:%i .)" = "$(stat -c %d:%i "$1")" ] && echo at-root; true' \
		sh "$T/p"
	cd "$T"
}

# (the terminal suites)
# show NAME BYTES...: write the printf format BYTES to $T/bin/NAME, cat it in
# a jail with a terminal (rc=... and the host terminal's bytes in $out).
show() {
	probe_setup
	local name=$1
	shift
	# shellcheck disable=SC2059 # the format is the payload
	printf "$@" >"$T/bin/$name"
	in_pty "$JAIL -q --ro $T/bin -D $T/p -- cat $T/bin/$name; echo rc=\$?"
	assert_contains "$out" "rc=0"
	host_safe
}

# after_end: what the terminal got after the payload's last word, END.
after_end() {
	local tail=${out##*END}
	[ "$tail" != "$out" ] || fail "the payload's output is missing: $out"
	printf '%s' "$tail"
}

# The host-side canaries a test started, ended with it.
HOSTS=()
stop_hosts() {
	[ ${#HOSTS[@]} -eq 0 ] && return 0
	kill "${HOSTS[@]}" 2>/dev/null || true
	wait "${HOSTS[@]}" 2>/dev/null || true
	HOSTS=()
}

# (the hidden-file suites) A repository that ignores .env, *.key and
# secrets/, with one commit.
hide_repo() {
	git_init "$T/p"
	printf '.env\n*.key\nsecrets/\n' >"$T/p/.gitignore"
	printf 'hello\n' >"$T/p/README"
	git -C "$T/p" add .gitignore README
	git -C "$T/p" commit -q -m init
}

# pending_input: a command for the end of report_terminal.py's CMD, which
# prints what the terminal holds for the next program (as typed), as
# pending=[...].
pending_input() {
	printf '%s' "python3 -c 'import os,select,termios,tty
tty.setraw(0, termios.TCSANOW); got=b\"\"
while select.select([0],[],[],1.0)[0]: got+=os.read(0,64)
print(\"pending=\"+repr(got))'"
}
