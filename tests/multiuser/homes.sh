# multiuser/homes.sh — homes inside a system directory the jail binds
# (/home -> /usr/home, as some hosts lay them out): the /usr bind must show
# neither the user's real home nor the other users' homes beside it.
#
# Root only sets the scene, in a mount namespace of its own (a tmpfs over
# /usr/local with homes in it, nothing of the host's /usr changed); every jail
# runs as $USER_A through runuser.  Run as anyone else, the test skips.

homes_scene() {
	[ "$(id -u)" = 0 ] || skip "a home under /usr needs root to set the scene: run tests/run as root"
	if [ -z "${USER_A:-}" ] || [ -z "${USER_B:-}" ] || ! id "$USER_B" >/dev/null 2>&1; then
		skip "no second test user (tests/run as root creates jailtest2)"
	fi
	command -v unshare >/dev/null && command -v runuser >/dev/null ||
		skip "unshare(1) or runuser(1) is missing"
	[ -d /usr/local ] || skip "no /usr/local to lay the homes in"
	chmod 755 "$T"
	mkdir -p "$T/$USER_A"
	chown "$USER_A:" "$T/$USER_A"
	runuser -u "$USER_A" -- bash -c "source '$TESTS/lib.sh'; mkrepo '$T/$USER_A/p'"
}

# in_scene HOME_SPELLED: as root in a new mount namespace, lay the homes out
# under /usr/local/home and run one jail there as $USER_A with that HOME;
# its output in $out, status in $rc, the host's view of the canary in
# $T/host-canary.
in_scene() {
	cat >"$T/scene.sh" <<'EOF'
set -e
mount -t tmpfs -o mode=755 tmpfs /usr/local
mkdir -p "/usr/local/home/$A/.ssh" "/usr/local/home/$B"
echo canary-a-ssh-5151 >"/usr/local/home/$A/.ssh/id_ed25519"
echo canary-b-file-5152 >"/usr/local/home/$B/f"
chown -R "$A:" "/usr/local/home/$A"
chown -R "$B:" "/usr/local/home/$B"
ln -sfn "/usr/local/home/$A" "$T/$A/h"
cat "/usr/local/home/$A/.ssh/id_ed25519" >"$T/host-canary"
cd /
runuser -u "$A" -- env -i PATH=/usr/bin:/bin LANG=C.UTF-8 USER="$A" HOME="$H" \
	XDG_CONFIG_HOME="$T/$A/config" "$JAIL" -q -D "$T/$A/p" --no-export -- sh -c '
	echo "home=$HOME"; cat README
	echo "homes: $(ls -A /usr/local/home | tr "\n" " ")"
	echo "real-home: $(ls -A /usr/local/home/'"$A"' | tr "\n" " ")"
	cat /usr/local/home/*/.ssh/id_ed25519 /usr/local/home/*/f 2>&1
	ls -A ~/.local/state/jail 2>&1
	echo "wrote-$((6 * 7))" >~/w && cat ~/w
	touch /usr/local/home/x 2>&1 || echo no-write'
EOF
	set +e
	out=$(A=$USER_A B=$USER_B T=$T H=$1 JAIL=$JAIL \
		unshare -m --propagation private bash "$T/scene.sh" 2>&1)
	rc=$?
	set -e
}

test_homes_in_a_system_dir_are_covered() {
	homes_scene
	for home in "/usr/local/home/$USER_A" "$T/$USER_A/h"; do
		in_scene "$home"
		assert_eq "$rc" 0 "$out"
		assert_eq "$(cat "$T/host-canary")" canary-a-ssh-5151 "positive control: the host's view"
		assert_contains "$out" "home=$home"
		assert_contains "$out" hello
		assert_contains "$out" "homes: $USER_A "
		assert_not_contains "$out" "$USER_B"
		assert_not_contains "$out" canary-
		assert_not_contains "$(printf '%s\n' "$out" | grep '^real-home:')" .ssh
		assert_contains "$out" "real-home: .bashrc"
		assert_contains "$out" no-write
		assert_contains "$out" wrote-42
	done
}
