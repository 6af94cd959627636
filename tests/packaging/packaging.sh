# packaging.sh — build, install and release as a packager would.  Run by
# tests/run as root (installing a package needs it), from the checkout $SRC;
# the jail itself is then run as the unprivileged $TEST_USER.
# Each test works on a fresh clone of HEAD, so uncommitted changes in the
# checkout neither leak into nor break it.

clone_head() { # DIR: a clean clone of the checkout's HEAD
	git clone -q --no-local "$SRC" "$1"
}

# The installed binary, built for /usr/local, installed under another prefix:
# it finds its policies relative to itself; uninstall leaves nothing behind.
test_install_under_another_prefix_then_uninstall() {
	clone_head "$T/src"
	make -C "$T/src" -s >/dev/null
	make -C "$T/src" -s install PREFIX=/usr DESTDIR="$T/root" APPARMOR=no >/dev/null
	assert_file "$T/root/usr/bin/jail"
	assert_file "$T/root/usr/share/jail/apparmor/jail"
	assert_file "$T/root/usr/share/man/man5/jail.ini.5"
	local shown
	shown=$(env -i PATH=/usr/bin:/bin HOME="$T" XDG_CONFIG_HOME="$T/cfg" \
		"$T/root/usr/bin/jail" policy show -p claude -D "$T/src" 2>&1)
	assert_contains "$shown" "api.anthropic.com"
	make -C "$T/src" -s uninstall PREFIX=/usr DESTDIR="$T/root" >/dev/null
	assert_eq "$(find "$T/root" -type f -o -type l | wc -l)" 0 "files left after uninstall"
}

# CFLAGS/CPPFLAGS from the environment are added; the hardening flags stay.
test_user_flags_are_added_never_replace_hardening() {
	clone_head "$T/src"
	local lines
	lines=$(make -C "$T/src" V=1 CPPFLAGS=-DFROM_CPPFLAGS CFLAGS='-O1 -g -DFROM_CFLAGS' \
		"$(cd "$T/src" && echo build/util.o)" 2>&1)
	assert_contains "$lines" "-DFROM_CPPFLAGS"
	assert_contains "$lines" "-DFROM_CFLAGS"
	assert_contains "$lines" "-D_FORTIFY_SOURCE=3 -fstack-protector-strong"
	# the hardening comes after the user's flags, so they cannot undo it
	local cmd
	cmd=$(grep -m1 -- '-c -o build/util.o' <<<"$lines")
	[[ "$cmd" == *"-DFROM_CFLAGS"*"-D_FORTIFY_SOURCE=3"* ]] || fail "hardening not last: $cmd"
}

# make dist: the same bytes twice; the tarball builds on its own and says its
# version; its unit tests pass.
test_dist_is_reproducible_and_builds_alone() {
	clone_head "$T/src"
	make -C "$T/src" -s dist >/dev/null
	local tarball sum1 sum2 version
	tarball=$(ls "$T/src"/jail-*.tar.gz)
	sum1=$(sha256sum <"$tarball")
	rm -f "$tarball"
	touch "$T/src/README.md" # a newer mtime on disk must not change the bytes
	make -C "$T/src" -s dist >/dev/null
	sum2=$(sha256sum <"$tarball")
	assert_eq "$sum2" "$sum1" "tarball checksum of the second make dist"
	mkdir "$T/x"
	tar -xzf "$tarball" -C "$T/x"
	local dir
	dir=$(ls -d "$T"/x/jail-*)
	version=$(cat "$dir/VERSION")
	assert_eq "$(basename "$dir")" "jail-$version"
	make -C "$dir" -s all unit >/dev/null
	assert_eq "$("$dir/build/jail" --version)" "jail $version"
	local t
	for t in "$dir"/build/unit/test_util "$dir"/build/unit/test_policy "$dir"/build/unit/test_cli; do
		(cd "$dir" && "$t") >"$T/unit.log" 2>&1 || { tail -n 5 "$T/unit.log"; fail "unit test $(basename "$t") fails in the tarball"; }
	done
}

# One version everywhere a packager looks.
test_versions_agree() {
	local base deb rpm
	base=$(sed -n 's/^BASE_VERSION := //p' "$SRC/Makefile")
	deb=$(sed -n '1s/^jail (\([^)-]*\).*/\1/p' "$SRC/debian/changelog")
	rpm=$(rpmspec -q --qf '%{version}\n' "$SRC/scripts/rpm/jail.spec" 2>/dev/null | head -n 1)
	assert_eq "$deb" "$base" "debian/changelog version"
	assert_eq "$rpm" "$base" "jail.spec version"
	rpmspec -P "$SRC/scripts/rpm/jail.spec" | grep -q '^%make_install\|^make install\|DESTDIR' ||
		fail "rpmspec -P: no install step"
}

# The Debian package: builds clean, lintian-clean, installs, runs as a normal
# user, and purges to nothing.
test_debian_package_builds_installs_runs_purges() {
	[ "$(id -u)" = 0 ] || skip "installing a package needs root (run the suite as root)"
	if dpkg -s jail >/dev/null 2>&1 || [ -e /usr/bin/jail ]; then
		skip "a jail package or /usr/bin/jail is already on this machine; not touching it"
	fi
	clone_head "$T/src"
	(cd "$T/src" && dpkg-buildpackage -us -uc -b >"$T/build.log" 2>&1) ||
		{ tail -n 20 "$T/build.log"; fail "dpkg-buildpackage failed"; }
	local deb
	deb=$(ls "$T"/jail_*_*.deb)
	local tags
	tags=$(lintian --fail-on warning "$T"/jail_*.changes 2>&1 | grep -v 'running with root' || true)
	assert_eq "$tags" "" "lintian tags"
	trap 'dpkg --purge jail >/dev/null 2>&1 || true' EXIT
	dpkg -i "$deb" >/dev/null
	local listed
	listed=$(dpkg -L jail)
	chmod 0755 "$T"
	git_init "$T/proj"
	install -d "$T/state-u"
	chown -R "$TEST_USER:" "$T/proj" "$T/state-u"
	as_user() { # the test user, in an environment of its own
		(cd "$T/proj" && runuser -u "$TEST_USER" -- env -i PATH=/usr/bin:/bin \
			HOME="$(getent passwd "$TEST_USER" | cut -d: -f6)" XDG_STATE_HOME="$T/state-u" \
			XDG_CONFIG_HOME="$T/state-u/config" "$@")
	}
	local out
	out=$(as_user /usr/bin/jail -q -- sh -c 'echo inside-$(id -un)' 2>&1)
	assert_eq "$out" "inside-$TEST_USER"
	as_user /usr/bin/jail doctor >"$T/doctor" 2>&1 ||
		{ cat "$T/doctor"; fail "jail doctor from the package"; }
	as_user /usr/bin/jail policy list | grep -q claude
	man -w jail >/dev/null 2>&1 || [ -f /usr/share/man/man1/jail.1.gz ]
	dpkg --purge jail >/dev/null
	trap - EXIT
	local f left=""
	while read -r f; do
		[ -f "$f" ] || [ -L "$f" ] && left="$left $f"
	done <<<"$listed"
	assert_eq "$left" "" "files left after purge"
	assert_no_file /etc/apparmor.d/jail
	assert_no_file /usr/share/jail
}
