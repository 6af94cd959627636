# lib.sh — helpers for integration and security tests.  Each test is a function
# test_NAME run with `set -e` in a fresh temp dir $T; it fails on the first
# failed command or assertion.  $JAIL is the binary under test, $PROBE the probe.

fail() { echo "FAIL: $*" >&2; return 1; }

# skip REASON: end the test as skipped, for a test whose premise is the host's
# (an ABI, a kernel feature): check the premise with a positive control first
# and skip only when the control itself shows the host lacks it.  Call it from
# the test's own shell (not in $(...) or a pipe).  It counts only with its
# marker, so a command that happens to exit 77 is still a failure.
SKIP_RC=77
skip() {
	printf '%s\n' "$*" >"$T.skip"
	echo "SKIP: $*" >&2
	exit $SKIP_RC
}

# wait_for [-t SECONDS] COMMAND...: poll COMMAND until it succeeds; fail after
# SECONDS (30).  For "wait until X has happened": never a fixed sleep.
wait_for() {
	local limit=30 end
	[ "$1" = -t ] && { limit=$2; shift 2; }
	end=$((SECONDS + limit))
	until "$@"; do
		[ $SECONDS -lt $end ] || fail "waited ${limit}s for: $*" || return 1
		sleep 0.05
	done
}

assert_eq() { # actual expected [what]
	[ "$1" = "$2" ] || fail "${3:-value}: expected '$2', got '$1'"
}
assert_ne() { [ "$1" != "$2" ] || fail "${3:-value}: did not expect '$2'"; }
assert_contains() { # haystack needle
	[[ "$1" == *"$2"* ]] || fail "expected to find '$2' in: $1"
}
assert_not_contains() {
	[[ "$1" != *"$2"* ]] || fail "did not expect '$2' in: $1"
}
assert_file() { [ -e "$1" ] || fail "expected file $1"; }
assert_no_file() { [ ! -e "$1" ] && [ ! -L "$1" ] || fail "expected no file $1"; }

# no_process PATTERN: no process of ours matches PATTERN (for wait_for).
no_process() { ! pgrep -u "$(id -u)" -f "$1" >/dev/null; }

# helper_of SUPERVISOR NAME: the pids of the network helper NAME (pasta,
# slirp4netns) that serves the jail of that supervisor pid: its child, or the
# child of a guard it forked.  Never "any NAME of this user": another suite, or
# another jail of the user, may run one at the same time.
helper_of() {
	local c
	for c in $(pgrep -P "$1"); do
		pgrep -P "$1" -f "^$2 " | grep -x "$c" || true
		pgrep -P "$c" -f "^$2 " || true
	done
}

# gone PID...: none of these processes exists any more (for wait_for).
gone() {
	local p
	for p in "$@"; do kill -0 "$p" 2>/dev/null && return 1; done
	return 0
}

# free_port: a TCP port free on the host's 127.0.0.1 now (the kernel's choice),
# for a test that must listen there: no fixed port two suites could share.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# run_jail ARGS...: run jail, keep stdout in $out, stderr in $err, status in $rc.
run_jail() {
	set +e
	out=$("$JAIL" "$@" 2>"$T/.stderr" </dev/null)
	rc=$?
	set -e
	err=$(cat "$T/.stderr")
}

# expect_fail125 ARGS...: jail refuses with exit 125 and exactly one line.
expect_fail125() {
	run_jail "$@"
	assert_eq "$rc" 125 "exit status of: jail $*"
	assert_eq "$(printf '%s\n' "$err" | grep -c .)" 1 "error lines of: jail $*"
	assert_contains "$err" "jail: "
}

# git_init DIR: an empty repository on branch main with a test identity.
git_init() {
	mkdir -p "$1"
	git -C "$1" init -q -b main
	git -C "$1" config user.email t@example.com
	git -C "$1" config user.name Tester
}

# mkrepo DIR: a small git repository with a tracked file, an ignored secret
# and an untracked file.
mkrepo() {
	local d=$1
	git_init "$d"
	printf 'hello\n' >"$d/README"
	printf 'print("hi")\n' >"$d/main.py"
	printf '.env\n*.log\nbuild/\n' >"$d/.gitignore"
	git -C "$d" add README main.py .gitignore
	git -C "$d" commit -q -m init
	printf 'SECRET=canary-env-1234\n' >"$d/.env"
	printf 'log\n' >"$d/debug.log"
	mkdir -p "$d/build"
	printf 'obj\n' >"$d/build/out.o"
	printf 'untracked\n' >"$d/notes.txt"
}

# tree_hash DIR: contents, modes and mtimes of every file below DIR.
tree_hash() {
	(cd "$1" && find . -printf '%p %m %T@ %s %y %l\n' | LC_ALL=C sort &&
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum) | sha256sum | cut -d' ' -f1
}

# session_dir PROJECT [SESSION]: the session's state dir.
session_dir() {
	local real name hash
	real=$(realpath "$1")
	name=$(basename "$real")
	hash=$(printf '%s' "$real" | sha256sum | cut -c1-8)
	echo "$XDG_STATE_HOME/jail/$name-$hash/${2:-default}"
}

# make_ca DIR NAME: a test CA (DIR/ca.crt) and a certificate for NAME signed
# by it (DIR/srv.crt, DIR/srv.key), for the TLS servers of the broker tests.
make_ca() { # DIR NAME
	local d=$1
	mkdir -p "$d"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-keyout "$d/ca.key" -out "$d/ca.crt" -subj "/CN=broker test CA" \
		-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/srv.key" \
		-out "$d/srv.csr" -subj "/CN=$2" 2>/dev/null
	printf 'subjectAltName=DNS:%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$2" >"$d/ext"
	openssl x509 -req -in "$d/srv.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial \
		-days 2 -extfile "$d/ext" -out "$d/srv.crt" 2>/dev/null
}

# in_pty CMD: run the shell command line CMD with a terminal as its stdin, stdout
# and stderr (script(1)); stdin stays open, so no EOF character is typed into it.
in_pty() {
	local fifo="$T/.pty-in.$RANDOM" spid
	mkfifo "$fifo"
	sleep 600 >"$fifo" &
	spid=$!
	script -qec "$1" /dev/null <"$fifo" | tr -d '\r'
	kill "$spid" 2>/dev/null || true
	rm -f "$fifo"
}

# zsh_complete LINE EXPECTED: what an interactive zsh shows after LINE and a
# TAB (the line as completed, and any listing), through a pseudo-terminal
# (zsh/zpty).  Reads until EXPECTED has appeared (30 s at most: then the output
# so far, for the assertion to show), never a fixed time.
zsh_complete() { # needs $T/bin (jail) and $T/comp (_jail)
	cat >"$T/drive.zsh" <<'ZSH'
zmodload zsh/zpty
zpty z 'zsh -f -i'
zpty -w z "PS1='> '; path=($COMP_BIN \$path); fpath=($COMP_DIR \$fpath); autoload -U compinit; compinit -u -D"
zpty -w -n z "$1"$'\t'
seen= chunk= end=$((SECONDS + 30))
while [[ $seen != *${(b)2}* ]] && (( SECONDS < end )); do
	if zpty -r -t z chunk; then seen+=$chunk; else sleep 0.05; fi
done
zpty -w -n z $'\C-u echo DONE-$?\n'
zpty -r z out '*DONE-*'
print -r -- "$seen$out"
zpty -d z
ZSH
	COMP_BIN="$T/bin" COMP_DIR="$T/comp" timeout 60 zsh -f "$T/drive.zsh" "$1" "$2" 2>&1 | tr -d '\r'
}
