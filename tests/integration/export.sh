# Integration tests for the export (issue 3): the agent's change leaves the jail
# only as a patch that `git am` lands.  Each round trip runs the real binary:
# the change is made by `jail -D repo -- sh -c ...`, exported with `jail export`,
# applied with `git am` on a fresh clone, and the clone's tree is compared with
# what the agent saw in the jail (modes, names, contents; `git ls-files -s`).

# The agent's view of the tree: "MODE ./PATH CONTENT-HASH", one line per file or
# symlink, outside .git.  Runs inside the jail and in the clone alike.
MANIFEST='find . -path ./.git -prune -o \( -type f -o -type l \) -print | LC_ALL=C sort |
while IFS= read -r f; do
	if [ -L "$f" ]; then printf "120000 %s %s\n" "$f" "$(readlink "$f")";
	elif [ -x "$f" ]; then printf "100755 %s %s\n" "$f" "$(sha256sum <"$f" | cut -c1-16)";
	else printf "100644 %s %s\n" "$f" "$(sha256sum <"$f" | cut -c1-16)"; fi
done'

# base DIR: a repository with tracked files only (plus what .gitignore hides).
base() {
	local d=$1
	git_init "$d"
	mkdir -p "$d/src/lib" "$d/docs"
	printf 'hello\n' >"$d/README"
	printf 'int main(void) { return 0; }\n' >"$d/src/main.c"
	printf 'a\nb\nc\n' >"$d/src/lib/util.c"
	printf 'x\n' >"$d/src/lib/extra.c"
	printf '# docs\n' >"$d/docs/index.md"
	printf '#!/bin/sh\necho run\n' >"$d/run.sh"
	printf '.env\n*.log\nbuild/\n' >"$d/.gitignore"
	git -C "$d" add -A
	git -C "$d" commit -q -m init
	printf 'SECRET=canary\n' >"$d/.env"
}

# agent DIR SCRIPT [JAIL-OPTIONS...]: run SCRIPT in the jail; $seen is the
# agent's view afterwards, $agent_err jail's stderr (the summary).
agent() {
	local d=$1 script=$2
	shift 2
	run_jail "$@" -D "$d" -- sh -c "cd '$d' && { $script ; } >&2 && $MANIFEST"
	assert_eq "$rc" 0 "exit status of the agent's script"
	seen=$out
	agent_err=$err
}

# land DIR: jail export, then git am on a fresh clone in $T/clone.
land() {
	run_jail export -D "$1" "${@:2}"
	assert_eq "$rc" 0 "jail export: $err"
	patch=$out
	assert_file "$patch"
	rm -rf "$T/clone"
	git clone -q "$(git -C "$1" rev-parse --show-toplevel)" "$T/clone"
	git -C "$T/clone" apply --check "$patch"
	git -C "$T/clone" -c user.email=r@example.com -c user.name=Reviewer am -q "$patch"
	assert_eq "$(git -C "$T/clone" status --porcelain)" "" "clone clean after git am"
}

clone_manifest() { (cd "$T/clone" && sh -c "$MANIFEST"); }

# expect_clone [REGEX]: the clone holds what the agent saw, minus paths that
# match REGEX (the ones the patch leaves out); git's index agrees on modes.
expect_clone() {
	local want got
	want=$(printf '%s\n' "$seen" | grep -v -E "${1:-^\$}" || true)
	got=$(clone_manifest)
	assert_eq "$got" "$want" "clone tree vs the agent's view"
	got=$(git -C "$T/clone" ls-files -s -z | tr '\0' '\n' | sed -E 's/^([0-9]+) [0-9a-f]+ [0-9]\t/\1 .\//')
	want=$(printf '%s\n' "$want" | sed -E 's/ [^ ]*$//')
	assert_eq "$got" "$want" "git ls-files -s of the clone"
}

test_modify_add_delete_roundtrip() {
	base "$T/p"
	agent "$T/p" 'printf "hello\nworld\n" > README && echo new > src/new.c && rm src/lib/extra.c'
	assert_contains "$agent_err" "3 files changed"
	assert_contains "$agent_err" "M README +1 -0"
	assert_contains "$agent_err" "A src/new.c +1 -0"
	assert_contains "$agent_err" "D src/lib/extra.c +0 -1"
	assert_contains "$agent_err" "patch: "
	land "$T/p"
	expect_clone
	# no identity in the user's git config: jail's own
	assert_eq "$(git -C "$T/clone" log -1 --format=%an)" "jail"
}

# The filter keeps the agent's files open for the pack (export.c: kept_fd1);
# under 1,024 fds it keeps none and the pack opens each file again: the same
# patch either way.
test_pack_reads_files_kept_open_or_opened_again() {
	base "$T/p"
	agent "$T/p" 'printf "hello\nworld\n" > README && echo new > src/new.c && echo more >> run.sh &&
		rm src/lib/extra.c'
	land "$T/p"
	expect_clone
	cp "$patch" "$T/kept.patch"
	printf '#!/bin/sh\nulimit -n 900 || exit 99\nexec "%s" "$@"\n' "$JAIL" >"$T/fewfds"
	chmod +x "$T/fewfds"
	local real=$JAIL
	JAIL=$T/fewfds
	land "$T/p"
	JAIL=$real
	expect_clone
	local skip='^(From [0-9a-f]{40} |Date: )'
	assert_eq "$(grep -Ev "$skip" "$patch")" "$(grep -Ev "$skip" "$T/kept.patch")" \
		"patch with fds kept and without"
}

