# The escape suite, a fourth review of the last round's defences by a
# fresh attacker: each test is a way around one of them.  A test of a hole
# fails on the build before its fix.
source "$TESTS/security/helpers.bash"
source "$TESTS/networld.bash"

# ATTACK: --net open and AnyIP of one address (`ip route add local
# 12.34.61.7 dev lo`): the open ruleset closed the host's interfaces'
# addresses and the local routes of more than one address, so a /32 or /128
# local route, on no interface's list, was the host's and open: a server of
# the host's bound to 0.0.0.0 or :: answered the jail there.
test_net_open_never_reaches_a_single_anyip_address() {
	open_never_reaches_anyip 12.34.61.7/32 2a0c:61::7/128 12.34.61.7 2a0c:61::7
	assert_contains "$err" "jail: blocked tcp 12.34.61.7:$P7"
}

# The same, on a host with thousands of local routes of one address (a
# node whose service addresses are each the host's): all are closed, the
# last one too, and the jail starts (they go to nftables in batches that
# stay below the netlink batch's limit).
test_net_open_closes_thousands_of_single_anyip_addresses() {
	local i j
	for i in $(seq 0 15); do for j in $(seq 1 250); do
		echo "route add local 2a0c:63::$i:$j/128 dev lo"
	done; done >"$T/routes"
	W_SETUP="ip -batch '$T/routes'" net_servers
	bg in_w python3 "$HELPERS/http_server.py" "$T/p7" :: "$T/www"
	wait_file "$T/p7"
	P7=$(cat "$T/p7")
	run_jail -D "$T/p" --net open -- python3 -c "$TCP_PROBE" "2a0c:63::f:fa,$P7" "$PUB4,$P2"
	assert_eq "$rc" 0 "(stderr: $err)"
	assert_contains "$out" "$PUB4 $P2 open" # the positive control
	assert_contains "$out" "2a0c:63::f:fa $P7 failed"
}

