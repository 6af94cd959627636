# Projects and binds wherever a user keeps them: /var/tmp (a link to /tmp in
# the jail unless something lives there), paths behind a symlink on the host,
# a home behind one.  The agent's own links still stop the start
# (security/filesystem.sh).

# A directory of /var/tmp for this test, removed when it ends.
var_tmp_dir() {
	vt=$(mktemp -d /var/tmp/jail-t.XXXXXX)
	trap 'chmod -R u+rwX "$vt"; rm -rf "$vt"' EXIT
}

test_project_under_var_tmp_starts_at_its_own_path() {
	var_tmp_dir
	mkrepo "$vt/p"
	run_jail -D "$vt/p" --no-export -- sh -c 'pwd; cat README; echo more >>README
		echo scratch >/var/tmp/scratch && echo tmp-ok >/tmp/t && cat /var/tmp/scratch
		[ -e "/tmp/${PWD#/var/tmp/}" ] || echo not-in-tmp'
	assert_eq "$rc" 0 "$err"
	assert_contains "$out" "$vt/p"
	assert_contains "$out" hello
	assert_contains "$out" scratch
	assert_contains "$out" not-in-tmp
	assert_eq "$(cat "$vt/p/README")" hello "the host's tree was written"
	assert_no_file "$vt/scratch"
	assert_no_file /var/tmp/scratch
	# the session continues on the next start
	run_jail -D "$vt/p" --no-export -- cat README
	assert_eq "$rc" 0 "$err"
	assert_contains "$out" more
}

test_binds_under_var_tmp_and_other_top_directories() {
	var_tmp_dir
	mkrepo "$T/p"
	mkdir -p "$vt/ro" "$vt/rw" "$vt/cow"
	printf 'ro\n' >"$vt/ro/f"
	printf 'cow\n' >"$vt/cow/f"
	run_jail -D "$T/p" --no-export --ro "$vt/ro" --rw "$vt/rw" --cow "$vt/cow" \
		--tmpfs /var/tmp/jail-t-tmpfs --tmpfs /srv/jail-t --tmpfs /opt/jail-t \
		--tmpfs /mnt/jail-t --tmpfs /media/jail-t -- sh -c "cat '$vt/ro/f' '$vt/cow/f'
		echo w >'$vt/rw/new' && echo c >'$vt/cow/new' && ! touch '$vt/ro/no' 2>/dev/null &&
		for d in /var/tmp/jail-t-tmpfs /srv/jail-t /opt/jail-t /mnt/jail-t /media/jail-t; do
			touch \$d/x || exit 1; done && echo all-ok"
	assert_eq "$rc" 0 "$err"
	assert_contains "$out" ro
	assert_contains "$out" cow
	assert_contains "$out" all-ok
	assert_eq "$(cat "$vt/rw/new")" w "--rw write"
	assert_no_file "$vt/cow/new"
	assert_no_file "$vt/ro/no"
}

# ~/src -> /data/src: an absolute link is the host's, resolved on the host
# (through the jail's view of the host it would name nothing); the jail shows
# each at the path as named.
test_binds_through_an_absolute_symlink_on_the_host() {
	mkrepo "$T/p"
	mkdir -p "$T/real/ro" "$T/real/rw" "$T/real/cow"
	ln -s "$T/real" "$T/abs"
	printf 'ro\n' >"$T/real/ro/f"
	printf 'cow\n' >"$T/real/cow/f"
	run_jail -D "$T/p" --no-export --ro "$T/abs/ro" --rw "$T/abs/rw" --cow "$T/abs/cow" \
		-- sh -c "cat '$T/abs/ro/f' '$T/abs/cow/f' && echo w >'$T/abs/rw/new' &&
		echo c >'$T/abs/cow/new' && echo done"
	assert_eq "$rc" 0 "$err"
	assert_contains "$out" ro
	assert_contains "$out" cow
	assert_contains "$out" done
	assert_eq "$(cat "$T/real/rw/new")" w "--rw write"
	assert_no_file "$T/real/cow/new"
}

# HOME=/home/u with /home -> /usr/home: the state dir, the project, the
# persistent home, copies and binds all lie behind an absolute link.
test_home_behind_an_absolute_symlink() {
	mkdir -p "$T/realhome/.cache/pip" "$T/realhome/.config/tool" "$T/realhome/.local/state"
	ln -s "$T/realhome" "$T/home"
	export HOME=$T/home XDG_STATE_HOME=$T/home/.local/state
	mkrepo "$HOME/p"
	printf 'npm\n' >"$HOME/.npmrc"
	printf 'pip\n' >"$HOME/.cache/pip/c"
	printf 'rc\n' >"$HOME/.config/tool/rc"
	cd "$HOME/p"
	run_jail --no-export --home persistent --copy '~/.npmrc' --cow '~/.cache/pip' \
		--ro '~/.config/tool' --ro '~/.local' -- sh -c 'echo "$HOME"; cat ~/.npmrc
		cat ~/.cache/pip/c ~/.config/tool/rc README; touch ~/kept ~/.cache/pip/new
		ls -A ~/.local/state/jail | wc -l'
	assert_eq "$rc" 0 "$err"
	assert_contains "$out" "$T/home"
	assert_contains "$out" npm
	assert_contains "$out" pip
	assert_contains "$out" rc
	assert_contains "$out" hello
	assert_eq "$(printf '%s\n' "$out" | tail -n 1)" 0 "the state dir is covered inside"
	assert_no_file "$T/realhome/kept"
	assert_no_file "$T/realhome/.cache/pip/new"
	run_jail --no-export --home persistent -- ls "$T/home"
	assert_eq "$rc" 0 "$err"
	assert_contains "$out" kept
}

# /bin -> usr/bin on a merged-/usr host: the jail has the same link (copied
# from the host's /), and a bind through it lands where the link leads.
test_bind_through_a_link_of_the_hosts_root() {
	[ -L /bin ] && [ -x /bin/sh ] || skip "/bin is no symlink here"
	mkrepo "$T/p"
	run_jail -D "$T/p" --no-export --ro /bin/sh -- sh -c 'test -x /bin/sh && echo bound'
	assert_eq "$rc" 0 "$err"
	assert_contains "$out" bound
}
