# fleet.sh — jail where fleets of agents run: inside another sandbox's user
# namespace (CI runners and containers nest it the same way).

# Nested in bwrap's user namespace: jail works as on the host.
test_runs_nested_in_bwrap_user_namespace() {
	command -v bwrap >/dev/null || fail "bwrap is not installed (scripts/setup installs it)"
	bwrap --unshare-user --dev-bind / / true 2>/dev/null ||
		skip "bwrap cannot make a user namespace on this host"
	mkrepo "$T/p"
	local out
	out=$(cd "$T/p" && bwrap --unshare-user --dev-bind / / "$JAIL" -q -- \
		sh -c 'cat .env 2>&1 || echo hidden; echo ok > new.txt; id -u')
	assert_contains "$out" "hidden"
	assert_contains "$out" "$(id -u)"
	assert_no_file "$T/p/new.txt"
	assert_contains "$("$JAIL" status -D "$T/p")" "new.txt"
}

# An outer sandbox that forbids nesting: one line naming what blocks it and what
# to change, from jail and from jail doctor.
test_outer_sandbox_forbidding_userns_is_named() {
	bwrap --unshare-user --disable-userns --dev-bind / / true 2>/dev/null ||
		skip "this bwrap has no --disable-userns (bubblewrap < 0.8)"
	mkrepo "$T/p"
	cd "$T/p"
	set +e
	err=$(bwrap --unshare-user --disable-userns --dev-bind / / "$JAIL" -- true 2>&1 >/dev/null)
	rc=$?
	set -e
	assert_eq "$rc" 125
	assert_eq "$(grep -c . <<<"$err")" 1 "error lines"
	assert_contains "$err" "no user namespace may be nested here"
	assert_contains "$err" "fix:"
	local doc
	doc=$(bwrap --unshare-user --disable-userns --dev-bind / / "$JAIL" doctor 2>&1 || true)
	assert_contains "$doc" "[FAIL] cannot create an unprivileged user namespace: no user namespace may be nested"
}

# Rootless podman, as a CI job or a pod runs agents: an image built here from a
# Debian root made with mmdebstrap (no registry is reachable), the staged jail
# bound in, the container run by the test user.  The tarball is cached between
# runs in /var/tmp (JAIL_PODMAN_CACHE), as the VM's kernel is.
# (libstdc++ for a sanitizer build's runtime, bound in from the host)
PODMAN_PKGS=git,libmnl0,libnftnl11,libseccomp2,libcap-ng0,libinih1,libfuse3-3,libssl3,libstdc++6
PODMAN_IMAGE=localhost/jail-fleet-test:$(printf %s "$PODMAN_PKGS" | sha256sum | cut -c1-12)
podman_ready() {
	command -v podman >/dev/null && command -v mmdebstrap >/dev/null ||
		fail "podman or mmdebstrap is not installed (scripts/setup installs them)"
	grep -q "^$(id -un):" /etc/subuid ||
		skip "$(id -un) has no subordinate ids in /etc/subuid: rootless podman cannot run"
	# crun refuses rootless containers on a host whose cgroup controllers are
	# bound to v1 ("hybrid"); runc runs them without cgroups
	# the image store in the cache too, not under $HOME (the suite's is new
	# each run): the image is imported once, not at every run
	local cache=${JAIL_PODMAN_CACHE:-/var/tmp/jail-podman-$(id -u)}
	mkdir -p "$cache/storage"
	podman=(podman --cgroup-manager=cgroupfs --events-backend=file --root "$cache/storage")
	if [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ]; then
		command -v runc >/dev/null || fail "no runc, and crun refuses this cgroup v1 host"
		podman+=(--runtime runc)
	fi
	# a sanitizer build (make asan) needs its runtime, which the image lacks
	sanitizer_libs=()
	local lib
	for lib in $(ldd "$JAIL" | awk '$1 ~ /^lib(a|ub)san/ {print $3}'); do
		sanitizer_libs+=(-v "$lib:$lib:ro")
	done
	"${podman[@]}" image exists "$PODMAN_IMAGE" && return 0
	local tar=$cache/root-${PODMAN_IMAGE##*:}.tar
	if [ ! -s "$tar" ]; then
		mmdebstrap --quiet --mode=unshare --format=tar --variant=essential \
			--include="$PODMAN_PKGS" bookworm "$tar.part.$$" >"$T/mmdebstrap.log" 2>&1 || {
			rm -f "$tar.part.$$"
			skip "mmdebstrap could not make a Debian root (no mirror reachable?): $(tail -n 1 "$T/mmdebstrap.log")"
		}
		# (a part of this suite's own: another suite may build the same root now;
		# the rename is atomic, whichever comes last wins with a whole file)
		mv "$tar.part.$$" "$tar"
	fi
	"${podman[@]}" import -q "$tar" "$PODMAN_IMAGE" >/dev/null
}

# in_podman [PODMAN RUN OPTIONS...] -- SCRIPT: SCRIPT in a fresh container as
# uid 1000, with a git project at /tmp/p (a.txt tracked, .env ignored) and the
# staged jail on PATH; $out is what it printed, both streams.
in_podman() {
	local opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	set +e
	out=$("${podman[@]}" run --rm --network none --user 1000:1000 -e HOME=/tmp \
		-v "$JAIL:/usr/local/bin/jail:ro" "${sanitizer_libs[@]}" "${opts[@]}" "$PODMAN_IMAGE" sh -c '
		mkdir /tmp/p && cd /tmp/p && git init -q && echo one >a.txt &&
		echo "SECRET=canary" >.env && echo .env >.gitignore && git add a.txt .gitignore &&
		git -c user.name=t -c user.email=t@t commit -qm init && '"$1" 2>&1)
	set -e
}

# Podman's defaults mask parts of /proc, and the kernel then refuses a new
# procfs: jail and jail doctor say so in one line, with the option to change.
test_podman_masked_proc_is_named() {
	podman_ready
	in_podman --device /dev/fuse -- 'jail -D /tmp/p -- true; echo "rc=$?"; jail doctor'
	assert_contains "$out" "rc=125"
	assert_contains "$out" "jail: a new /proc is refused: the /proc jail runs under has paths masked"
	assert_contains "$out" "--security-opt unmask=ALL"
	assert_contains "$out" "[FAIL] this /proc has paths masked"
}

# With /proc unmasked (podman's seccomp profile as it is: it refuses
# sethostname, which jail does without), jail runs as on a host: the ignored
# file hidden, the change kept in the session, the project untouched.
test_podman_unmasked_runs_jail() {
	podman_ready
	in_podman --device /dev/fuse --security-opt unmask=ALL -- '
		jail -q -D /tmp/p -- sh -c "id -u; cat a.txt; cat .env 2>/dev/null || echo hidden; echo two >>a.txt"
		echo "rc=$?"; cat a.txt; jail status -D /tmp/p'
	assert_contains "$out" "rc=0"
	assert_contains "$out" "1000"
	assert_contains "$out" "hidden"
	assert_not_contains "$out" "canary"
	assert_contains "$out" "M a.txt"
	[ "$(grep -c '^one$' <<<"$out")" = 2 ] || fail "the project changed: $out"
}