# ATTACK: as above, with the local routes added while the jail runs (one
# address, and a prefix): the routes were read once, at the start.  The
# jail tries both until refused (each answered "open" before the fix).
test_net_open_closes_a_local_route_the_host_adds_later() {
	W_SETUP=$(when_jail_runs "ip route add local 12.34.63.7/32 dev lo &&
		ip route add local 12.34.64.0/24 dev lo") net_servers
	bg in_w python3 "$HELPERS/http_server.py" "$T/p7" :: "$T/www"
	wait_file "$T/p7"
	P7=$(cat "$T/p7")
	run_across_change -D "$T/p" --net open -- "python3 -c '
import socket, time
for addr in (\"12.34.63.7\", \"12.34.64.9\"):
    for i in range(100):
        s = socket.socket()
        s.settimeout(5)
        try:
            s.connect((addr, $P7))
        except OSError as e:
            print(addr, \"refused after\", i, \"tries\")
            break
        s.close()
        time.sleep(0.1)
    else:
        print(addr, \"LOCAL-ROUTE-OPEN\")
s = socket.create_connection((\"$PUB4\", $P2), 5)
print(\"internet open\")
'"
	assert_not_contains "$out" LOCAL-ROUTE-OPEN
	assert_contains "$out" "12.34.63.7 refused after"
	assert_contains "$out" "12.34.64.9 refused after"
	assert_contains "$out" "internet open"
}

# ATTACK: a hidden `.env` with CRLF line ends, staged by mistake and
# unstaged, in a repository whose attributes say `* text=auto` (or with
# core.autocrlf): git stored its blob with LF line ends, and the view
# withheld only the ids of the file's bytes as they are, so the blob git
# wrote was served whole (`git cat-file --batch-all-objects --batch`).  The
# ids of the content as git stores a text file are withheld too, loose and
# packed, at the first start and from the ids' cache at the next.
test_crlf_secret_staged_and_unstaged_not_readable() {
	git_init "$T/p"
	printf '.env\n' >"$T/p/.gitignore"
	printf '* text=auto\n' >"$T/p/.gitattributes"
	printf 'hello\n' >"$T/p/README"
	git -C "$T/p" add .gitignore .gitattributes README
	git -C "$T/p" commit -q -m init
	printf 'SECRET=canary-crlf\r\nOTHER=x\r\n' >"$T/p/.env"
	git -C "$T/p" add -f .env
	git -C "$T/p" reset -q .env
	local cmd='git cat-file --batch-all-objects --batch; true'
	grep -q canary-crlf <<<"$(cd "$T/p" && sh -c "$cmd" 2>&1)" ||
		fail "the set-up left no object of the .env"
	run_jail -q -D "$T/p" -- sh -c "$cmd"
	assert_contains "$out" hello # the positive control
	assert_eq "$(grep -c canary <<<"$out")" 0 "what the agent read of the once staged .env"
	git -C "$T/p" gc -q # (now in a pack: a cruft one, or loose where git keeps it so)
	run_jail -q -D "$T/p" -- sh -c "$cmd"
	assert_contains "$out" hello
	assert_eq "$(grep -c canary <<<"$out")" 0 "what the agent read after git gc"
}

# ATTACK: an `.env` staged by mistake, seen in `git commit -v`'s editor and
# the commit given up (an empty message), then unstaged: the view withheld
# the staged blob, but git left the verbose diff it showed, the secret's
# lines, in `.git/COMMIT_EDITMSG` (and `git add -p`'s edited hunk in
# `.git/addp-hunk-edit.diff`), served as the host has them.  While anything
# is withheld, git's files that quote staged content are not shown.
test_a_given_up_verbose_commit_does_not_quote_the_secret() {
	git_init "$T/p"
	printf '.env\n' >"$T/p/.gitignore"
	printf 'hello\n' >"$T/p/README"
	git -C "$T/p" add .gitignore README
	git -C "$T/p" commit -q -m init
	printf 'SECRET=canary-verbose\n' >"$T/p/.env"
	git -C "$T/p" add -f .env
	GIT_EDITOR=true git -C "$T/p" commit -q -v 2>/dev/null || true
	printf '+SECRET=canary-hunk\n' >"$T/p/.git/addp-hunk-edit.diff"
	git -C "$T/p" reset -q .env
	grep -q canary-verbose "$T/p/.git/COMMIT_EDITMSG" ||
		fail "the set-up left no verbose diff in COMMIT_EDITMSG"
	run_jail -q -D "$T/p" -- sh -c 'cat .git/COMMIT_EDITMSG .git/addp-hunk-edit.diff
		grep -r canary .git; git log --oneline; git commit -q --allow-empty -m inside -v &&
		git log --oneline -1; true'
	assert_contains "$out" init # the positive control
	assert_contains "$out" inside # git commit still works
	assert_eq "$(grep -c canary <<<"$out")" 0 "what the agent read of the staged .env"
}

# ATTACK: the export leaves out a directory git takes for a repository (its
# config and hooks run on the next `git` there), but not another version
# control tool's: a `.hg/hgrc` landed in a subdirectory runs its hooks and
# loads its extensions on any `hg` command there (a prompt's `hg id` on
# entering it); darcs runs the commands `_darcs/prefs/defaults` names,
# pijul the hooks of `.pijul/config`, older Jujutsu reads `.jj/repo/config.toml`
# (pager, editor, aliases).  Each is left out whole.
test_land_another_vcs_repository_is_left_out() {
	mkrepo "$T/p"
	run_jail -q -D "$T/p" -- sh -c 'mkdir -p sub/.hg sub/_darcs/prefs sub/.pijul sub/.jj/repo
		printf "[hooks]\npre-identify = touch /tmp/pwned\n" >sub/.hg/hgrc
		echo dotencode >sub/.hg/requires
		echo "apply posthook touch /tmp/pwned" >sub/_darcs/prefs/defaults
		printf "[hooks]\nrecord = [\"touch /tmp/pwned\"]\n" >sub/.pijul/config
		printf "[ui]\npager = \"touch /tmp/pwned\"\n" >sub/.jj/repo/config.toml
		mkdir -p hgdir sub2 && cp sub/.hg/hgrc hgdir/ && ln -s ../hgdir sub2/.hg
		echo code >sub/main.c; echo more >> README'
	assert_eq "$rc" 0 "the run ($err)"
	run_jail apply -D "$T/p"
	assert_eq "$rc" 0 "jail apply ($err)"
	assert_eq "$(tail -n 1 "$T/p/README")" "more" "the rest landed"
	assert_file "$T/p/sub/main.c"
	for d in .hg _darcs .pijul .jj; do
		assert_no_file "$T/p/sub/$d"
	done
	assert_no_file "$T/p/sub2/.hg" # a link there, to a directory that holds an hgrc
}

# ATTACK: through a --rw inside the project the agent moves the host's
# files: a directory that holds a covered secret (sub/conf/.env), moved
# below a git directory's objects/ it made (sub/x/.git/objects/conf), was
# not judged at the next start (names there are ids and branches: the walk
# passed over them, as the view does), and the secret was the host's file
# there; so was a secret directory moved below refs/.  Every name is judged
# now (below refs/, where a branch may be named secrets/x, a file that holds
# no ref is covered).  Here the host has them there, as the move left them.
test_secret_below_a_git_store_in_a_bind_is_covered() {
	git_init "$T/p"
	printf '.env\nsub/\n' >"$T/p/.gitignore"
	git -C "$T/p" add .gitignore
	git -C "$T/p" commit -q -m init
	mkdir -p "$T/p/sub/x/.git/objects/conf"
	printf 'SECRET=canary-rw-moved\n' >"$T/p/sub/x/.git/objects/conf/.env"
	git_init "$T/p/sub/y"
	git -C "$T/p/sub/y" commit -q --allow-empty -m first
	git -C "$T/p/sub/y" branch secrets/x # a branch's name: its ref stays
	mkdir -p "$T/p/sub/y/.git/refs/heads/secrets/data/secrets"
	printf '{"key": "canary-rw-dir"}\n' >"$T/p/sub/y/.git/refs/heads/secrets/data/secrets/prod.json"
	run_jail -q -D "$T/p" --rw "$T/p/sub" -- sh -c 'cat sub/x/.git/objects/conf/.env
		cat sub/y/.git/refs/heads/secrets/data/secrets/prod.json
		cd sub/y && git log --format=%s secrets/x; true'
	assert_contains "$out" first # the positive control: the branch's ref is read
	assert_eq "$(grep -c canary <<<"$out")" 0 "what the agent read of the secrets there"
}

# ATTACK: the same move, into a directory --show names in the bind (build
# output the user keeps shown): shown at the next start, as what --show
# names is.  A cover's directories below a --rw are pinned now (each bound
# onto itself): the agent cannot move a secret away from its cover.
test_rw_bind_secret_cannot_be_moved_away_from_its_cover() {
	git_init "$T/p"
	printf '.env\nsub/\n' >"$T/p/.gitignore"
	git -C "$T/p" add .gitignore
	git -C "$T/p" commit -q -m init
	mkdir -p "$T/p/sub/conf" "$T/p/sub/build" "$T/p/sub/lib/.git"
	printf 'SECRET=canary-rw-moved\n' >"$T/p/sub/conf/.env"
	printf '[remote "o"]\n\turl = https://u:canaryTOKEN77@example.com/x\n' >"$T/p/sub/lib/.git/config"
	run_jail -q -D "$T/p" --rw "$T/p/sub" --show sub/build -- sh -c 'cat sub/conf/.env
		mv sub/conf sub/build/conf && echo moved-secret
		mv sub/lib/.git sub/lib/gitdir && echo moved-git; echo done'
	assert_contains "$out" done
	assert_not_contains "$out" moved
	run_jail -q -D "$T/p" --rw "$T/p/sub" --show sub/build -- sh -c \
		'cat sub/build/conf/.env sub/lib/gitdir/config sub/conf/.env sub/lib/.git/config; true'
	assert_eq "$(grep -c canary <<<"$out")" 0 "what the agent read of the moved secrets"
}

# ATTACK: a live socket of the host's below a --rw is covered (a mount over
# it: it cannot be renamed or removed), but its directory could be: the
# agent moved it (run/ to moved/), and at the next start the kernel's name
# of the socket (run/app.sock) led nowhere, so nothing was covered, and the
# agent connected to the host's process at moved/app.sock.  The directories
# between a --rw and a socket covered below it are pinned (each bound onto
# itself): they cannot be moved.
test_rw_bind_socket_directory_cannot_be_moved_away_from_its_cover() {
	probe_setup
	trap stop_hosts EXIT
	mkdir -p "$T/w/run"
	local s="$T/w/run/app.sock"
	"$T/host/probe" listen "$s" 100 >"$T/app.log" &
	HOSTS+=($!)
	wait_for grep -q listening "$T/app.log"
	run_jail -q --rw "$T/w" --ro "$T/bin" -D "$T/p" -- sh -c \
		"'$T/bin/probe' connect-unix '$s'; echo rc=\$?; mv '$T/w/run' '$T/w/moved'"
	assert_contains "$out" "rc=$EACCES" # the cover
	run_jail -q --rw "$T/w" --ro "$T/bin" -D "$T/p" -- sh -c \
		"for s in '$T/w/moved/app.sock' '$s'; do '$T/bin/probe' connect-unix \$s; echo rc=\$?; done"
	assert_not_contains "$out" "rc=0" # (a connection the host's process took)
	assert_file "$s"
}

# ATTACK: the view reads at most 4,096 names below hidden directories to
# find the secrets whose objects it withholds, one budget for all of them,
# in the list's order: a large ignored node_modules/ before secrets/ took it
# all, and secrets/prod.json, staged by mistake and unstaged, was served
# from its object.  The secrets' own paths are read first now, each pass
# with a budget of its own.
test_a_large_ignored_directory_does_not_starve_the_secrets() {
	git_init "$T/p"
	printf 'node_modules/\nsecrets/\n' >"$T/p/.gitignore"
	printf 'hello\n' >"$T/p/README"
	git -C "$T/p" add .gitignore README
	git -C "$T/p" commit -q -m init
	local i j
	for i in $(seq 1 50); do
		mkdir -p "$T/p/node_modules/pkg$i"
		for j in $(seq 1 100); do : >"$T/p/node_modules/pkg$i/f$j.js"; done
	done
	mkdir -p "$T/p/secrets"
	printf '{"key": "canary-starved"}\n' >"$T/p/secrets/prod.json"
	git -C "$T/p" add -f secrets/prod.json
	git -C "$T/p" reset -q secrets/prod.json
	run_jail -q -D "$T/p" -- sh -c 'git cat-file --batch-all-objects --batch | grep -a canary
		cat README'
	assert_contains "$out" hello # the positive control
	assert_eq "$(grep -c canary <<<"$out")" 0 "what the agent read of secrets/prod.json"
}
