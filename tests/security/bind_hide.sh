# The escape suite: hidden files under a --ro or --rw of a directory inside
# the project.  Such a bind shows the host's directory as it is, over the
# project's view: its ignored files are there on purpose (node_modules,
# target), but a secret-shaped name below it stays covered unless --show
# names it.  Each test of a hole fails on the build before its fix.
source "$TESTS/security/helpers.bash"

# A project whose .gitignore hides .env, *.key, build/ and secrets/; its
# directory sub/ holds secrets of every shape and build output.
bind_repo() {
	git_init "$T/p"
	printf '.env\n*.key\nbuild/\nsecrets/\n' >"$T/p/.gitignore"
	mkdir -p "$T/p/sub/build" "$T/p/sub/secrets" "$T/p/sub/deep/er" "$T/p/other"
	printf 'hello\n' >"$T/p/sub/a.txt"
	git -C "$T/p" add .gitignore sub/a.txt
	git -C "$T/p" commit -q -m init
	printf 'SECRET=canary-sub-env\n' >"$T/p/sub/.env"
	printf 'canary-server-pem\n' >"$T/p/sub/SERVER.PEM"
	printf 'canary-deep-key\n' >"$T/p/sub/deep/er/id_rsa"
	printf 'canary-secrets-dir\n' >"$T/p/sub/secrets/token.txt"
	printf 'obj\n' >"$T/p/sub/build/out.o"
	printf 'SECRET=canary-build-env\n' >"$T/p/sub/build/.env"
	printf 'SECRET=canary-other-env\n' >"$T/p/other/.env"
	printf 'canary-top-key\n' >"$T/p/top.key"
}

# Everything below sub/ read back, every file printed.
READ_ALL='cd sub && find . -type f -exec cat {} + 2>/dev/null; ls -a . secrets build; true'

# --ro sub: the ignored build output is shown (the reason to bind it), the
# secret-shaped names are there but empty, and a secret-named directory
# (secrets/) is an empty directory.
test_ro_inside_the_project_covers_secret_shaped_names() {
	bind_repo
	run_jail -q --ro "$T/p/sub" -D "$T/p" -- sh -c "$READ_ALL"
	assert_contains "$out" hello # tracked
	assert_contains "$out" obj   # ignored, shown under the bind
	assert_contains "$out" SERVER.PEM # there, as the host has it, but empty
	assert_eq "$(grep -c canary <<<"$out")" 0 "secrets read under --ro sub"
}

# --rw sub: the same, and a covered file can be neither written, removed
# nor renamed (it would be the host's); the rest is written on the host.
test_rw_inside_the_project_covers_and_keeps_the_covers() {
	bind_repo
	run_jail -q --rw "$T/p/sub" -D "$T/p" -- sh -c "$READ_ALL"'
		echo new >build/new.o
		echo x >.env || echo write-refused
		rm -f .env || echo rm-refused
		mv .env moved || echo mv-refused
		echo y >secrets/t2 || echo dir-refused
		chmod 644 .env 2>&1 | grep -q "Read-only file system" && echo cover-read-only'
	assert_contains "$out" obj
	assert_eq "$(grep -c canary <<<"$out")" 0 "secrets read under --rw sub"
	assert_contains "$out" write-refused
	assert_contains "$out" rm-refused
	assert_contains "$out" mv-refused
	assert_contains "$out" dir-refused
	assert_contains "$out" cover-read-only # not only its mode: chmod would undo that
	assert_eq "$(cat "$T/p/sub/build/new.o")" new "what --rw wrote on the host"
	assert_eq "$(cat "$T/p/sub/.env")" SECRET=canary-sub-env "the host's .env"
	assert_no_file "$T/p/sub/secrets/t2"
}

# The policy file's [fs] ro = and rw = are the same binds.
test_policy_binds_inside_the_project_cover_too() {
	bind_repo
	mkdir -p "$T/config/jail"
	printf '[fs]\nro = %s\nrw = %s\n' "$T/p/sub/deep" "$T/p/sub/build" \
		>"$T/config/jail/jail.ini"
	run_jail -q -D "$T/p" -- sh -c 'cat sub/deep/er/id_rsa sub/build/.env sub/build/out.o; true'
	assert_contains "$out" obj
	assert_eq "$(grep -c canary <<<"$out")" 0 "secrets read under the policy's binds"
}

# --show names a secret: it comes in under the bind as in the view.
test_show_lets_a_covered_name_in() {
	bind_repo
	run_jail -q --ro "$T/p/sub" --show sub/.env -D "$T/p" -- sh -c 'cat sub/.env sub/SERVER.PEM; true'
	assert_contains "$out" canary-sub-env
	assert_not_contains "$out" canary-server-pem
}

# Links in the bound directory resolve in the jail: to a cover, or to the
# project's view, which hides what it hides (a link to a secret elsewhere in
# the project, relative or absolute, or to another bind's).
test_links_in_the_bind_lead_to_covers_or_the_view() {
	bind_repo
	ln -s .env "$T/p/sub/l-same"
	ln -s ../top.key "$T/p/sub/l-rel"
	ln -s "$T/p/other/.env" "$T/p/sub/l-abs"
	ln -s deep/er "$T/p/sub/l-dir"
	run_jail -q --ro "$T/p/sub" -D "$T/p" -- sh -c \
		'cat sub/l-same sub/l-rel sub/l-abs sub/l-dir/id_rsa sub/a.txt; true'
	assert_contains "$out" hello
	assert_eq "$(grep -c canary <<<"$out")" 0 "secrets read through links in the bind"
}