test_delete_whole_directory() {
	base "$T/p"
	echo cache >"$T/p/src/lib/cache.log"  # ignored: hidden in the jail, no deletion
	agent "$T/p" 'rm -rf src/lib'
	assert_not_contains "$agent_err" "cache.log"
	assert_not_contains "$agent_err" ".env"
	land "$T/p"
	expect_clone
	assert_no_file "$T/clone/src/lib/util.c"
}

test_delete_then_recreate_directory() {
	base "$T/p"
	agent "$T/p" 'rm -rf src && mkdir -p src/lib && echo fresh > src/lib/util.c'
	up="$(session_dir "$T/p")/upper"
	assert_eq "$(getfattr --only-values -n user.overlay.opaque "$up/src" 2>/dev/null)" "y" "opaque dir"
	land "$T/p"
	expect_clone
	assert_no_file "$T/clone/src/main.c"
	assert_eq "$(cat "$T/clone/src/lib/util.c")" "fresh"
}

test_rename_and_chmod() {
	base "$T/p"
	agent "$T/p" 'mv src/lib/util.c src/lib/helpers.c && mv docs manual && chmod +x README'
	assert_contains "$agent_err" "README: exec bit added"
	land "$T/p"
	expect_clone
	assert_eq "$(git -C "$T/clone" ls-files -s README | cut -c1-6)" "100755"
}

test_symlinks_inside_exported_outside_left_out() {
	base "$T/p"
	agent "$T/p" 'ln -s src/main.c inside && ln -s ../../etc/passwd up && ln -s /etc/passwd abs &&
		ln -s ../README src/rd'
	assert_contains "$agent_err" "inside: symlink"
	assert_contains "$agent_err" "up: symlink pointing outside the project"
	assert_contains "$agent_err" "abs: symlink pointing outside the project"
	land "$T/p"
	expect_clone '^120000 \./(up|abs) '
	assert_eq "$(readlink "$T/clone/inside")" "src/main.c"
}

test_binary_left_out_unless_allowed() {
	base "$T/p"
	agent "$T/p" 'printf "\000\001\002bin" > blob.bin && echo text > t.txt'
	assert_contains "$agent_err" "blob.bin: binary content"
	land "$T/p"
	expect_clone '^100644 \./blob\.bin '
	land "$T/p" --allow-binary
	expect_clone
}

test_empty_no_newline_crlf() {
	base "$T/p"
	agent "$T/p" ': > empty && printf "no newline" > nonl && printf "a\r\nb\r\n" > crlf &&
		printf "last" >> src/lib/util.c && : > docs/index.md'
	land "$T/p"
	expect_clone
	assert_eq "$(od -c "$T/clone/crlf" | head -1)" "$(printf 'a\r\nb\r\n' | od -c | head -1)"
	# git am strips carriage returns from text patch lines: such files go as binary
	assert_contains "$(cat "$patch")" "GIT binary patch"
	run_jail diff -D "$T/p"
	assert_contains "$out" "+b"$'\r'
}

test_spaces_and_unicode_in_names() {
	base "$T/p"
	agent "$T/p" 'mkdir "dir with space" && echo s > "dir with space/file name.txt" &&
		echo u > "caf$(printf "\303\251").md" && echo q > "quote\"d" && echo b > "back\\slash" &&
		printf "x\r\ny\r\n" > "crlf [*?] \\name"'
	land "$T/p"
	expect_clone
}

test_control_characters_in_names_left_out_and_escaped() {
	base "$T/p"
	agent "$T/p" 'echo x > "$(printf "esc\033[31mred")" && echo y > "$(printf "new\nline")" && echo ok > fine.txt'
	assert_contains "$agent_err" 'esc\x1b[31mred: control character in the name'
	assert_contains "$agent_err" 'new\x0aline: newline in the name'
	assert_not_contains "$agent_err" "$(printf '\033')"
	run_jail status -D "$T/p"
	assert_contains "$out" 'esc\x1b[31mred'
	assert_not_contains "$out" "$(printf '\033')"
	land "$T/p"
	assert_not_contains "$(cat "$patch")" "$(printf '\033')"
	assert_contains "$(cat "$patch")" 'esc\x1b[31mred'
	assert_eq "$(clone_manifest | grep -c fine.txt)" 1
	assert_eq "$(ls "$T/clone" | grep -c red || true)" 0
}

test_ignored_paths_and_agent_gitignore_edits() {
	base "$T/p"
	agent "$T/p" 'mkdir -p build && echo o > build/out.o && echo l > debug.log &&
		printf "!*.log\n" >> .gitignore && echo k > keep.txt'
	assert_contains "$agent_err" "build/out.o: ignored by git on the host"
	assert_contains "$agent_err" "debug.log: ignored by git on the host"
	land "$T/p"
	expect_clone '^100644 \./(build/out\.o|debug\.log) '
	assert_contains "$(cat "$T/clone/.gitignore")" '!*.log'
}

