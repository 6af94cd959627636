# The escape suite: the filesystem (threats 1 and 2 in DESIGN.md).
source "$TESTS/security/helpers.bash"

test_host_home_secrets_unreadable() {
	probe_setup
	mkdir -p "$T/hosthome/.ssh"
	echo canary-ssh-key-5150 >"$T/hosthome/.ssh/id_ed25519"
	HOME="$T/hosthome" jp -- read "$T/hosthome/.ssh/id_ed25519"
	assert_eq "$rc" "$ENOENT" "host ~/.ssh/id_ed25519 inside"
	assert_not_contains "$out" canary-ssh-key
	HOME="$T/hosthome" jp -- ls "$T/hosthome"
	assert_not_contains "$out" .ssh
	# positive control: the probe reads what is there (the project)
	jp -- read "$T/p/README"
	assert_eq "$out" hello
}

# A home inside a directory bound into the jail (HOME=/home/u with /home ->
# /usr/home shows it through the /usr bind; here a --ro of its parent, with
# HOME spelled as the home is, through a link, and through a link the bind
# shows): the real home never shows there, the fake one does; a part of the
# home bound by name still shows.
test_real_home_covered_inside_a_bind_that_holds_it() {
	probe_setup
	mkdir -p "$T/top/home/u/.ssh" "$T/top/home/u/.config/tool" "$T/top/other"
	echo canary-ssh-key-7231 >"$T/top/home/u/.ssh/id_ed25519"
	printf 'tool-rc\n' >"$T/top/home/u/.config/tool/rc"
	printf 'other\n' >"$T/top/other/f"
	ln -s "$T/top/home/u" "$T/h"
	ln -s home/u "$T/top/h"
	for home in "$T/top/home/u" "$T/h" "$T/top/h"; do
		HOME=$home jp --ro "$T/top" -- read "$T/top/home/u/.ssh/id_ed25519"
		assert_eq "$rc" "$ENOENT" "real ~/.ssh through the bind of its parent (HOME=$home)"
		assert_not_contains "$out" canary-ssh-key
		# (a bind spelled through a link that another bind shows is refused:
		# the real path is named then)
		tool='~/.config/tool'
		[ "$home" != "$T/top/h" ] || tool=$T/top/home/u/.config/tool
		HOME=$home run_jail -q -D "$T/p" --ro "$T/top" --ro "$tool" -- sh -c \
			"ls -A '$T/top/home/u'; cat '$T/top/other/f' $tool/rc
			echo w >~/w && cat ~/w"
		assert_eq "$rc" 0 "$err"
		assert_not_contains "$out" .ssh
		assert_contains "$out" other
		assert_contains "$out" tool-rc
		assert_contains "$out" w
	done
	assert_no_file "$T/top/home/u/w"
	# positive control: the same read on the host
	out=$(hp read "$T/top/home/u/.ssh/id_ed25519")
	assert_contains "$out" canary-ssh-key
}

# The project in a home inside a bound directory: the bind is made first, so
# the project is still the jail's view of it (its overlay, ignored files
# hidden), not the host's tree through the bind; the state dir in that home
# stays covered.
test_project_in_a_home_inside_a_bind_keeps_its_view() {
	mkdir -p "$T/top/home/u/.ssh"
	echo canary-ssh-key-7232 >"$T/top/home/u/.ssh/id_ed25519"
	export HOME=$T/top/home/u XDG_STATE_HOME=$T/top/home/u/.local/state
	mkrepo "$HOME/p"
	run_jail -q -D "$HOME/p" --no-export --ro "$T/top" -- sh -c 'pwd; cat README
		echo new >made && cat made; ls -A; ls -A ~/.local/state 2>&1
		cat ~/.ssh/id_ed25519 2>&1; echo end'
	assert_eq "$rc" 0 "$err"
	assert_contains "$out" hello
	assert_contains "$out" new
	assert_contains "$out" end
	assert_not_contains "$out" .env
	assert_not_contains "$out" canary-ssh-key
	assert_no_file "$HOME/p/made"
	[ -d "$XDG_STATE_HOME/jail" ] || fail "positive control: the state dir exists on the host"
}