# A bind inside a bind: each is covered after it is mounted.
test_a_bind_inside_a_bind_is_covered_too() {
	bind_repo
	run_jail -q --ro "$T/p/sub" --rw "$T/p/sub/build" -D "$T/p" -- sh -c \
		'cat sub/build/.env sub/build/out.o sub/.env; true'
	assert_contains "$out" obj
	assert_eq "$(grep -c canary <<<"$out")" 0 "secrets read under nested binds"
}

# A bind of the project itself would replace the whole view (every ignored
# file, and --rw writes the host's tree with no patch to review): refused.
test_a_bind_of_the_project_itself_is_refused() {
	bind_repo
	expect_fail125 --ro "$T/p" -D "$T/p" -- cat sub/.env
	assert_contains "$err" "is the project itself"
	assert_not_contains "$out" canary
	expect_fail125 --rw "$T/p/" -D "$T/p" -- cat sub/.env
	assert_not_contains "$out" canary
}

# A link on the way to a directory that holds the project: the bind shows
# the project's host directory at another path, where the project's own
# view now stands.
test_a_link_on_the_way_to_a_parent_shows_the_view_there() {
	git_init "$T/d/p"
	printf '.env\n' >"$T/d/p/.gitignore"
	printf 'hello\n' >"$T/d/p/README"
	git -C "$T/d/p" add .gitignore README
	git -C "$T/d/p" commit -q -m init
	printf 'SECRET=canary-aliased\n' >"$T/d/p/.env"
	ln -s . "$T/L"
	run_jail -q --ro "$T/L/d" -D "$T/d/p" -- sh -c "cat '$T/L/d/p/README' '$T/L/d/p/.env'; true"
	assert_contains "$out" hello
	assert_not_contains "$out" canary-aliased
}

# The start says in one line what such a bind shows, and for --rw that it
# writes the host.
test_the_start_says_what_a_bind_inside_the_project_shows() {
	bind_repo
	run_jail --rw "$T/p/sub/build" --ro "$T/p/sub/deep" -D "$T/p" -- true
	assert_eq "$rc" 0
	assert_contains "$err" "--rw $T/p/sub/build shows the host's directory as it is"
	assert_contains "$err" "written on the host"
	assert_eq "$(grep -c "shows the host's directory" <<<"$err")" 2 "lines about the binds"
	run_jail -q --rw "$T/p/sub/build" -D "$T/p" -- true
	assert_eq "$err" "" "what -q prints"
}

# A tree deeper than the walk looks fails the start: nothing below it is
# shown unlooked-at.
test_a_bind_too_deep_to_look_through_is_refused() {
	bind_repo
	local d="$T/p/sub/build" i
	for i in $(seq 1 140); do d="$d/d"; done
	mkdir -p "$d"
	printf 'SECRET=canary-deep-down\n' >"$d/.env"
	run_jail -q --ro "$T/p/sub/build" -D "$T/p" -- sh -c "cat '$d/.env'; true"
	assert_eq "$rc" 125 "exit status"
	assert_contains "$err" "levels of directories"
	assert_not_contains "$out" canary
}

# A repository inside the bound directory (a clone in vendor/) shows its
# config as the host has it, where the view withholds the credentials in
# it: under the bind too, git reads a copy without them.
test_git_credentials_under_a_bind_are_withheld() {
	bind_repo
	git_init "$T/p/sub/build/lib"
	git -C "$T/p/sub/build/lib" remote add origin "https://u:canaryBIND55@example.com/lib.git"
	git -C "$T/p/sub/build/lib" commit -q --allow-empty -m first
	git -C "$T/p/sub/build/lib" branch secrets/x # git's own names are not covered
	run_jail -q --rw "$T/p/sub/build" -D "$T/p" -- sh -c \
		'cd sub/build/lib && git remote -v; cat .git/config; git config --get remote.origin.url
		git branch --list "secrets/*"; git log --format=%s secrets/x; true'
	assert_contains "$out" example.com/lib.git # the positive control: the remote is there
	assert_not_contains "$out" canaryBIND55
	assert_contains "$out" "secrets/x"
	assert_contains "$out" first
}

# What --hide names (tracked or not) is covered under a bind too.
test_hide_patterns_hold_under_a_bind() {
	bind_repo
	printf 'canary-hidden-notes\n' >"$T/p/sub/notes.txt"
	run_jail -q --ro "$T/p/sub" --hide sub/notes.txt --hide a.txt -D "$T/p" -- sh -c \
		'cat sub/notes.txt sub/a.txt sub/build/out.o; true'
	assert_contains "$out" obj
	assert_not_contains "$out" canary-hidden-notes
	assert_not_contains "$out" hello # a.txt, tracked, hidden by its name
}

# A bind inside a directory another bind covers (a secret-shaped name on
# the way) could not get its mount point there: one line says which and how.
test_a_bind_inside_a_covered_directory_is_refused_clearly() {
	bind_repo
	mkdir -p "$T/p/sub/secrets/keep"
	printf 'kept\n' >"$T/p/sub/secrets/keep/k.txt"
	expect_fail125 --ro "$T/p/sub" --rw "$T/p/sub/secrets/keep" -D "$T/p" -- cat sub/secrets/keep/k.txt
	assert_contains "$err" "lies in sub/secrets, which --ro $T/p/sub covers"
	run_jail -q --ro "$T/p/sub" --rw "$T/p/sub/secrets/keep" --show sub/secrets -D "$T/p" -- \
		cat sub/secrets/keep/k.txt
	assert_eq "$out" kept "with --show, as the message says"
}
