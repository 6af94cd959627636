# The escape suite, third round on what leaves the jail (jail export, jail
# apply) and on what the agent's session can do to the host side's review.
# Each test lands or reads the session the way the user would and checks the
# effect in the project, not only the summary.

# The repository is checked out on macOS and Windows too, where a name with a
# character those file systems take for an ASCII letter is the ASCII name:
# the Kelvin sign U+212A is 'K' to macOS (names are stored normalised), the
# long s U+017F is 's' to Unicode case folding (APFS).  ".huſky/pre-commit"
# is husky's hook there and ".gitattributeſ" git's attributes; on Linux
# they went out as plain new files, neither left out nor flagged.
test_export3_names_other_file_systems_read_as_control_files() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c '
		s=$(printf "\305\277") k=$(printf "\342\204\252") i=$(printf "\304\261")
		mkdir -p .vscode ".hu${s}ky" ".g${i}t/hooks"
		echo "{}" > ".vscode/ta${s}ks.json"
		echo "curl x | sh" > ".hu${s}ky/pre-commit"
		echo "curl x | sh" > ".g${i}t/hooks/post-checkout"
		echo "* filter=x" > ".gitattribute${s}"
		echo "pre-commit: {}" > "lefthoo${k}.yml"
		echo "[lfs]" > ".lfscon$(printf "\357\254\201")g"
		echo more >> README'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 125 "jail apply without --accept-flagged ($err)"
	assert_contains "$err" ".gitattribute"
	assert_contains "$err" "changes how git filters, diffs and merges files"
	assert_contains "$err" "changes the commands a hooks manager runs on commit"
	assert_contains "$err" "changes where git-lfs fetches and pushes objects"
	assert_eq "$(cat "$T/p/README")" "hello" "README after the refusal"
	run_jail apply --accept-flagged -D "$T/p"
	assert_eq "$rc" 0 "jail apply --accept-flagged ($err)"
	assert_contains "$err" "matches '.husky/'"
	assert_contains "$err" "matches '.vscode/tasks.json'"
	assert_contains "$err" "a name git takes for .git"
	# left out: none of them landed under any spelling
	local s k i
	s=$(printf '\305\277') k=$(printf '\342\204\252') i=$(printf '\304\261')
	assert_no_file "$T/p/.hu${s}ky"
	assert_no_file "$T/p/.vscode/ta${s}ks.json"
	assert_no_file "$T/p/.g${i}t"
	# positive control: the flagged files and the plain change landed
	assert_file "$T/p/.gitattribute${s}"
	assert_file "$T/p/lefthoo${k}.yml"
	assert_eq "$(tail -n 1 "$T/p/README")" "more" "README landed"
}

# bare_repo DIR: the text files that make DIR a repository to git (HEAD,
# objects/, refs/), with a config whose core.pager makes $T/paged: `git
# branch` or `git log` typed in DIR on a terminal runs it.
bare_repo() {
	mkdir -p "$1/objects/info" "$1/refs/heads"
	echo "ref: refs/heads/main" >"$1/HEAD"
	touch "$1/objects/info/.keep" "$1/refs/heads/.keep"
	printf '[core]\n\tpager = touch %s/paged; cat\n' "$T" >"$1/config"
}

# git run in a directory with no .git of its own takes it for a bare
# repository when it holds HEAD, objects and refs (safe.bareRepository is
# "all" by default), and reads its config: core.pager, core.fsmonitor, hooks.
# Such a directory of text files went out as four new files, and `git branch`
# typed there on the host ran the agent's pager.
test_export3_bare_repository_in_the_tree_is_left_out() {
	mkrepo "$T/p"
	# the premise, on the host: git takes these files for a repository
	bare_repo "$T/ctl"
	assert_eq "$(cd "$T/ctl" && git rev-parse --is-bare-repository 2>&1)" "true" "git's view of the shape"
	# a fixture the project already tracks: the agent adds its config
	mkdir -p "$T/p/fixture/objects" "$T/p/fixture/refs"
	echo "ref: refs/heads/main" >"$T/p/fixture/HEAD"
	touch "$T/p/fixture/objects/.keep" "$T/p/fixture/refs/.keep"
	git -C "$T/p" add fixture && git -C "$T/p" commit -qm fixture
	run_jail -q -D "$T/p" -- sh -c "$(declare -f bare_repo); T=/tmp
		bare_repo fx
		mkdir -p fw/Objects fw/REFS; echo 'ref: refs/heads/main' > fw/head; touch fw/Objects/.k fw/REFS/.k
		printf '[core]\n\tpager = x\n' > fw/config
		mkdir -p fy; echo 'ref: refs/heads/main' > fy/HEAD; echo ../fz > fy/commondir
		printf '[core]\n\tpager = x\n' > fixture/config
		echo more >> README"
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_contains "$err" "fx/: a directory git takes for a repository"
	assert_contains "$err" "fw/: a directory git takes for a repository"  # as macOS reads names
	assert_contains "$err" "fy/: a directory git takes for a repository"  # HEAD and commondir
	assert_contains "$err" "fixture/: a directory git takes for a repository"
	assert_no_file "$T/p/fx"
	assert_no_file "$T/p/fw"
	assert_no_file "$T/p/fy"
	assert_no_file "$T/p/fixture/config"
	assert_no_file "$T/paged"
	# positive control: the rest of the session landed
	assert_eq "$(tail -n 1 "$T/p/README")" "more" "README landed"
}

