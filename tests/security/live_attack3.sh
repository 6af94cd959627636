# The escape suite, third round on live sessions and the session's state on
# the host: the session lock against the commands that remove a session, and
# what the host's live commands do with what the agent left.  Each test fails
# on the build before its fix.
source "$TESTS/security/helpers.bash"

# What a test's agent runs until the test touches $T/sig/go: at most two
# minutes, so that a failed test leaves no jail behind.
wait_go() {
	echo "i=0; while [ ! -e '$T/sig/go' ] && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i + 1)); done"
}

lock_taken() { ! flock -n "$1/lock" true; }

# jail rm removed the session's directory in whatever order it lists, the
# lock among the first on some file systems (tmpfs lists in creation order),
# then went on removing the rest (an agent's persistent home of many files:
# as long as the agent likes).  A run started meanwhile found no lock, took a
# new one and ran while rm deleted its upper dir, its record and its lock
# under it: a jail that jail ps no longer lists, jail stop cannot reach, and
# that a third run joins on the same upper dir.  A run started while jail rm
# works must find the session in use.
test_a_run_during_jail_rm_finds_the_session_in_use() {
	probe_setup
	run_jail -q --no-export --home persistent -D "$T/p" -- sh -c \
		'mkdir -p "$HOME/many" && cd "$HOME/many" && seq 40000 | xargs touch'
	assert_eq "$rc" 0 "the agent's many files: $err"
	local sd rmpid ran=""
	sd=$(session_dir "$T/p")
	[ -d "$sd/home/many" ] || fail "the persistent home (the premise)"
	"$JAIL" rm -D "$T/p" >/dev/null 2>"$T/rm.err" &
	rmpid=$!
	# the moment the lock is gone while rm still has the home to remove:
	# rm is held there (SIGSTOP) and a run tried
	while kill -0 "$rmpid" 2>/dev/null; do
		if [ -d "$sd/home" ] && [ ! -e "$sd/lock" ]; then
			kill -STOP "$rmpid"
			run_jail -q --no-export -D "$T/p" -- true
			ran="rc=$rc: $err"
			kill -CONT "$rmpid"
			break
		fi
	done
	wait "$rmpid" || true
	assert_eq "$ran" "" "a run while jail rm removed the session (it let go of the lock first)"
	# and the session is gone or whole: a run in it now works
	run_jail -q --no-export -D "$T/p" -- true
	assert_eq "$rc" 0 "a run after jail rm: $err"
	host_safe
}

# The project's path and the paths the user names may hold any bytes (a
# directory a landed patch made, a name completed from the project): the
# path commands of a session (reset PATH, status PATH, diff PATH) print them
# escaped, never raw to the host terminal, in their refusals too.
test_path_refusals_print_names_escaped() {
	local p="$T/$(printf 'evil\033]0;owned\007dir')" d all=""
	d=$(printf 'sub\033[2J\007')
	mkrepo "$p"
	mkdir -p "$p/$d"
	run_jail -q --no-export -D "$p" -- sh -c 'cd "$1" && echo x >new.txt' sh "$p"
	assert_eq "$rc" 0 "the session (the premise): $err"
	run_jail reset -D "$p" "$T"
	assert_eq "$rc" 125 "reset of a path outside the project"
	all+="$err"
	run_jail status -D "$p" "$T"
	assert_eq "$rc" 125 "status of a path outside the project"
	all+="$err"
	run_jail reset -D "$p" "$p/$d/f"
	assert_eq "$rc" 125 "reset of a path the session did not change"
	all+="$err"
	run_jail reset -D "$p" "$p/new.txt/$d"
	assert_eq "$rc" 125 "reset below a file"
	all+="$err"
	assert_contains "$all" "evil\\x1b]0;owned\\x07dir" "the project, escaped"
	assert_contains "$all" "sub\\x1b[2J\\x07" "the path, escaped"
	assert_not_contains "$all" $'\033'
	assert_not_contains "$all" $'\007'
}