# A linked worktree's repository under a --ro bind that holds it: the bind
# is made first, so its git dir is still the jail's copy with credentials
# withheld, not the host's config through the bind.
test_worktree_repository_inside_a_bind_keeps_credentials_withheld() {
	mkrepo "$T/repos/main"
	git -C "$T/repos/main" remote add origin "https://x-access-token:ghp_canaryTOKEN78@github.com/me/app.git"
	git -C "$T/repos/main" worktree add -q "$T/wt" -b side
	run_jail -q -D "$T/wt" --no-export --ro "$T/repos" -- sh -c "cat '$T/repos/main/.git/config'
		git remote get-url origin; cat '$T/repos/main/README'"
	assert_eq "$rc" 0 "$err"
	assert_not_contains "$out" canary
	assert_contains "$out" "https://github.com/me/app.git"
	assert_contains "$out" hello
}

test_run_user_sockets_absent() {
	jp -- ls "/run/user/$(id -u)"
	assert_eq "$rc" "$ENOENT" "/run/user/UID inside"
	jp -- ls /run
	assert_eq "$rc" 0 "positive control: /run itself lists"
	assert_not_contains "$out" user
}

test_other_users_files() {
	jp -- read /etc/shadow
	assert_ne "$rc" 0 "/etc/shadow"
	jp -- ls /root
	assert_ne "$rc" 0 "/root"
	jp -- read /etc/passwd
	assert_eq "$rc" 0 "positive control: a world-readable system file"
}

test_remount_usr_rw_and_write_refused() {
	jp -- remount /usr
	assert_eq "$rc" "$EPERM" "remount /usr"
	jp -- create /usr/bin/jail-canary x
	assert_ne "$rc" 0 "create in /usr/bin"
	[ ! -e /usr/bin/jail-canary ] || fail "file appeared on the host"
	jp -- create "$T/p/new-file" x
	assert_eq "$rc" 0 "positive control: the project is writable"
}

test_unmount_masks_refused() {
	jp -- sys umount2
	assert_eq "$rc" "$EPERM" "umount /proc"
	jp -- read "$T/p/.env"
	assert_eq "$rc" "$ENOENT" "the hidden .env stays hidden"
	assert_not_contains "$out" canary-env
	jp -- read "$T/p/main.py"
	assert_eq "$rc" 0 "positive control: tracked file"
}

test_no_capability_xattr_or_foreign_setuid_in_upper() {
	probe_setup
	run_jail -q --ro "$T/bin" -D "$T/p" -- sh -c "cp /bin/true ./t && chmod 4755 ./t &&
		$T/bin/probe setcap ./t; echo cap=\$?;
		$T/bin/probe setxattr ./t security.capability; echo bad=\$?"
	assert_contains "$out" "cap=$EPERM"
	assert_contains "$out" "bad=$EINVAL" # positive control: the call reaches the kernel
	up="$(session_dir "$T/p")/upper"
	[ -e "$up/t" ] || fail "positive control: the copy is in the upper dir"
	assert_eq "$(stat -c %u "$up/t")" "$(id -u)" "owner of a setuid file in upper"
	assert_eq "$(getfattr -n security.capability "$up/t" 2>/dev/null | grep -c capability)" 0
	host_safe
}

test_overlay_xattrs_refused() {
	probe_setup
	run_jail -q --ro "$T/bin" -D "$T/p" -- sh -c "mkdir d;
		$T/bin/probe setxattr d user.overlay.opaque; echo opaque=\$?;
		$T/bin/probe setxattr d trusted.overlay.opaque; echo trusted=\$?;
		$T/bin/probe setxattr d user.harmless; echo user=\$?"
	# overlayfs (6.7+) stores an overlay xattr set from inside escaped, as
	# user.overlay.overlay.*: the upper dir must not carry the real one
	assert_not_contains "$out" "trusted=0"
	assert_contains "$out" "user=0"
	up="$(session_dir "$T/p")/upper"
	xattrs=$(getfattr -d -m - "$up/d" 2>/dev/null)
	assert_contains "$xattrs" "user.harmless" # positive control: xattrs reach the upper
	assert_eq "$(grep -c '^user.overlay.opaque=' <<<"$xattrs")" 0 "real opaque xattr in upper"
	assert_eq "$(grep -c '^trusted.overlay' <<<"$xattrs")" 0 "trusted overlay xattr in upper"
	host_safe
}

