# Real-shaped projects built and tested inside the jail as on the host, with
# the toolchains this machine already has and the network off: each test is a
# difference found between a build inside and the same build on the host.
# A test whose toolchain is missing skips.

# go_module DIR: a small Go module with a package, a test and a command.
go_module() {
	git_init "$1"
	printf 'module example.com/demo\n\ngo 1.19\n' >"$1/go.mod"
	printf 'package demo\n\nfunc Add(a, b int) int { return a + b }\n' >"$1/demo.go"
	printf 'package demo\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 2) != 4 {\n\t\tt.Fatal("2+2")\n\t}\n}\n' \
		>"$1/demo_test.go"
	git -C "$1" add . && git -C "$1" commit -q -m go
}

# The go build cache lives in the home: with -p go it is kept between runs,
# so the second `go test` is a cache hit as on the host, not a rebuild of the
# standard library and every dependency.
test_go_build_cache_is_kept_between_runs() {
	command -v go >/dev/null || skip "no go (scripts/setup installs golang-go)"
	go_module "$T/p"
	HOME="$T/home" run_jail -D "$T/p" --no-export -p go -- go test ./...
	assert_eq "$rc" 0 "first go test: $out $err"
	assert_not_contains "$out" "(cached)"
	HOME="$T/home" run_jail -D "$T/p" --no-export -p go -- go test ./...
	assert_eq "$rc" 0 "second go test: $out $err"
	assert_contains "$out" "(cached)"
}