test_left_out_paths() {
	base "$T/p"
	# one path for every default pattern (pathrules_defaults)
	local paths=".envrc .direnv/cache .venv/bin/python venv/lib/x.py __pycache__/m.cpython.pyc
		src/m.pyc src/m.pyo web/node_modules/p/index.js .vscode/tasks.json .vscode/settings.json
		.vscode/launch.json .idea/workspace.xml .dir-locals.el .dir-locals-2.el .exrc .nvimrc
		.nvim.lua .claude/settings.json .claude/settings.local.json .mcp.json .gemini/settings.json
		.codex/config.toml .cursor/mcp.json .aider.conf.yml .husky/pre-commit .githooks/pre-commit
		.npmrc .yarnrc .yarnrc.yml .pnpmfile.cjs"
	agent "$T/p" "for f in $(echo $paths); do mkdir -p \$(dirname \$f); echo x > \$f; done;
		mkdir -p .git/hooks .git/info .git/modules/m sub/.git && echo evil > .git/hooks/pre-commit &&
		chmod +x .git/hooks/pre-commit && echo x > .git/info/exclude && echo y > sub/.git/config &&
		echo z > .git/modules/m/config && echo '[core]' >> .git/config && echo fine > kept.txt"
	# a left-out directory (node_modules/, .venv/) is one entry: the walk does not enter it
	local shown=".envrc .direnv/ .venv/ venv/ __pycache__/ src/m.pyc src/m.pyo web/node_modules/
		.vscode/tasks.json .vscode/settings.json .vscode/launch.json .idea/ .dir-locals.el
		.dir-locals-2.el .exrc .nvimrc .nvim.lua .claude/settings.json .claude/settings.local.json
		.mcp.json .gemini/ .codex/ .cursor/ .aider.conf.yml .husky/ .githooks/ .npmrc .yarnrc
		.yarnrc.yml .pnpmfile.cjs"
	for f in $shown; do assert_contains "$agent_err" "  $f: matches"; done
	assert_eq "$(printf '%s\n' "$agent_err" | grep -c ': matches ')" 30 "one line per default pattern"
	assert_contains "$agent_err" ".git/: git internals"
	# a new directory with a .git of its own is another repository: left out whole
	assert_contains "$agent_err" "sub/: a git repository of its own"
	land "$T/p"
	assert_eq "$(grep -c '^diff --git' "$patch")" 1 "only kept.txt goes out"
	assert_contains "$(cat "$patch")" "b/kept.txt"
	assert_not_contains "$(cat "$patch")" "evil"
	assert_no_file "$T/clone/.git/hooks/pre-commit"
	# the policy adds patterns (export.allow, which lets a default through, is unit-tested)
	run_jail status -D "$T/p" --export-deny 'kept.txt'
	assert_contains "$out" "kept.txt: matches 'kept.txt': denied by the policy"
}

# Names git takes for ".git" (any case; NTFS's ".git." and "git~1") are left
# out like .git itself: git refuses a patch that holds one as a whole, so one
# such file made by the agent kept every other change from landing.
test_names_git_takes_for_dot_git_left_out() {
	base "$T/p"
	agent "$T/p" 'mkdir -p .GIT/hooks sub/.Git "git~1" && printf "#!/bin/sh\necho pwned\n" > .GIT/hooks/post-checkout &&
		chmod +x .GIT/hooks/post-checkout && echo c > sub/.Git/config && echo d > "git~1/x" &&
		echo e > ".git." && ln -s README .gitmodules && echo y >> README'
	assert_contains "$agent_err" ".GIT/hooks/post-checkout: a name git takes for .git"
	assert_contains "$agent_err" "sub/.Git/config: a name git takes for .git"
	assert_contains "$agent_err" "git~1/x: a name git takes for .git"
	assert_contains "$agent_err" ".git.: a name git takes for .git"
	assert_contains "$agent_err" ".gitmodules: a symlink named .gitmodules"
	land "$T/p"
	assert_eq "$(grep -c '^diff --git' "$patch")" 1 "only README goes out"
	assert_eq "$(cat "$T/clone/README")" "$(printf 'hello\ny')" "README landed"
	assert_no_file "$T/clone/.GIT"
}

test_flagged_files() {
	base "$T/p"
	agent "$T/p" 'echo "*.c diff" > .gitattributes && echo "[submodule]" > .gitmodules &&
		echo "repos: []" > .pre-commit-config.yaml'
	assert_contains "$agent_err" ".gitattributes: changes how git"
	assert_contains "$agent_err" ".gitmodules: changes which repositories"
	assert_contains "$agent_err" ".pre-commit-config.yaml: changes the commands"
	land "$T/p"
	expect_clone
	assert_contains "$(cat "$patch")" "Flagged for review:"
}