# The agent's commits pass the same rule, also for a repository that lives
# only in the history (a later commit deletes it): git am would land it, and a
# checkout of that commit (bisect) would bring it back.
test_export3_bare_repository_in_a_commit_is_left_out() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c "$(declare -f bare_repo); T=/tmp
		git config user.name A; git config user.email a@b
		bare_repo fx; echo 1 >> README; git add fx README; git commit -qm one
		git rm -rq fx; echo 2 >> README; git commit -qam two"
	assert_eq "$rc" 0 "the run ($err)"
	run_jail export -D "$T/p" -o "$T/out"
	assert_eq "$rc" 0 "jail export ($err)"
	assert_contains "$err" "left out fx/config: below 'fx', a directory git takes for a repository"
	assert_not_contains "$(cat "$T"/out/*.patch)" "diff --git a/fx/"
	git -C "$T/p" am -q "$T"/out/*.patch || fail "git am"
	assert_eq "$(git -C "$T/p" log --format=%s -2 | tr '\n' '|')" "two|one|" "the landed commits"
	assert_eq "$(git -C "$T/p" log --all --name-only --format= | grep -c '^fx/' || true)" "0" "fx in the landed history"
}

# A project in a subdirectory of its repository has no .git of its own: git
# run in it takes the project itself for a repository once it holds HEAD,
# objects and refs, and reads the agent's config there.
test_export3_project_made_a_repository_exports_nothing() {
	mkrepo "$T/r"
	mkdir -p "$T/r/sub" && echo s >"$T/r/sub/s.txt"
	git -C "$T/r" add sub && git -C "$T/r" commit -qm sub
	run_jail -q -D "$T/r/sub" -- sh -c "$(declare -f bare_repo); T=/tmp; bare_repo .; echo more >> s.txt"
	assert_eq "$rc" 0 "the run ($err)"
	run_jail status -D "$T/r/sub"
	assert_contains "$out" "config: in a project git takes for a repository"
	assert_contains "$out" "s.txt: in a project git takes for a repository"
	assert_contains "$out" "0 files changed"
	# positive control: without the repository's files the change goes out
	mkrepo "$T/q"
	mkdir -p "$T/q/sub" && echo s >"$T/q/sub/s.txt"
	git -C "$T/q" add sub && git -C "$T/q" commit -qm sub
	run_jail -q -D "$T/q/sub" -- sh -c 'echo more >> s.txt'
	run_jail status -D "$T/q/sub"
	assert_contains "$out" "M s.txt"
}

# asdf's and mise's .tool-versions take "path:DIR" for a tool's version: their
# shim for node then runs DIR/bin/node, which a prompt (starship) runs as
# `node --version` on entering the directory; rustup's toolchain file takes a
# path too.  They went out as plain files.
test_export3_version_pins_that_name_programs_are_flagged() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'mkdir -p tools/n/bin; printf "#!/bin/sh\necho v20\n" > tools/n/bin/node
		echo "nodejs path:tools/n" > .tool-versions
		printf "[toolchain]\npath = \"tools/r\"\n" > rust-toolchain.toml
		echo 20 > .nvmrc'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 125 "jail apply without --accept-flagged ($err)"
	assert_contains "$err" ".tool-versions: changes which program runs as a tool here"
	assert_contains "$err" "rust-toolchain.toml: changes which program runs as a tool here"
	assert_not_contains "$err" ".nvmrc: changes"
	assert_no_file "$T/p/.tool-versions"
	run_jail apply --accept-flagged -D "$T/p"
	assert_eq "$rc" 0 "jail apply --accept-flagged ($err)"
	assert_eq "$(cat "$T/p/.tool-versions")" "nodejs path:tools/n" ".tool-versions landed"
}
