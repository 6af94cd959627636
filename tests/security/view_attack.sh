# The escape suite: the project view (src/view) attacked with fresh eyes.
# Paths the project's own ignore rules name stay hidden wherever git itself
# would not look for them.
source "$TESTS/security/helpers.bash"

# A project whose .gitignore hides .env and *.key everywhere; $1 is a
# directory in it for an inner repository.
outer_repo() {
	git_init "$T/p"
	printf '.env\n*.key\ncache/\n' >"$T/p/.gitignore"
	printf 'hello\n' >"$T/p/README"
	git -C "$T/p" add .gitignore README
	git -C "$T/p" commit -q -m init
}

# A clone of a tool inside the project (not a submodule): git does not walk
# into it, and its own rules do not name .env; the project's rules do.
test_project_rules_hold_in_a_nested_repository() {
	outer_repo
	git_init "$T/p/vendor/tool"
	printf 'tool\n' >"$T/p/vendor/tool/main.c"
	printf 'SECRET=canary-nested\n' >"$T/p/vendor/tool/.env"
	printf 'canary-nested-key\n' >"$T/p/vendor/tool/deploy.key"
	mkdir -p "$T/p/vendor/tool/cache"
	printf 'canary-nested-cache\n' >"$T/p/vendor/tool/cache/c.txt"
	run_jail -q -D "$T/p" -- sh -c 'cat vendor/tool/main.c; ls -aR vendor;
		cat vendor/tool/.env vendor/tool/deploy.key vendor/tool/cache/c.txt'
	assert_contains "$out" tool # the positive control: the clone is there
	assert_eq "$(grep -c -e canary -e '\.env' -e deploy.key -e '^cache' <<<"$out")" 0 \
		"what the agent saw of the nested repository's ignored files"
}

# The same in an initialised submodule, whose files git leaves to the
# submodule's rules.
test_project_rules_hold_in_a_submodule() {
	git_init "$T/sm"
	printf 'x\n' >"$T/sm/f"
	git -C "$T/sm" add f
	git -C "$T/sm" commit -q -m init
	outer_repo
	git -C "$T/p" -c protocol.file.allow=always submodule add -q "$T/sm" sm >/dev/null 2>&1
	git -C "$T/p" commit -q -m sub
	printf 'SECRET=canary-submodule\n' >"$T/p/sm/.env"
	run_jail -q -D "$T/p" -- sh -c 'cat sm/f; ls -a sm; cat sm/.env'
	assert_contains "$out" x # the positive control: the submodule is there
	assert_eq "$(grep -c -e canary -e '\.env' <<<"$out")" 0 \
		"what the agent saw of the submodule's ignored .env"
}

# own_by_other DIR / own_back DIR: hand DIR to a uid of our subordinate range
# (a user namespace maps it), so that it belongs to "another user", and back.
own_by_other() {
	local sub
	sub=$(awk -F: -v u="$(id -un)" '$1 == u { print $2; exit }' /etc/subuid 2>/dev/null)
	[ -n "$sub" ] || return 1
	unshare --map-root-user --map-users="$sub,1,1" --map-groups="$sub,1,1" \
		chown -R 1:1 "$1" 2>/dev/null
}
own_back() {
	local sub
	sub=$(awk -F: -v u="$(id -un)" '$1 == u { print $2; exit }' /etc/subuid)
	unshare --map-root-user --map-users="$sub,1,1" --map-groups="$sub,1,1" \
		chown -R 0:0 "$1"
}

# A repository another user owns (a shared checkout): git refuses it
# (safe.directory) with the exit it gives outside any repository, and the
# start took it for a project without ignore rules, showing local.conf.
test_another_users_repository_is_not_taken_for_no_repository() {
	git_init "$T/o"
	printf 'local.conf\n' >"$T/o/.gitignore"
	printf 'hello\n' >"$T/o/README"
	printf 'canary-other-owner\n' >"$T/o/local.conf"
	# a shared checkout: readable by all, whatever our umask made it
	chmod -R a+rX "$T/o"
	own_by_other "$T/o" || skip "no subordinate uid to own a repository as another user"
	run_jail -q -D "$T/o" -- sh -c 'cat local.conf; true'
	own_back "$T/o"
	assert_eq "$(grep -c canary <<<"$out")" 0 "what the agent read of the ignored local.conf"
	assert_contains "$err" "belongs to another user"
	# the command read the project and found nothing: its own exit (0 here)
	# would say all went well
	assert_eq "$rc" 125 "jail's exit when the project's view failed"
}

# Secret-shaped names under other common spellings: an env file named for its
# stage (docker compose's env_file: prod.env), a PostgreSQL password file, a
# Vault token, a KeePass database, S3 and boto credentials, PuTTY, Apple (.p8)
# and OpenVPN keys.  In a project without git only secret-shaped names are
# hidden.
test_secret_names_cover_common_spellings() {
	mkdir -p "$T/n"
	printf 'hello\n' >"$T/n/README"
	local f names="prod.env .pgpass .vault-token vault.kdbx .s3cfg .boto server.ppk
		AuthKey_AB12.p8 office.ovpn"
	for f in $names; do
		printf 'canary-%s\n' "$f" >"$T/n/$f"
	done
	run_jail -q -D "$T/n" -- sh -c 'cat README; ls -a; cat $1' sh "$names"
	assert_contains "$out" hello
	assert_eq "$(grep -c -e canary -e env -e pgpass -e vault -e s3cfg -e boto -e ppk -e p8 -e ovpn <<<"$out")" 0 \
		"what the agent saw of the secret-shaped files"
}

# A git dir inside the project under another name than .git: the project's
# own (git init --separate-git-dir, its .git a file that names it) and a bare
# clone.  Their configs' credentials are withheld as a .git directory's are.
test_credentials_withheld_in_git_dirs_of_other_names() {
	mkdir -p "$T/s/meta"
	git -C "$T/s" init -q -b main --separate-git-dir="$T/s/meta/gd"
	git -C "$T/s" remote add origin https://user:ghp_canarySeparate@example.com/x/y
	printf 'hello\n' >"$T/s/README"
	git init -q --bare "$T/s/backup.git"
	git -C "$T/s/backup.git" remote add origin https://user:ghp_canaryBare@example.com/x/z
	run_jail -q -D "$T/s" -- sh -c 'cat README; cat meta/gd/config backup.git/config'
	assert_contains "$out" hello
	assert_contains "$out" "url = " # the positive control: the configs are there
	assert_eq "$(grep -c canary <<<"$out")" 0 "credentials the agent read"
}
