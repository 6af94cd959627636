# The escape suite, fourth round on hidden files: an attacker's review of
# "git-ignored files are hidden" and of the secret-name modes.  Each test
# fails on the build before its fix.
source "$TESTS/security/helpers.bash"

# DIR DEPTH: a path of DEPTH directories named "d" below DIR, made.
deep_dir() {
	local d=$1 i
	for ((i = 0; i < $2; i++)); do d="$d/d"; done
	mkdir -p "$d"
	printf '%s\n' "$d"
}

# The search for secret-shaped names (a project without git, a directory
# shown by --hide-ignored=secrets, a --hide pattern) stopped 64 directories
# down, while the view shows names 256 down: a `.env` 70 directories deep
# was readable.  It goes as deep as the view now.
test_deep_secrets_stay_hidden() {
	mkdir -p "$T/n"
	printf 'hello\n' >"$T/n/README"
	local d rel
	d=$(deep_dir "$T/n" 70)
	rel=${d#"$T/n/"}
	printf 'canary-deep-env\n' >"$d/.env"
	printf 'canary-deep-hide\n' >"$d/private.txt"
	printf 'shown\n' >"$d/plain.txt"
	run_jail -q --hide private.txt -D "$T/n" -- sh -c 'cat README "$1/plain.txt"; ls -a "$1"; cat "$1/.env" "$1/private.txt"' sh "$rel"
	assert_contains "$out" shown # the positive control: the deep directory is there
	assert_eq "$(grep -c -e canary -e env -e private <<<"$out")" 0 "what the agent saw of deep secrets"
	# and below an ignored directory that --hide-ignored=secrets shows
	git_init "$T/g"
	printf 'build/\n' >"$T/g/.gitignore"
	printf 'hello\n' >"$T/g/README"
	git -C "$T/g" add .gitignore README
	git -C "$T/g" commit -q -m init
	d=$(deep_dir "$T/g/build" 70)
	rel=${d#"$T/g/"}
	printf 'canary-deep-build\n' >"$d/server.key"
	printf 'shown\n' >"$d/out.o"
	run_jail -q --hide-ignored=secrets -D "$T/g" -- sh -c 'cat "$1/out.o"; ls -a "$1"; cat "$1/server.key"' sh "$rel"
	assert_contains "$out" shown
	assert_eq "$(grep -c -e canary -e server.key <<<"$out")" 0 "what the agent saw of a deep key in shown build output"
}