test_session_state_dirs_invisible() {
	probe_setup
	run_jail -q -D "$T/p" -- true
	sd=$(session_dir "$T/p")
	[ -d "$sd/upper" ] || fail "positive control: the session's upper exists on the host"
	jp -- ls "$sd"
	assert_eq "$rc" "$ENOENT" "session dir inside"
	jp -- ls "$XDG_STATE_HOME"
	assert_eq "$rc" "$ENOENT" "state home inside"
}

test_cgroupfs_write_refused() {
	jp -- write /sys/fs/cgroup/cgroup.procs 1
	assert_ne "$rc" 0 "/sys/fs/cgroup write"
	jp -- create /sys/fs/cgroup/escape x
	assert_ne "$rc" 0 "/sys/fs/cgroup create"
}

test_proc_sys_write_refused() {
	jp -- write /proc/sys/kernel/hostname evil
	assert_ne "$rc" 0 "/proc/sys/kernel/hostname"
	[ "$(cat /proc/sys/kernel/hostname)" != evil ] || fail "host hostname changed"
	jp -- read /proc/sys/kernel/hostname
	assert_eq "$rc" 0 "positive control: /proc/sys readable"
}

test_core_pattern_unchanged() {
	before=$(cat /proc/sys/kernel/core_pattern)
	jp -- write /proc/sys/kernel/core_pattern "|$T/p/pwn"
	assert_ne "$rc" 0 "core_pattern write"
	assert_eq "$(cat /proc/sys/kernel/core_pattern)" "$before" "host core_pattern"
}

test_core_dumps_off() {
	probe_setup
	run_jail -q -D "$T/p" -- sh -c 'ulimit -c; ulimit -c unlimited 2>/dev/null; echo raise=$?'
	assert_contains "$out" "0"
	assert_not_contains "$out" "raise=0"
	host_safe
}

# Credentials in the project's git config (a token in a remote's URL, the auth
# header a CI checkout leaves) are withheld: the jail reads a copy without
# them, git still works inside, and the host's config is never written.  A
# linked worktree's repository config is treated the same way.
test_git_config_credentials_withheld() {
	mkrepo "$T/p"
	git -C "$T/p" remote add origin "https://x-access-token:ghp_canaryTOKEN77@github.com/me/app.git"
	git -C "$T/p" config http.https://github.com/.extraheader "AUTHORIZATION: basic Y2FuYXJ5QkFTSUM="
	local before
	before=$(sha256sum <"$T/p/.git/config")
	run_jail -D "$T/p" --no-export -- sh -c 'cat .git/config; git remote get-url origin;
		grep -rl canary .git 2>/dev/null; git config user.name agent && echo config-writable'
	assert_eq "$rc" 0 "$err"
	assert_not_contains "$out" canary
	assert_not_contains "$out" Y2FuYXJ5
	assert_contains "$out" "https://github.com/me/app.git"
	assert_contains "$out" "config-writable"
	assert_contains "$err" "2 credentials (a token in a URL, an auth header) withheld"
	assert_eq "$(sha256sum <"$T/p/.git/config")" "$before" "the host's .git/config"
	# a later run keeps the session's copy, and says nothing more
	run_jail -D "$T/p" --no-export -- git config user.name
	assert_eq "$out" agent
	assert_not_contains "$err" withheld
	# a submodule's repository (.git/modules/NAME) has a config of its own
	git_init "$T/lib"
	printf 'lib\n' >"$T/lib/l.txt"
	git -C "$T/lib" add l.txt && git -C "$T/lib" commit -q -m lib
	git -C "$T/p" -c protocol.file.allow=always submodule -q add "$T/lib" vendor/lib
	git -C "$T/p" commit -q -m sub
	git -C "$T/p/vendor/lib" remote set-url origin "https://u:canarySUB88@example.com/lib.git"
	before=$(sha256sum <"$T/p/.git/config")
	run_jail -s sub -D "$T/p" --no-export -- sh -c 'cat .git/modules/vendor/lib/config;
		git -C vendor/lib remote get-url origin; git -C vendor/lib log --oneline | wc -l'
	assert_eq "$rc" 0 "$err"
	assert_not_contains "$out" canary
	assert_contains "$out" "https://example.com/lib.git"
	assert_contains "$err" "3 credentials"
	# a linked worktree: its repository's config is the one git reads
	git -C "$T/p" worktree add -q "$T/wt" -b side
	run_jail -D "$T/wt" --no-export -- sh -c 'git remote get-url origin; git config --get-regexp extraheader; true'
	assert_eq "$rc" 0 "$err"
	assert_not_contains "$out" canary
	assert_contains "$out" "https://github.com/me/app.git"
	assert_eq "$(sha256sum <"$T/p/.git/config")" "$before" "the host's .git/config"
}

