# The escape suite, a review of the day's fixes by a fresh attacker: each
# test is a way around one of them (another layout, path or layer that
# reaches the same place).  A test of a hole fails on the build before its
# fix.
source "$TESTS/security/helpers.bash"
source "$TESTS/networld.bash"

# The agent's look at each object's delta in the packs: for every object
# the .idx lists, its header at its offset; for a delta (OFS 6, REF 7) the
# first number of its inflated data, the size of the object it is made
# from.  Prints "base-size N" for each.
DELTA_READER='
for i in .git/objects/pack/*.idx; do
	git show-index <"$i" | while read -r off _; do echo "${i%.idx}.pack $off"; done
done | python3 -c "
import sys, zlib
for line in sys.stdin:
    p, off = line.split(); off = int(off)
    b = open(p, \"rb\").read()[off:off + 65536]
    t = (b[0] >> 4) & 7; i = 1
    while b[i - 1] & 128: i += 1
    if t == 6:
        while b[i] & 128: i += 1
        i += 1
    elif t == 7:
        i += 20
    else:
        continue
    try:
        d = zlib.decompressobj().decompress(b[i:])
    except Exception:
        continue
    n = s = 0
    for c in d:
        n |= (c & 127) << s; s += 7
        if not c & 128: break
    print(\"base-size\", n)
"'

# git packs an object as a delta against a similar one, in either
# direction: a tracked `.env.example` ends up stored as a few bytes that
# say "copy the first 1380 bytes of this withheld `.env` blob".  The view
# blanked the withheld blob but served that delta, which told the agent
# the secret's size and which of its bytes equal the example's and where
# (everything but the secret line).  Every object whose delta chain
# reaches a withheld one is blanked too (git could not rebuild it anyway).
test_delta_against_a_withheld_object_blanked() {
	command -v python3 >/dev/null || skip "no python3"
	git_init "$T/p"
	printf '.env\n' >"$T/p/.gitignore"
	for i in $(seq 40); do echo "VAR_$i=value-number-$i-placeholder"; done >"$T/p/.env.example"
	printf 'hello\n' >"$T/p/README"
	git -C "$T/p" add .gitignore .env.example README
	git -C "$T/p" commit -q -m init
	{ cat "$T/p/.env.example"; echo "SECRET=canary-delta-secret"; } >"$T/p/.env"
	git -C "$T/p" stash -q --all
	git -C "$T/p" stash apply -q
	git -C "$T/p" gc -q --prune=now
	local size
	size=$(wc -c <"$T/p/.env")
	grep -qx "base-size $size" <<<"$(cd "$T/p" && eval "$DELTA_READER")" ||
		skip "git did not store a delta against the .env blob here"
	run_jail -q -D "$T/p" -- sh -c "git cat-file -p HEAD:README; $DELTA_READER"
	assert_contains "$out" hello # the positive control: the pack reads
	assert_eq "$(grep -c "base-size $size" <<<"$out")" 0 "deltas against the withheld .env"
}

trap stop_hosts EXIT

# The kernel's list of live sockets is per network namespace: a socket a
# container (its own netns: rootless podman, a docker service whose volume
# is a host directory, a systemd unit with PrivateNetwork=) binds in a host
# directory is not in the host's list, but connect(2) by path reaches it
# all the same.
test_a_socket_bound_in_another_netns_below_a_bind_is_covered() {
	command -v unshare >/dev/null || skip "no unshare"
	unshare -rn true 2>/dev/null || skip "no user and network namespaces here"
	probe_setup
	mkdir -p "$T/run"
	local s="$T/run/app.sock"
	: >"$s.log"
	unshare -rn "$T/host/probe" listen "$s" 100 >"$s.log" &
	HOSTS+=($!)
	wait_for grep -q listening "$s.log"
	run_jail -q --ro "$T/run" --ro "$T/bin" -D "$T/p" -- "$T/bin/probe" connect-unix "$s"
	assert_eq "$rc" "$EACCES" "connect to a socket another netns bound below --ro"
	assert_eq "$(grep -c connection "$s.log" || true)" 0 "connections the host's process took"
}

# --hide hides a path whatever --show says (the view: `--show build --hide
# '*.pem'` shows build/ without its .pem files).  Below a bind inside the
# project the walk for covers stopped at a directory --show names, and did
# not start at all when --show named the bind: what --hide names there was
# the host's file.  --hide is covered below a shown directory too.
test_hide_below_a_shown_directory_in_a_bind_is_covered() {
	git_init "$T/p"
	printf 'build/\n' >"$T/p/.gitignore"
	mkdir -p "$T/p/build/certs"
	printf 'obj\n' >"$T/p/build/out.o"
	printf 'canary-hidden-pem\n' >"$T/p/build/certs/server.pem"
	printf 'canary-hidden-pem\n' >"$T/p/build/top.pem"
	git -C "$T/p" add .gitignore
	git -C "$T/p" commit -q -m init
	local read='cat build/out.o build/top.pem build/certs/server.pem 2>/dev/null; true'
	run_jail -q --show build --hide '*.pem' -D "$T/p" -- sh -c "$read"
	assert_eq "$out" obj "the view: build shown, its .pem files hidden"
	for bind in "--ro $T/p/build" "--rw $T/p/build" "--ro $T/p/build/certs"; do
		# shellcheck disable=SC2086 # the option and its path are words
		run_jail -q --show build --hide '*.pem' $bind -D "$T/p" -- sh -c "$read"
		assert_contains "$out" obj # the positive control ($bind)
		assert_eq "$(grep -c canary <<<"$out")" 0 "what --hide names below --show build, $bind"
	done
}

# "Below a bind inside the project every socket and FIFO is covered": the
# walk that finds them was skipped when no rule hid anything there (--show
# naming the bind, or --hide-ignored=none with no --hide), and a FIFO a host
# process reads took the agent's writes.  The walk runs whatever the rules.
test_fifo_below_a_shown_bind_in_the_project_is_covered() {
	probe_setup
	printf 'run/\n' >>"$T/p/.gitignore"
	git -C "$T/p" commit -q -am 'ignore run/'
	mkdir -p "$T/p/run"
	mkfifo "$T/p/run/fifo"
	BEFORE=$(tree_hash "$T/p")
	exec 3<>"$T/p/run/fifo" # a host reader: a write would reach it
	local opts
	for opts in "--show run" "--hide-ignored=none"; do
		# shellcheck disable=SC2086 # options are words
		jp $opts --rw "$T/p/run" -- write-fifo "$T/p/run/fifo"
		assert_ne "$rc" 0 "write to the host's FIFO in a bind in the project ($opts)"
	done
	assert_eq "$(timeout 1 dd bs=64 count=1 iflag=nonblock <&3 2>/dev/null | grep -c escaped)" 0 \
		"lines the host's FIFO reader got"
	exec 3<&-
}


# --net open closes each address of the host's; the host takes in more
# than its addresses: a "local" route of a whole prefix (AnyIP: `ip route
# add local 12.34.60.0/24 dev lo`, as a proxy or an anycast service has;
# IPv6 too) makes every address in it the host's, where a server bound to
# 0.0.0.0 or :: answers, on no interface's list.
test_net_open_never_reaches_the_hosts_anyip_prefix() {
	open_never_reaches_anyip 12.34.60.0/24 2a0c:60::/64 12.34.60.7 2a0c:60::7
	assert_contains "$err" "jail: blocked tcp 12.34.60.7:$P7"
}

# The stash's older secrets were looked for in each entry's untracked files
# (stash^3) only: an `.env` force-added and then stashed with a plain `git
# stash` is in the entry's own tree and in its index (stash^2), and once the
# key was rotated that old one read inside (`git show stash@{0}:.env`).
# What an entry changed at a secret path, in its tree and its index, is
# withheld too, loose or packed.
test_staged_secret_kept_by_a_plain_stash_not_readable() {
	git_init "$T/p"
	printf '.env\n' >"$T/p/.gitignore"
	printf 'hello\n' >"$T/p/README"
	git -C "$T/p" add .gitignore README
	git -C "$T/p" commit -q -m init
	printf 'SECRET=canary-staged-old\n' >"$T/p/.env"
	git -C "$T/p" add -f .env
	printf 'SECRET=canary-worktree-old\n' >"$T/p/.env"
	git -C "$T/p" stash -q
	printf 'SECRET=rotated\n' >"$T/p/.env"
	local cmd='git stash list; git show "stash@{0}:README"; git show "stash@{0}:.env";
		git show "stash@{0}^2:.env"; true'
	grep -q canary-staged-old <<<"$(cd "$T/p" && sh -c "$cmd" 2>&1)" ||
		fail "the set-up did not stash the staged .env"
	run_jail -q -D "$T/p" -- sh -c "$cmd"
	assert_contains "$out" hello # the positive control: the stash reads
	assert_eq "$(grep -c canary <<<"$out")" 0 "what the agent read of the stashed .env"
	git -C "$T/p" gc -q
	run_jail -q -D "$T/p" -- sh -c "$cmd"
	assert_contains "$out" hello
	assert_eq "$(grep -c canary <<<"$out")" 0 "what the agent read of the stashed .env, packed"
}

# The stash's withheld ids are kept between starts, by the stash's stamps
# alone: a start with a --hide the last one did not have took the last
# one's ids, and what that --hide names in the stash read inside.  The
# rules are part of the key.
test_stash_ids_follow_a_new_hide_rule() {
	git_init "$T/p"
	printf 'config/local.yml\n' >"$T/p/.gitignore"
	printf 'hello\n' >"$T/p/README"
	git -C "$T/p" add .gitignore README
	git -C "$T/p" commit -q -m init
	mkdir -p "$T/p/config"
	printf 'token: canary-local-yml-old\n' >"$T/p/config/local.yml"
	git -C "$T/p" stash -q --all
	mkdir -p "$T/p/config"
	printf 'token: rotated\n' >"$T/p/config/local.yml"
	local cmd='git show "stash@{0}^3:config/local.yml"; git show "stash@{0}:README"; true'
	run_jail -q -D "$T/p" -- sh -c "$cmd"
	assert_contains "$out" canary-local-yml-old # not a secret's path yet: shown
	run_jail -q --hide config/local.yml -D "$T/p" -- sh -c "$cmd"
	assert_contains "$out" hello # the positive control
	assert_eq "$(grep -c canary <<<"$out")" 0 "the stashed file --hide names, on a later start"
}
