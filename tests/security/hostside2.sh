# The escape suite, second round on the host side: nothing the agent leaves in
# its session may hurt the commands the user runs on it afterwards (status,
# diff, export, apply, list, ps, reset, rm, discard).  None of them may hang,
# take time or memory out of proportion to what the session holds, or write
# outside the session.  Each test shapes the session from inside a jail, as
# the agent would, runs the host command and checks its effect; each failed
# on the build before its fix.
source "$TESTS/security/helpers.bash"

# read_bytes_of CMD...: the bytes of directory entries CMD read (getdents64,
# its output dropped): the cost of a walk as a count, which the machine's
# load does not change.
read_bytes_of() {
	strace -f -qq -e trace=getdents64 -o "$T/reads" "$@" >/dev/null 2>&1
	awk '/getdents64/ && $NF > 0 { n += $NF } END { print n + 0 }' "$T/reads"
}

# count_git_runs SUBCOMMAND LOG: a git first on $T/wrap's PATH that counts the
# runs of SUBCOMMAND in LOG, a line each, then runs the real git.
count_git_runs() {
	mkdir -p "$T/wrap"
	cat >"$T/wrap/git" <<EOF2
#!/bin/bash
for a in "\$@"; do [ "\$a" = $1 ] && echo run >>"$2"; done
exec $(command -v git) "\$@"
EOF2
	chmod +x "$T/wrap/git"
	: >"$2"
}

# jail reset (and rm, and discard) read a directory again from its start
# after each subdirectory it removed: on ext4 each read goes past every entry
# removed before, so a directory of N subdirectories cost N^2/2 entries read
# (40,000 empty directories, made in a second, held jail reset for 24 s; a
# million, for hours).  The reset must cost what rm -rf of the same tree does.
test_hostside2_reset_of_many_directories_is_not_quadratic() {
	probe_setup
	local mk='mkdir "D" or die; for (1 .. 30000) { mkdir "D/d$_" or die "$!" }'
	run_jail -q --no-export -D "$T/p" -- perl -e "$mk"
	assert_eq "$rc" 0 "the agent's directories: $err"
	local sd
	sd=$(session_dir "$T/p")
	[ -d "$sd/upper/D/d30000" ] || fail "the session's directories (the premise)"
	command -v strace >/dev/null || skip "no strace to count the directory reads"
	local bytes
	bytes=$(read_bytes_of "$JAIL" reset --all -D "$T/p")
	[ ! -e "$sd/upper/D" ] || fail "jail reset left the directories"
	# 30,000 entries and their own "." and ".." are a few MB of entries read;
	# reading the directory again after each removal read what was left of
	# it each time: gigabytes
	[ "$bytes" -lt 50000000 ] || fail "jail reset read $bytes bytes of entries for 30,000 directories"
	host_safe
}

# A changed .gitignore is checked for the host files it would un-hide: host
# git ran once for each, over every host-ignored path.  The agent makes as
# many .gitignore files as it likes (one per new directory, and one change to
# the root's that puts every ignored path in play): 100,000 of them held each
# jail status, diff and export, and the end of the run, for minutes to hours.
# A .gitignore rules only below its directory; host git is asked about those
# paths alone, and not at all where the host ignores nothing below it.
test_hostside2_many_gitignore_files_cost_no_git_run_each() {
	probe_setup
	printf '.env\n' >"$T/p/.gitignore"
	git -C "$T/p" add .gitignore && git -C "$T/p" commit -qm ignore
	echo 'TOKEN=1' >"$T/p/.env"
	BEFORE=$(tree_hash "$T/p")
	run_jail -q --no-export -D "$T/p" -- perl -e '
		for (1 .. 300) { mkdir "g$_" or die; open(my $f, ">", "g$_/.gitignore") or die;
			print $f "x\n"; close $f }
		open(my $r, ">", ".gitignore") or die; print $r "other\n"; close $r'
	assert_eq "$rc" 0 "the agent's .gitignore files: $err"
	count_git_runs check-ignore "$T/check-ignore.log"
	out=$(PATH="$T/wrap:$PATH" "$JAIL" status -D "$T/p" 2>&1)
	assert_contains "$out" ".gitignore: no longer ignores .env (exists on the host)"
	local runs
	runs=$(wc -l <"$T/check-ignore.log")
	[ "$runs" -le 2 ] || fail "host git check-ignore ran $runs times for one root .gitignore"
	host_safe
}