# The session's copy of a config is written into the upper layer, which is
# the agent's: a link it leaves there (.git/modules -> a host directory) must
# not lead the next start's write onto the host.  Spellings git reads as a
# credential (a continued value, a key on the header's line, a URL split by
# quotes, an inline credential helper, a file the config includes) are
# withheld as the plain ones are, and so is a credential that only a
# submodule's config holds, or a repository cloned inside the project.
test_git_config_credentials_withheld_in_any_spelling_and_never_written_out() {
	mkrepo "$T/p"
	git_init "$T/lib"
	printf 'lib\n' >"$T/lib/l.txt"
	git -C "$T/lib" add l.txt && git -C "$T/lib" commit -q -m lib
	git -C "$T/p" -c protocol.file.allow=always submodule -q add "$T/lib" lib
	git -C "$T/p" commit -q -m sub
	git -C "$T/p/lib" remote set-url origin "https://u:canarySUB31@example.com/lib.git"
	# only the submodule holds one: the jail starts and hides it
	run_jail -D "$T/p" --no-export -- sh -c 'cat .git/modules/lib/config; git -C lib remote get-url origin'
	assert_eq "$rc" 0 "$err"
	assert_not_contains "$out" canary
	assert_contains "$out" "https://example.com/lib.git"
	# the agent leaves a link where the next start writes
	mkdir "$T/outside"
	run_jail -D "$T/p" --no-export -- sh -c "rm -rf .git/modules && ln -s '$T/outside' .git/modules"
	assert_eq "$rc" 0 "$err"
	before=$(sha256sum <"$T/p/.git/modules/lib/config")
	run_jail -D "$T/p" --no-export -- true
	assert_eq "$rc" 0 "$err"
	assert_eq "$(find "$T/outside" -mindepth 1 | wc -l)" 0 "files written through the agent's link"
	assert_eq "$(sha256sum <"$T/p/.git/modules/lib/config")" "$before" "the host's submodule config"
	# other spellings, in a session of their own
	cat >>"$T/p/.git/config" <<'CFG'
[http] extraheader = AUTHORIZATION: bearer canarySAME41
[http "https://example.com/"]
	extraHeader = \
AUTHORIZATION: basic canaryCONT42
[remote "quoted"]
	url = "https://user":canaryQUOTE43@example.com/a.git
[credential]
	helper = "!f() { echo password=canaryHELPER44; }; f"
CFG
	# files the config includes that lie in .git, where the jail shows them
	mkdir "$T/p/.git/more"
	printf '[include]\n\tpath = more/one.inc\n[includeIf "gitdir:/"]\n\tpath = %s\n' \
		"$T/p/.git/two.inc" >>"$T/p/.git/config"
	printf '[http]\n\textraheader = canaryINC45\n[include]\n\tpath = ../three.inc\n' \
		>"$T/p/.git/more/one.inc"
	printf '[remote "inc"]\n\turl = https://u:canaryINC46@example.com/i.git\n' >"$T/p/.git/two.inc"
	printf '[github]\n\ttoken = canaryINC47\n' >"$T/p/.git/three.inc"
	for c in SAME41 INC45 INC46 INC47; do
		git -C "$T/p" config --list | grep -q "canary$c" ||
			fail "positive control: git reads canary$c"
	done
	run_jail -s spell -D "$T/p" --no-export -- sh -c 'cat .git/config .git/*.inc .git/more/*;
		git config --list; git remote get-url quoted'
	assert_eq "$rc" 0 "$err"
	assert_not_contains "$out" canary
	assert_contains "$out" "https://example.com/a.git"
	assert_contains "$out" "remote.inc.url=https://example.com/i.git"
	# a repository cloned inside the project (not a submodule) has a config of its own
	git clone -q "$T/lib" "$T/p/vendor/dep"
	git -C "$T/p/vendor/dep" remote set-url origin "https://u:canaryNEST48@example.com/dep.git"
	run_jail -s nested -D "$T/p" --no-export -- sh -c 'cat vendor/dep/.git/config;
		git -C vendor/dep remote get-url origin'
	assert_eq "$rc" 0 "$err"
	assert_not_contains "$out" canary
	assert_contains "$out" "https://example.com/dep.git"
	# a linked worktree's own config (extensions.worktreeConfig)
	git -C "$T/p" config extensions.worktreeConfig true
	git -C "$T/p" worktree add -q "$T/wt" -b side
	git -C "$T/wt" config --worktree http.extraheader "AUTHORIZATION: basic canaryWT49"
	git -C "$T/wt" config --get http.extraheader | grep -q canaryWT49 ||
		fail "positive control: git reads the worktree's config"
	run_jail -D "$T/wt" --no-export -- sh -c 'git config --list; cat "$(git rev-parse --git-dir)/config.worktree"'
	assert_eq "$rc" 0 "$err"
	assert_not_contains "$out" canary
}