# The agent's .gitattributes is part of its change, not a rule for the patch:
# `-diff` must not turn its text changes into a binary patch no one can read
# (git 2.43 reads a bare repository's attributes from HEAD: the agent's tree).
test_agent_gitattributes_do_not_shape_the_patch() {
	base "$T/p"
	agent "$T/p" 'printf "* -diff\n*.c binary\n" > .gitattributes &&
		echo "int hidden_change;" >> src/main.c && echo changed >> README'
	land "$T/p"
	expect_clone
	assert_contains "$(cat "$patch")" "+int hidden_change;"
	assert_contains "$(cat "$patch")" "+changed"
	assert_not_contains "$(cat "$patch")" "GIT binary patch"
}

test_malicious_git_config_runs_nothing() {
	base "$T/p"
	mark="$T/marker"
	agent "$T/p" "cat >> .git/config <<CFG
[core]
	fsmonitor = touch $mark.fsmonitor
	hooksPath = $T/hooks
	pager = touch $mark.pager
	editor = touch $mark.editor
[filter \"evil\"]
	clean = touch $mark.clean
	smudge = touch $mark.smudge
	process = touch $mark.process
[diff \"evil\"]
	textconv = touch $mark.textconv
	command = touch $mark.diffcmd
[alias]
	diff-tree = !touch $mark.alias
CFG
		echo '* filter=evil diff=evil' > .gitattributes && echo changed >> README"
	mkdir -p "$T/hooks"
	printf '#!/bin/sh\ntouch %s.hook\n' "$mark" >"$T/hooks/pre-commit"
	chmod +x "$T/hooks/pre-commit"
	before=$(tree_hash "$T/p")
	run_jail status -D "$T/p"
	run_jail diff -D "$T/p"
	assert_contains "$out" "+changed"
	land "$T/p"
	assert_eq "$(ls "$T" | grep -c marker || true)" 0 "marker files written by git"
	assert_not_contains "$(cat "$patch")" "fsmonitor"
	assert_eq "$(tree_hash "$T/p")" "$before" "the project (and its .git) untouched by the export"
	assert_eq "$(git -C "$T/p" config core.fsmonitor || echo unset)" "unset" "host config untouched"
}

test_fifo_and_huge_file() {
	base "$T/p"
	agent "$T/p" 'mkfifo pipe && head -c 6000000 /dev/zero | tr "\0" a > huge.txt && echo s > small.txt'
	assert_contains "$agent_err" "pipe: a fifo: only files and symlinks are exported"
	assert_contains "$agent_err" "huge.txt: larger than the size limit"
	land "$T/p"
	expect_clone '^[0-9]+ \./(pipe|huge\.txt) '
	# the limits are the policy's: flags here
	run_jail status -D "$T/p" --max-size 10M --export-deny 'small*'
	assert_not_contains "$out" "huge.txt: larger"
	assert_contains "$out" "A huge.txt +1 -0"
	assert_contains "$out" "small.txt: matches 'small*': denied by the policy (export.deny)"
}

test_equal_content_is_no_change_and_nothing_printed() {
	base "$T/p"
	run_jail -D "$T/p" -- sh -c 'touch README && chmod 644 src/main.c && cp README x && rm x && echo hello > README'
	assert_eq "$rc" 0
	assert_eq "$err" "" "nothing printed when nothing changed"
	run_jail export -D "$T/p"
	assert_eq "$out" ""
	assert_no_file "$(session_dir "$T/p")/patches/0001-jail-session-default.patch"
	run_jail status -D "$T/p"
	assert_eq "$out" "no changes"
}

test_change_already_on_host_exports_nothing() {
	base "$T/p"
	run_jail -D "$T/p" -- sh -c 'echo more >> README'
	printf 'hello\nmore\n' >"$T/p/README"
	run_jail status -D "$T/p"
	assert_eq "$out" "no changes"
}

test_export_refuses_while_session_in_use() {
	base "$T/p"
	run_jail -D "$T/p" -- sh -c 'echo x > a.txt'
	lock="$(session_dir "$T/p")/lock"
	# another holder of the lock: says so once it holds it, holds it until killed
	(exec 8>>"$lock" && flock 8 && touch "$T/locked" && exec sleep 120) &
	holder=$!
	wait_for test -e "$T/locked"
	for sub in export diff status; do
		expect_fail125 "$sub" -D "$T/p"
		assert_contains "$err" "in use"
	done
	kill $holder 2>/dev/null || true
	wait || true
}

test_diff_stat_and_name_status() {
	base "$T/p"
	run_jail -D "$T/p" -- sh -c 'echo more >> README && rm run.sh && echo n > n.txt'
	run_jail diff -D "$T/p"
	assert_contains "$out" "diff --git a/README b/README"
	assert_contains "$out" "+more"
	assert_not_contains "$out" "$(printf '\033')"  # no colour into a pipe
	run_jail diff -D "$T/p" --stat
	assert_contains "$out" "3 files changed"
	run_jail diff -D "$T/p" --name-status
	assert_eq "$out" "$(printf 'M\tREADME\nA\tn.txt\nD\trun.sh')"
}

test_export_to_directory() {
	base "$T/p"
	run_jail -D "$T/p" -- sh -c 'echo more >> README'
	run_jail export -D "$T/p" -o "$T/out"
	assert_eq "$out" "$T/out/0001-jail-session-default.patch"
	assert_contains "$(cat "$out")" "Subject: [PATCH] Update README (jail session default)"
	assert_contains "$(cat "$out")" "Jail-Session: p/default"
}

test_non_git_project_exports_text_files() {
	mkdir -p "$T/plain"
	printf 'one\n' >"$T/plain/a.txt"
	printf 'two\n' >"$T/plain/b.txt"
	run_jail -D "$T/plain" -- sh -c 'echo more >> a.txt && rm b.txt && echo c > c.txt && printf "\0" > bin'
	assert_contains "$err" "not a git repository"
	run_jail export -D "$T/plain"
	assert_eq "$rc" 0
	cp -r "$T/plain" "$T/copy"
	(cd "$T/copy" && git apply "$out")
	assert_eq "$(cat "$T/copy/a.txt")" "$(printf 'one\nmore')"
	assert_no_file "$T/copy/b.txt"
	assert_eq "$(cat "$T/copy/c.txt")" "c"
	assert_no_file "$T/copy/bin"
}

test_project_in_a_subdirectory_of_the_repository() {
	base "$T/p"
	agent "$T/p/src" 'echo more >> main.c && echo n > lib/n.c'
	land "$T/p/src"
	assert_contains "$(cat "$patch")" "b/src/lib/n.c"
	assert_eq "$(cat "$T/clone/src/lib/n.c")" "n"
}

test_host_moved_on_git_am_3way() {
	base "$T/p"
	run_jail -D "$T/p" -- sh -c 'printf "a\nb\nc\nd\n" > src/lib/util.c'
	assert_contains "$err" "review it, then land it: git -C $T/p am "
	printf 'z\na\nb\nc\n' >"$T/p/src/lib/util.c"
	git -C "$T/p" commit -qam "host moved on"
	run_jail -D "$T/p" -- true
	assert_contains "$err" "the project moved on since the session started; land it with: git -C $T/p am -3 "
	run_jail export -D "$T/p"
	patch=$out
	git -C "$T/p" am -3 -q "$patch"
	assert_eq "$(cat "$T/p/src/lib/util.c")" "$(printf 'z\na\nb\nc\nd')"
}

test_deep_nesting_is_left_out_not_fatal() {
	base "$T/p"
	agent "$T/p" 'd=.; for i in $(seq 80); do d=$d/d; done; mkdir -p $d && echo x > $d/f && echo ok > ok.txt'
	assert_contains "$agent_err" "nested deeper than 64 directories"
	land "$T/p"
	assert_eq "$(cat "$T/clone/ok.txt")" "ok"
}

test_diff_on_a_terminal_is_coloured_and_escaped() {
	base "$T/p"
	run_jail -D "$T/p" -- sh -c 'printf "evil \033]0;title\007 \033[2J\n" >> README'
	out=$(script -qec "$JAIL diff -D '$T/p'" /dev/null)
	assert_contains "$out" $'\033[32m'  # colour
	assert_contains "$out" 'evil \x1b]0;title\x07 \x1b[2J'
	assert_not_contains "$out" $'\033]0;'
	out=$(NO_COLOR=1 script -qec "$JAIL diff -D '$T/p'" /dev/null)
	assert_not_contains "$out" $'\033[32m'
	assert_contains "$out" 'evil \x1b]0;title'
}

test_apply_lands_the_patch_in_the_project() {
	base "$T/p"
	mkdir -p "$XDG_CONFIG_HOME/git"
	printf '[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n' >"$XDG_CONFIG_HOME/git/config"
	run_jail -D "$T/p" -- sh -c 'echo more >> README && echo n > n.txt && echo x > .envrc'
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply: $err"
	# the user's identity, and a subject that names what changed (issue 13)
	assert_eq "$(git -C "$T/p" log -1 --format='%an <%ae>|%s')" \
		"Ada Lovelace <ada@example.com>|Update README, add n.txt (jail session default)"
	assert_eq "$(cat "$T/p/n.txt")" "n"
	assert_no_file "$T/p/.envrc"
	assert_eq "$(git -C "$T/p" status --porcelain)" "" "project clean after apply"
}

test_users_global_excludes_are_honoured() {
	base "$T/p"
	mkdir -p "$XDG_CONFIG_HOME/git"
	printf '*.swp\n' >"$XDG_CONFIG_HOME/git/ignore"
	agent "$T/p" 'echo x > .README.swp && echo y > kept.txt'
	assert_contains "$agent_err" ".README.swp: ignored by git on the host"
	land "$T/p"
	expect_clone '^100644 \./\.README\.swp '
}

test_many_left_out_files_make_one_line() {
	base "$T/p"
	agent "$T/p" 'for i in $(seq 300); do mkdir -p node_modules/p$i build/p$i && echo x > node_modules/p$i/index.js && echo o > build/p$i/o; done; echo k > k.txt'
	assert_contains "$agent_err" "build/ (300 files): ignored by git on the host"
	assert_eq "$(printf '%s\n' "$agent_err" | grep -c build/)" 1
	# a left-out directory is one entry: the walk does not enter it
	assert_contains "$agent_err" "node_modules/: matches 'node_modules/'"
	assert_eq "$(printf '%s\n' "$agent_err" | grep -c node_modules)" 1
	land "$T/p"
	assert_eq "$(grep -c '^diff --git' "$patch")" 1
}

test_host_change_after_copy_up_is_not_undone() {
	base "$T/p"
	run_jail -D "$T/p" -- sh -c 'touch README src/main.c && echo agent >> src/lib/util.c'
	printf 'host\n' >"$T/p/README"
	printf 'host\na\nb\nc\n' >"$T/p/src/lib/util.c"
	git -C "$T/p" commit -qam "host moved on"
	run_jail status -D "$T/p"
	assert_eq "$out" "$(printf '1 file changed, +1 -0\n  M src/lib/util.c +1 -0')"
	run_jail export -D "$T/p"
	assert_not_contains "$(cat "$out")" "-hello"
	git -C "$T/p" am -3 -q "$out"
	assert_eq "$(cat "$T/p/README")" "host"
	assert_eq "$(cat "$T/p/src/lib/util.c")" "$(printf 'host\na\nb\nc\nagent')"
}

test_unreadable_files_are_left_out_not_fatal() {
	base "$T/p"
	agent "$T/p" 'echo x > locked.txt && chmod 000 locked.txt && echo y >> README && chmod 000 README &&
		mkdir -p closed && echo z > closed/f && chmod 000 closed && echo ok > ok.txt'
	assert_contains "$agent_err" "locked.txt: cannot read it: Permission denied"
	assert_contains "$agent_err" "README: cannot read it: Permission denied"
	assert_contains "$agent_err" "closed: cannot read it: Permission denied"
	land "$T/p"
	assert_eq "$(cat "$T/clone/ok.txt")" "ok"
	chmod -R u+rwx "$(session_dir "$T/p")/upper"
}

# links_stay_inside DIR: every symlink below DIR (outside .git) resolves, as the
# kernel resolves it now, to a path inside DIR (readlink -m: a dangling link is
# read as if its missing parts were plain directories).
links_stay_inside() {
	local d l r
	d=$(realpath "$1")
	while IFS= read -r -d '' l; do
		r=$(readlink -m "$l") || fail "cannot resolve the exported link $l"
		case "$r" in
		"$d" | "$d"/*) ;;
		*) fail "exported link $l resolves to $r, outside $d" ;;
		esac
	done < <(find "$d" -path "$d/.git" -prune -o -type l -print0)
}

# The three links of issue 12: each passes a check of its own text, together
# they reach the directory above the project (the user's ~/.ssh when the
# project sits in $HOME).
test_symlink_chain_out_of_the_project_left_out() {
	base "$T/p"
	mkdir -p "$T/.ssh"
	echo key >"$T/.ssh/id"
	agent "$T/p" 'echo more >> README && mkdir d && ln -s .. d/up && ln -s up/../.ssh d/ssh && ln -s d/up/.. top'
	assert_contains "$agent_err" "d/up: symlink to a directory that holds it"
	assert_contains "$agent_err" "d/ssh: symlink pointing outside the project"
	assert_contains "$agent_err" "top: symlink pointing outside the project"
	run_jail export -D "$T/p"
	assert_eq "$rc" 0 "jail export: $err"
	for l in d/up d/ssh top; do
		assert_not_contains "$(grep -E '^(diff|\+\+\+)' "$out" || true)" " b/$l"
	done
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply: $err"
	for l in d/up d/ssh top; do assert_no_file "$T/p/$l"; done
	links_stay_inside "$T/p"
}

# Links the host already had take part: a chain through a host link to the
# project root, or through a host link to /etc, or through an ignored host link
# that the jail hides, leaves the project just the same.
test_symlink_chain_through_host_links_left_out() {
	base "$T/p"
	ln -s .. "$T/p/src/root"
	ln -s /etc "$T/p/sys"
	git -C "$T/p" add src/root sys
	git -C "$T/p" commit -q -m 'host links'
	ln -s /etc "$T/p/cache.log" # ignored by the host's *.log
	agent "$T/p" 'ln -s src/root/.. esc && ln -s sys/passwd pw && ln -s cache.log/passwd pw2 &&
		ln -s src/root/README fine && mkdir -p x/y && ln -s ../../src/root/src/main.c x/y/deep'
	for l in esc pw pw2; do
		assert_contains "$agent_err" "$l: symlink pointing outside the project"
	done
	land "$T/p"
	expect_clone '^120000 \./(esc|pw|pw2) '
	assert_eq "$(readlink "$T/clone/fine")" "src/root/README"
	assert_eq "$(cat "$T/clone/x/y/deep")" "int main(void) { return 0; }"
	for l in esc pw pw2; do assert_no_file "$T/clone/$l"; done
}

# Links that stay inside go out: to a file, to a directory, through a
# directory link, through a chain; and a loop or a path through a file cannot
# be resolved, so it stays behind.
test_symlinks_resolving_inside_exported_loops_left_out() {
	base "$T/p"
	agent "$T/p" 'ln -s src/lib libdir && ln -s libdir/util.c u && ln -s u uu &&
		ln -s ../docs/index.md src/doc && ln -s src/doc d2 && ln -s not/there/yet dangling &&
		ln -s la lb && ln -s lb la && ln -s self self && ln -s README/x nd &&
		ln -s libdir/../../.. viadir && ln -s .git/hooks hk && ln -s src/../.git/config gc'
	for l in la lb self; do
		assert_contains "$agent_err" "$l: symlink that cannot be resolved safely"
	done
	assert_contains "$agent_err" "nd: symlink that cannot be resolved safely"
	assert_contains "$agent_err" "viadir: symlink pointing outside the project"
	assert_contains "$agent_err" "hk: symlink leading into .git"
	assert_contains "$agent_err" "gc: symlink leading into .git"
	land "$T/p"
	expect_clone '^120000 \./(la|lb|self|nd|viadir|hk|gc) '
	assert_eq "$(cat "$T/clone/uu")" "$(printf 'a\nb\nc')"
	assert_eq "$(cat "$T/clone/d2")" "# docs"
	links_stay_inside "$T/clone"
}

# A link that another exported link goes through, left out for a reason of its
# own: the tree after landing holds the host's version there, and the link is
# judged against that tree.
test_symlink_through_a_left_out_link_judged_against_the_host() {
	base "$T/p"
	ln -s /etc "$T/p/sub"
	git -C "$T/p" add sub
	git -C "$T/p" commit -q -m 'host link'
	agent "$T/p" 'rm sub && ln -s src sub && ln -s sub/main.c m && ln -s sub/passwd p2' \
		--export-deny sub
	assert_contains "$agent_err" "sub: matches 'sub'"
	assert_contains "$agent_err" "m: symlink pointing outside the project"
	assert_contains "$agent_err" "p2: symlink pointing outside the project"
	run_jail export -D "$T/p" --export-deny sub
	assert_eq "$rc" 0 "jail export: $err"
}

# A mixed change whose patch must stay byte for byte what jail has always written
# (tests/integration/export-mixed.golden was made by the export before issue 16
# made it stream, borrow the host's objects and skip compression): edits, new,
# deleted, renamed (deleted + added), exec bits on and off, symlinks new,
# retargeted and replacing a file, CRLF on either side, quoted names, files
# larger than one read, binary left out.  Only the commit id and the date vary.
mixed_base() {
	local d=$1
	base "$d"
	mkdir -p "$d/bin" "$d/data"
	printf '#!/bin/sh\necho tool\n' >"$d/bin/tool"
	chmod +x "$d/bin/tool"
	ln -s README "$d/lnk"
	printf 'one\r\ntwo\r\n' >"$d/win.txt"
	printf 'dos\r\nline\r\n' >"$d/dos.txt"
	printf 'gone\r\n' >"$d/gone-crlf.txt"
	seq 1 40000 | sed 's/^/row /' >"$d/data/big.txt"
	seq 1 300 >"$d/data/moved.txt"
	git -C "$d" add -A
	git -C "$d" commit -q -m mixed
}

MIXED_CHANGE='printf "hello\nagain\n" > README &&
	sed -i "s/return 0/return 1/" src/main.c &&
	echo "int n;" > src/new.c && mkdir tools && printf "#!/bin/sh\n" > tools/x.sh && chmod +x tools/x.sh &&
	rm src/lib/extra.c && mv src/lib/util.c src/lib/helpers.c &&
	mv data/moved.txt data/renamed.txt && echo 301 >> data/renamed.txt &&
	chmod +x run.sh && chmod -x bin/tool &&
	ln -s src/main.c inside && rm lnk && ln -s docs/index.md lnk &&
	rm docs/index.md && ln -s ../README docs/index.md &&
	printf "one\r\nthree\r\n" > win.txt && printf "a\r\nb\r\n" > crlf.txt &&
	printf "dos\nline\n" > dos.txt && rm gone-crlf.txt &&
	printf "\000\001bin" > blob.bin && : > empty && printf "no newline" > nonl &&
	mkdir "dir with space" && echo s > "dir with space/file name.txt" &&
	echo q > "quote\"d" && echo b > "back\\slash" &&
	sed -i "s/^row 20000$/row twenty thousand/" data/big.txt &&
	seq 1 7000 | sed "s/^/new row /" > data/new-big.txt'

# What varies between two exports of the same change: the commit id, the date.
normalize_patch() {
	sed -E -e '1s/^From [0-9a-f]{40} /From COMMIT /' -e 's/^Date: .*/Date: DATE/'
}

test_export_bytes_match_the_golden_and_host_git_untouched() {
	mixed_base "$T/p"
	agent "$T/p" "$MIXED_CHANGE"
	assert_contains "$agent_err" "blob.bin: binary content"
	local before
	before=$(tree_hash "$T/p/.git")
	run_jail export -D "$T/p" -o "$T/out"
	assert_eq "$rc" 0 "jail export: $err"
	local got
	got=$({
		echo "== export"; normalize_patch <"$out"
		echo "== summary"; sed "s|^patch: .*/out/|patch: OUT/|" "$T/out/summary"
		run_jail diff -D "$T/p" --stat; echo "== diff --stat"; printf '%s\n' "$out"
		run_jail diff -D "$T/p" --name-status; echo "== diff --name-status"; printf '%s\n' "$out"
		run_jail status -D "$T/p"; echo "== status"; printf '%s\n' "$out"
	})
	if ! cmp -s <(printf '%s\n' "$got") "$TESTS/integration/export-mixed.golden"; then
		diff -u "$TESTS/integration/export-mixed.golden" <(printf '%s\n' "$got") | head -n 40 >&2
		fail "the export differs from the golden patch"
	fi
	# the export read the host's objects (alternates) and wrote nothing there
	assert_eq "$(tree_hash "$T/p/.git")" "$before" "the host's .git after export, diff, status"
	assert_eq "$(git -C "$T/p" fsck --no-dangling --no-progress 2>&1)" "" "git fsck of the host repository"
	land "$T/p" -o "$T/out2"
	expect_clone '^100644 \./blob\.bin '
}

# Which base blobs hold '\r' is read once per session (crcache.h): the first
# export reads the blob and keeps the answer in the session, a later one takes
# it from there (shown by changing the answer: the patch follows it).
test_base_blobs_carriage_returns_are_remembered_by_the_session() {
	base "$T/p"
	printf 'dos\r\nline\r\n' >"$T/p/dos.txt"
	git -C "$T/p" add dos.txt
	git -C "$T/p" commit -q -m dos
	agent "$T/p" 'printf "dos\nline\n" > dos.txt'
	run_jail export -D "$T/p" -o "$T/out"
	assert_eq "$rc" 0 "jail export: $err"
	assert_contains "$(cat "$out")" "GIT binary patch"
	local cache blob
	cache="$(session_dir "$T/p")/base-cr"
	blob=$(git -C "$T/p" rev-parse HEAD:dos.txt)
	assert_eq "$(cat "$cache")" "$blob 1" "the session's answer for the base blob"
	printf '%s 0\n' "$blob" >"$cache"
	run_jail export -D "$T/p" -o "$T/out"
	assert_eq "$rc" 0 "jail export: $err"
	assert_not_contains "$(cat "$out")" "GIT binary patch"
	assert_contains "$(cat "$out")" "+dos"
}

# The session's answers are taken only from a regular file of sorted, well
# formed lines: a symlink (even to a file that parses), a line out of order or
# a malformed one make the export read the blob again, and the patch stays
# the one the blob's content calls for.
test_base_blobs_carriage_returns_cache_taken_only_when_well_formed() {
	base "$T/p"
	printf 'dos\r\nline\r\n' >"$T/p/dos.txt"
	git -C "$T/p" add dos.txt
	git -C "$T/p" commit -q -m dos
	agent "$T/p" 'printf "dos\nline\n" > dos.txt'
	local cache blob bad
	cache="$(session_dir "$T/p")/base-cr"
	blob=$(git -C "$T/p" rev-parse HEAD:dos.txt)
	# a wrong answer ("0") in every shape the reader must refuse
	printf '%s 0\n' "$blob" >"$T/wrong"
	for bad in symlink unsorted short uppercase; do
		rm -f "$cache"
		case $bad in
		symlink) ln -s "$T/wrong" "$cache" ;;
		unsorted) printf '%s 0\n%s 0\n' "$blob" 0000000000000000000000000000000000000000 >"$cache" ;;
		short) printf '%s 0' "$blob" >"$cache" ;;
		uppercase) printf '%s 0\n' "$(printf %s "$blob" | tr a-f A-F)" >"$cache" ;;
		esac
		run_jail export -D "$T/p" -o "$T/out"
		assert_eq "$rc" 0 "jail export ($bad cache): $err"
		assert_contains "$(cat "$out")" "GIT binary patch" "the blob read again ($bad cache)"
	done
	# the control: the same wrong answer in a well-formed file is taken
	rm -f "$cache"
	cp "$T/wrong" "$cache"
	run_jail export -D "$T/p" -o "$T/out"
	assert_not_contains "$(cat "$out")" "GIT binary patch"
}

# The throwaway repository names the host's object directory in its alternates
# file: a path with a quote and a backslash goes there C-quoted, and git must
# read it back, or fast-import would not find the base blobs.
test_export_borrows_objects_from_a_path_that_needs_quoting() {
	local d="$T/q\"uo\\te"
	base "$d"
	agent "$d" 'printf "hello\nagain\n" > README && rm src/lib/extra.c'
	run_jail export -D "$d" -o "$T/out"
	assert_eq "$rc" 0 "jail export: $err"
	assert_contains "$(cat "$out")" "+again"
	assert_contains "$(cat "$out")" "index 587be6b4c3f93f93c489c0111bba5596147a26cb..0000000"
}