# Every path of the agent's commits meets the export's rules, and a rule was
# tried on every span of the path's components, from each to each later one:
# the components squared times the path's length.  The agent's commits hold
# paths as deep as git takes (trees made with git mktree, 1,000 directories
# of one letter): 2,000 such paths held jail status for a minute, at every
# status, diff and export.  A pattern with k slashes matches k+1 components
# at most (FNM_PATHNAME), so only those spans are tried.
test_hostside2_deep_paths_in_a_commit_are_matched_in_linear_time() {
	probe_setup
	cat >"$T/bin/deep.sh" <<'EOF2'
set -e
blob=$(echo x | git hash-object -w --stdin)
t=$(i=0; while [ $i -lt 1000 ]; do printf '100644 blob %s\tf%d\n' "$blob" $i; i=$((i+1)); done |
	git mktree)
t=$(printf '040000 tree %s\ttasks.json\n' "$t" | git mktree)
t=$(printf '040000 tree %s\t.vscode\n' "$t" | git mktree)
d=0
while [ $d -lt 1000 ]; do t=$(printf '040000 tree %s\ta\n' "$t" | git mktree); d=$((d+1)); done
git read-tree --prefix=deep/ "$t"
git commit -qm deep
EOF2
	run_jail -q --no-export --ro "$T/bin" -D "$T/p" -- sh "$T/bin/deep.sh"
	assert_eq "$rc" 0 "the agent's commit of deep paths: $err"
	# (the spans tried are bounded in test_pathrules.c: a count, not a time)
	run_jail status -D "$T/p"
	assert_eq "$rc" 0 "jail status of the deep commit: $err"
	run_jail export -D "$T/p" -o "$T/out"
	assert_not_contains "$(cat "$T"/out/*.patch 2>/dev/null)" "tasks.json"
	host_safe
}

# A directory that is flagged wherever it stands (.devcontainer/, which an
# editor opened on that folder builds and runs; mise's .config/mise/, read in
# every directory above the shell's) was looked for once in the path: its
# first match.  A name above that ends like it ("x.devcontainer/") is no such
# directory, and the real one below it went out unflagged, landed by jail
# apply with no question.
test_hostside2_flagged_directory_below_a_lookalike_name_is_flagged() {
	probe_setup
	local f="x.devcontainer/app/.devcontainer/devcontainer.json"
	run_jail -q --no-export -D "$T/p" -- sh -c \
		"mkdir -p x.devcontainer/app/.devcontainer && echo '{}' > $f"
	assert_eq "$rc" 0 "the agent's devcontainer: $err"
	run_jail status -D "$T/p"
	assert_contains "$out" "$f: changes what editors build and run in a dev container"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 125 "jail apply of a flagged file without --accept-flagged: $err"
	[ ! -e "$T/p/$f" ] || fail "jail apply landed $f unasked"
	host_safe
}

# After jail apply, the session records each path it landed, and every later
# status, diff and export reads that record: it was sorted again after each
# path read (20,000 landed paths, 9 s of every status, the number squared),
# and each path the agent changed again cost a git run of its own to check
# the landed version (20,000: another minute).  The agent makes the paths:
# many small files the user lands once make every later look at the session
# slow.  The record is sorted once, and git is asked once.
test_hostside2_many_applied_paths_cost_no_git_run_each() {
	probe_setup
	local mk='my $v = shift; mkdir "gen"; for (1 .. 20000) {
		open(my $f, ">", "gen/f$_") or die; print $f "$v $_\n"; close $f }'
	run_jail -q --no-export -D "$T/p" -- perl -e "$mk" a
	assert_eq "$rc" 0 "the agent's files: $err"
	# (no gc in the background after git am: the tree is compared below)
	git -C "$T/p" config gc.auto 0
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply of the agent's files: $err"
	[ -f "$T/p/gen/f20000" ] || fail "jail apply landed the files (the premise)"
	BEFORE=$(tree_hash "$T/p")
	run_jail -q --no-export -D "$T/p" -- perl -e "$mk" b
	assert_eq "$rc" 0 "the agent's second change: $err"
	count_git_runs cat-file "$T/cat-file.log"
	PATH="$T/wrap:$PATH" "$JAIL" status -D "$T/p" >/dev/null 2>&1
	local runs
	runs=$(wc -l <"$T/cat-file.log")
	[ "$runs" -le 3 ] || fail "host git cat-file ran $runs times for 20,000 landed paths"
	# the landed versions are still the old side: each path changes one line
	out=$("$JAIL" status -D "$T/p" 2>&1)
	assert_contains "$out" "M gen/f7 +1 -1"
	host_safe
}