# Mount points in the fake home are made while the host's root is still
# reachable (at /oldroot), and a persistent home holds what the agent left
# there: a link on the way to a bind, a copy-on-write dir or a tmpfs must not
# make a directory or file on the host, nor move the mount.
test_mount_points_never_made_through_the_agents_links() {
	mkrepo "$T/p"
	export HOME=$T/h
	mkdir -p "$HOME/.cache/pip" "$HOME/.config/tool" "$T/outside"
	printf 'conf\n' >"$HOME/.config/tool/rc"
	run_jail -D "$T/p" --home persistent --no-export -- sh -c "rm -rf ~/.cache ~/.config &&
		ln -s '/oldroot$T/outside' ~/.cache && ln -s '/oldroot$T/outside' ~/.config"
	assert_eq "$rc" 0 "$err"
	for bind in "--cow $HOME/.cache/pip" "--ro $HOME/.config/tool" "--tmpfs $HOME/.cache/t"; do
		# shellcheck disable=SC2086
		run_jail -D "$T/p" --home persistent --no-export $bind -- true
		assert_eq "$rc" 125 "$bind through the agent's link"
		assert_contains "$err" "is a symlink or a file"
		assert_not_contains "$err" "as on the host"
	done
	assert_eq "$(find "$T/outside" -mindepth 1 | wc -l)" 0 "made on the host through the link"
	# positive control: in a fresh session the same binds are where they belong
	"$JAIL" reset -D "$T/p" --all </dev/null
	run_jail -D "$T/p" --home persistent --no-export --cow "$HOME/.cache/pip" \
		--ro "$HOME/.config/tool" -- sh -c 'cat ~/.config/tool/rc; touch ~/.cache/pip/new && echo cow-ok'
	assert_eq "$rc" 0 "$err"
	assert_contains "$out" "conf"
	assert_contains "$out" "cow-ok"
	assert_no_file "$HOME/.cache/pip/new"
}