# `git submodule add` of a local repository inside: on the host git records
# the submodule as one entry, never its files; the export leaves the new
# repository's files out of the superproject's patch the same way, instead of
# adding them to the project as if they were its own.
test_submodule_added_inside_is_not_exported_as_project_files() {
	git_init "$T/lib"
	printf 'lib\n' >"$T/lib/lib.txt"
	git -C "$T/lib" add . && git -C "$T/lib" commit -q -m lib
	mkrepo "$T/p"
	run_jail -D "$T/p" --ro "$T/lib" -- sh -c "cd '$T/p' &&
		git -c protocol.file.allow=always submodule add -q '$T/lib' vendor/lib &&
		git submodule status && printf 'more\n' >>README"
	assert_eq "$rc" 0 "submodule add inside: $err"
	assert_contains "$out" "vendor/lib"
	local patches
	patches=$(cat "$(session_dir "$T/p")"/patches/*.patch)
	assert_contains "$patches" "+more"
	assert_contains "$patches" "vendor/lib/: a git repository of its own"
	assert_not_contains "$patches" "lib.txt"
	assert_not_contains "$patches" "vendor/lib/.git"
	git -C "$T/p" am -q "$(session_dir "$T/p")"/patches/*.patch
	assert_no_file "$T/p/vendor/lib/lib.txt"
	assert_eq "$(tail -n 1 "$T/p/README")" "more"
}

# A Debian-packaged project checks its build dependencies against the
# package database (dpkg-buildpackage runs dpkg-checkbuilddeps first): the
# database is there read-only, as on the host, so the check passes inside.
test_debian_build_dependency_check_passes_inside() {
	command -v dpkg-checkbuilddeps >/dev/null && dpkg-query -W dpkg >/dev/null 2>&1 ||
		skip "no dpkg-dev and dpkg database (a Debian host)"
	git_init "$T/p"
	mkdir -p "$T/p/debian"
	printf 'Source: demo\nMaintainer: T <t@example.com>\nBuild-Depends: dpkg (>= 1.0)\n\nPackage: demo\nArchitecture: all\nDescription: demo\n demo\n' \
		>"$T/p/debian/control"
	git -C "$T/p" add . && git -C "$T/p" commit -q -m deb
	(cd "$T/p" && dpkg-checkbuilddeps) || fail "the check on the host"
	run_jail -D "$T/p" --no-export -- sh -c 'dpkg-checkbuilddeps && echo deps-ok &&
		touch /var/lib/dpkg/status 2>/dev/null || echo read-only'
	assert_eq "$rc" 0 "inside: $err"
	assert_eq "$out" "$(printf 'deps-ok\nread-only')"
}

# A dev server told to listen on "localhost" (Vite's default; here
# python -m http.server --bind localhost) takes the first address the name
# has inside: it must be 127.0.0.1, where --publish brings the host's
# 127.0.0.1:PORT in, not ::1, where nothing from the host arrives.
test_dev_server_on_localhost_is_reached_through_publish() {
	command -v pasta >/dev/null || skip "no pasta (Debian package passt)"
	local in_port=$((20000 + RANDOM % 10000)) host_port got=""
	host_port=$(free_port)
	mkdir -p "$T/p"
	mkfifo "$T/in"
	"$JAIL" -D "$T/p" --no-export --publish "$in_port:$host_port" -- sh -c "
		mkdir /tmp/w && echo dev-server >/tmp/w/index.html && cd /tmp/w &&
		{ python3 -m http.server $in_port --bind localhost >/dev/null 2>&1 & } &&
		read -r _; kill \$!" <"$T/in" >/dev/null 2>"$T/e" &
	exec 7>"$T/in"
	fetch() { got=$(curl -s -m 2 "http://127.0.0.1:$host_port/index.html"); }
	wait_for -t 60 fetch || true
	exec 7>&-
	wait || true
	assert_eq "$got" dev-server "served on localhost inside, fetched from the host: $(cat "$T/e")"
}

# A project's check of an XML file against its DTD with the network off
# (xmllint --nonet, as meson and make checks of polkit policies or DocBook
# docs run it) resolves the DTD through the system's XML catalog in
# /etc/xml, as on the host.
test_xml_validation_offline_uses_the_system_catalog() {
	local dtd=http://www.freedesktop.org/standards/PolicyKit/1.0/policyconfig.dtd
	command -v xmllint >/dev/null && command -v xmlcatalog >/dev/null &&
		xmlcatalog /etc/xml/catalog "$dtd" 2>/dev/null | grep -q '^file:' ||
		skip "no xmllint or no polkit DTD in /etc/xml/catalog"
	git_init "$T/p"
	{
		echo '<?xml version="1.0" encoding="UTF-8"?>'
		echo '<!DOCTYPE policyconfig PUBLIC "-//freedesktop//DTD PolicyKit Policy Configuration 1.0//EN"'
		echo " \"$dtd\">"
		echo '<policyconfig><action id="org.example.demo.run"><description>Run</description>'
		echo '<message>Run demo</message><defaults><allow_active>auth_admin</allow_active>'
		echo '</defaults></action></policyconfig>'
	} >"$T/p/demo.policy"
	git -C "$T/p" add . && git -C "$T/p" commit -q -m policy
	xmllint --nonet --noout --valid "$T/p/demo.policy" || fail "the check on the host"
	run_jail -D "$T/p" --no-export -- xmllint --nonet --noout --valid demo.policy
	assert_eq "$rc" 0 "xmllint inside: $err"
}

# A project with a local dependency beside it (npm's file:../lib, a path
# dependency): a second -D does not add ../lib, it is refused with the way
# to show it (before, the last -D silently replaced the first); --ro shows it.
test_second_project_dir_is_refused_and_ro_shows_a_sibling() {
	git_init "$T/app"
	mkdir -p "$T/lib"
	printf 'lib-content\n' >"$T/lib/index.js"
	printf 'app\n' >"$T/app/README" && git -C "$T/app" add . && git -C "$T/app" commit -q -m app
	expect_fail125 -D "$T/lib" -D "$T/app" -- true
	assert_contains "$err" "-D given twice"
	assert_contains "$err" "--ro"
	run_jail -D "$T/app" -D "$T/app" --no-export --ro "$T/lib" -- cat "$T/lib/index.js"
	assert_eq "$rc" 0 "the same -D twice, and --ro for the sibling: $err"
	assert_eq "$out" lib-content
}

# The locale's variables beyond LANG come in: a project whose tests expect
# output in the host's locale (LC_ALL=C in a CI script, LC_COLLATE=C for a
# sort order) counts and sorts inside as on the host.
test_locale_variables_pass_as_on_the_host() {
	mkdir -p "$T/p"
	local count='printf "\303\251" | wc -m'
	assert_eq "$(LANG=C.UTF-8 LC_ALL=C sh -c "$count")" 2 "bytes in the C locale on the host"
	LANG=C.UTF-8 LC_ALL=C run_jail -D "$T/p" --no-export -- sh -c "$count"
	assert_eq "$rc" 0 "$err"
	assert_eq "$out" 2 "LC_ALL=C inside"
	LANG=C.UTF-8 LC_CTYPE=C LC_COLLATE=C run_jail -D "$T/p" --no-export -- sh -c \
		'echo "$LC_CTYPE $LC_COLLATE"'
	assert_eq "$out" "C C"
}

# A .venv made on the host with a Python that pyenv or uv installed in the
# home links its interpreter there: with -p python that Python is there,
# read-only, so the project's .venv runs its tests inside as on the host.
test_venv_of_a_pyenv_or_uv_python_runs_with_policy_python() {
	local h="$T/home" v
	for v in .pyenv/versions/3.99.0 .local/share/uv/python/cpython-3.99.0-linux; do
		mkdir -p "$h/$v/bin"
		printf '#!/bin/sh\nexec python3 "$@"\n' >"$h/$v/bin/python3"
		chmod +x "$h/$v/bin/python3"
	done
	git_init "$T/p"
	printf '.venv/\nvenv/\n' >"$T/p/.gitignore"
	git -C "$T/p" add . && git -C "$T/p" commit -q -m py
	# the links `python -m venv` makes, to each interpreter
	mkdir -p "$T/p/.venv/bin" "$T/p/venv/bin"
	ln -s "$h/.pyenv/versions/3.99.0/bin/python3" "$T/p/.venv/bin/python"
	ln -s "$h/.local/share/uv/python/cpython-3.99.0-linux/bin/python3" "$T/p/venv/bin/python"
	HOME="$h" run_jail -D "$T/p" --no-export -p python -- sh -c \
		'.venv/bin/python -c "print(6 * 7)" && venv/bin/python -c "print(7 * 6)" &&
		{ touch ~/.pyenv/versions/x 2>/dev/null || echo read-only; }'
	assert_eq "$rc" 0 "the venvs inside: $err"
	assert_eq "$out" "$(printf '42\n42\nread-only')"
}

# The host's global ignore rules (~/.config/git/ignore, or the file
# core.excludesFile names) hold for git inside: a .venv the agent makes,
# ignored on the host only by them, is not listed by `git status` inside,
# so `git add -A` does not commit it.  A link there is not followed.
test_global_git_ignore_rules_hold_inside() {
	local h="$T/home" xdg=${XDG_CONFIG_HOME:-$T/home/.config}
	mkdir -p "$xdg/git" "$h"
	printf '.venv/\n' >"$xdg/git/ignore"
	git_init "$T/p"
	printf 'a\n' >"$T/p/a" && git -C "$T/p" add a && git -C "$T/p" commit -q -m a
	local probe='mkdir -p .venv && echo x >.venv/pyvenv.cfg && echo b >b && git status --porcelain'
	HOME="$h" run_jail -D "$T/p" --no-export -- sh -c "$probe"
	assert_eq "$rc" 0 "$err"
	assert_eq "$out" "?? b" "git status inside, global ignore file at git's default place"
	# core.excludesFile naming another file: its rules, at the place git reads inside
	mv "$xdg/git/ignore" "$h/.gitignore_global"
	printf '[core]\n\texcludesFile = ~/.gitignore_global\n' >"$h/.gitconfig"
	HOME="$h" run_jail -D "$T/p" --no-export -s two -- sh -c "$probe"
	assert_eq "$out" "?? b" "git status inside, core.excludesFile"
	# a link in its place is not followed: nothing of the file it names comes in
	printf 'canary-secret\n' >"$h/secret"
	ln -sf "$h/secret" "$h/.gitignore_global"
	HOME="$h" run_jail -D "$T/p" --no-export -s three -- sh -c 'cat ~/.config/git/ignore 2>&1 || true'
	assert_not_contains "$out" canary-secret
}

# A toolchain in the home (rustup's ~/.cargo/bin) is not in the jail without
# its policy: the hint names the policy, which binds the toolchain with what
# it needs besides (~/.rustup), not a bind of the one directory, and the tool
# runs with it.
test_command_of_a_home_toolchain_hints_its_policy() {
	local h="$T/home"
	mkdir -p "$h/.cargo/bin" "$T/p"
	printf '#!/bin/sh\necho fake-cargo runs\n' >"$h/.cargo/bin/fake-cargo"
	chmod +x "$h/.cargo/bin/fake-cargo"
	HOME="$h" PATH="$h/.cargo/bin:$PATH" run_jail -D "$T/p" --no-export -- fake-cargo
	assert_eq "$rc" 127 "$err"
	assert_contains "$err" "on the host it is ~/.cargo/bin/fake-cargo: add -p rust"
	HOME="$h" PATH="$h/.cargo/bin:$PATH" run_jail -D "$T/p" --no-export -p rust -- fake-cargo
	assert_eq "$rc" 0 "$err"
	assert_eq "$out" "fake-cargo runs"
}