# The same for a link the agent left in the project, with the project under
# /var/tmp (a tmpfs of the jail's own there, whose links init follows): the
# agent's link is not one of them.
test_mount_points_never_made_through_the_agents_links_in_a_var_tmp_project() {
	vt=$(mktemp -d /var/tmp/jail-t.XXXXXX)
	trap 'chmod -R u+rwX "$vt"; rm -rf "$vt"' EXIT
	mkrepo "$vt/p"
	mkdir -p "$T/outside"
	run_jail -D "$vt/p" --no-export -- ln -s "/oldroot$T/outside" "$vt/p/cache"
	assert_eq "$rc" 0 "$err"
	run_jail -D "$vt/p" --no-export --tmpfs "$vt/p/cache/t" -- true
	assert_eq "$rc" 125 "--tmpfs through the agent's link"
	assert_contains "$err" "is a symlink or a file"
	assert_eq "$(find "$T/outside" -mindepth 1 | wc -l)" 0 "made on the host through the link"
	# positive control: without the link the tmpfs is where it belongs
	"$JAIL" reset -D "$vt/p" --all </dev/null
	run_jail -D "$vt/p" --no-export --tmpfs "$vt/p/cache/t" -- sh -c "touch '$vt/p/cache/t/x' && echo made"
	assert_eq "$rc" 0 "$err"
	assert_contains "$out" made
}

# The host-side snapshot of the jail's /etc (src/sandbox/etcsnap.h) is read-only inside,
# and one the user's other users could write, or whose manifest names a path
# outside /etc, is not used.
test_etc_snapshot_read_only_and_trusted_only_when_owner_only() {
	probe_setup
	run_jail -q -D "$T/p" -- true
	run_jail -q --ro "$T/bin" -D "$T/p" -- sh -c "grep ' /etc ' /proc/self/mountinfo"
	assert_contains "$out" "/.etc/" "positive control: the snapshot is bound"
	jp -- create /etc/planted x
	assert_ne "$rc" 0 "create a file in the snapshot"
	jp -- write /etc/hostname evil
	assert_ne "$rc" 0 "write a file of the snapshot"
	snap=$(ls -d "$XDG_STATE_HOME"/jail/.etc/*.*)
	assert_no_file "$snap/planted"
	assert_eq "$(cat "$snap/hostname")" "jail" "the snapshot's hostname"
	chmod 0770 "$XDG_STATE_HOME/jail/.etc"
	run_jail -q -D "$T/p" -- sh -c "grep ' /etc ' /proc/self/mountinfo"
	assert_not_contains "$out" "/.etc/" "a group-writable snapshots' directory"
	chmod 0700 "$XDG_STATE_HOME/jail/.etc"
	man=$(ls "$XDG_STATE_HOME"/jail/.etc/* -d | grep -v '\.[^/]*$' | head -1)
	echo "b ../../home" >>"$man"
	# (ls's own status is not the point: no /home inside when $HOME is elsewhere)
	run_jail -q -D "$T/p" -- sh -c "grep ' /etc ' /proc/self/mountinfo; ls /etc/../../home 2>&1; true"
	assert_eq "$rc" 0 "a run with the manifest changed: $err"
	assert_not_contains "$out" "/.etc/" "a manifest naming a path outside /etc"
}

# The agent never reaches the host's /etc snapshot to write it (it is bound
# read-only as /etc, and the state dir that holds it is covered), with the
# state dir under a --ro or --cow bind, with a persistent home, or spelled
# through /etc's own mount: the snapshot is what it was, and the next run
# binds it unchanged.
test_etc_snapshot_never_written_from_inside() {
	probe_setup
	run_jail -q -D "$T/p" -- true
	snap=$(ls -d "$XDG_STATE_HOME"/jail/.etc/*.*)
	[ -d "$snap" ] || fail "positive control: a snapshot was made"
	before=$(cd "$snap" && find . -printf '%p %s %T@\n' | sort | md5sum)
	write='for d in /etc "$1" "$1"/*; do
		touch "$d/planted" 2>/dev/null && echo "WROTE $d"
		ln -s /tmp "$d/link" 2>/dev/null && echo "LINKED $d"; done
		echo x >/etc/profile 2>/dev/null && echo "WROTE /etc/profile"
		mount -o remount,rw,bind /etc 2>/dev/null && echo REMOUNTED
		ls -A "$1" 2>/dev/null; echo end'
	for opts in "" "--ro $T" "--cow $XDG_STATE_HOME" "--home persistent" "--ro $XDG_STATE_HOME/jail"; do
		# shellcheck disable=SC2086 # the options split on purpose
		run_jail -q -D "$T/p" $opts -- sh -c "$write" sh "$XDG_STATE_HOME/jail/.etc"
		assert_contains "$out" end "the run started ($opts): $err"
		assert_not_contains "$out" WROTE "($opts)"
		assert_not_contains "$out" LINKED "($opts)"
		assert_not_contains "$out" REMOUNTED "($opts)"
		assert_not_contains "$out" "$(basename "$snap")" "the snapshot's name listed ($opts)"
	done
	# positive control: the same script writes where it may
	mkdir -p "$T/ctl/d"
	out=$(sh -c "$write" sh "$T/ctl")
	assert_contains "$out" "WROTE $T/ctl/d"
	assert_eq "$(cd "$snap" && find . -printf '%p %s %T@\n' | sort | md5sum)" "$before" \
		"the snapshot on the host"
	run_jail -q -D "$T/p" -- sh -c "grep ' /etc ' /proc/self/mountinfo; ls /etc"
	assert_contains "$out" "$(basename "$snap")" "the next run binds the same snapshot"
	assert_not_contains "$out" planted
}

# A --rw bind that holds the state dir (or the real home) below a directory
# the agent can rename: the cover is a mount on the hidden dir itself, so the
# agent moves its parent (mv ~/.local/state ~/.local/s2) and the next start,
# covering by name, would show every session's work there.  Refused; a bind
# of the hidden dir's parent (whose child is the mount point) still works.
test_rw_bind_cannot_move_the_state_dir_or_home_from_under_its_cover() {
	export HOME=$T/hh XDG_STATE_HOME=$T/hh/.local/state
	mkdir -p "$HOME/.local/x"
	mkrepo "$T/q"
	run_jail -q -D "$T/q" --no-export -s other -- true
	assert_eq "$rc" 0 "$err"
	[ -d "$XDG_STATE_HOME/jail" ] || fail "positive control: the state dir exists"
	run_jail -q -D "$T/q" --no-export --rw "$HOME/.local" -- mv "$HOME/.local/state" "$HOME/.local/s2"
	assert_eq "$rc" 125 "--rw of the state dir's grandparent"
	assert_contains "$err" "jail's state dir"
	[ -d "$XDG_STATE_HOME/jail" ] || fail "the state dir was moved"
	mkdir -p "$T/data/a/u"
	echo canary-home-4411 >"$T/data/a/u/key"
	HOME=$T/data/a/u run_jail -q -D "$T/q" --no-export --rw "$T/data" -- true
	assert_eq "$rc" 125 "--rw of the home's grandparent"
	assert_contains "$err" "real home"
	# positive control: the state dir's parent, read-write, with the state dir covered
	run_jail -q -D "$T/q" --no-export --rw "$XDG_STATE_HOME" -- sh -c \
		"touch '$XDG_STATE_HOME/made'; ls -A '$XDG_STATE_HOME/jail'; echo end"
	assert_eq "$rc" 0 "$err"
	assert_eq "$out" end
	[ -f "$XDG_STATE_HOME/made" ] || fail "positive control: --rw of the parent writes"
}

# A project that holds the real home (HOME=/srv/work/me, -D /srv/work): the
# home shows through the project's lower layer, over the fake home bound at
# $HOME first; the fake home is put over it again there.
test_real_home_covered_inside_a_project_that_holds_it() {
	mkrepo "$T/w"
	mkdir -p "$T/w/me/.ssh"
	echo canary-ssh-key-9120 >"$T/w/me/.ssh/id_ed25519"
	HOME=$T/w/me run_jail -q -D "$T/w" --no-export -- sh -c \
		'cat ~/.ssh/id_ed25519; echo mine >~/f && cat ~/f; cat README; echo end'
	assert_eq "$rc" 0 "$err"
	assert_not_contains "$out" canary-ssh-key
	assert_contains "$out" mine
	assert_contains "$out" hello
	assert_no_file "$T/w/me/f"
}
