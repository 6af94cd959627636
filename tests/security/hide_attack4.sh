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

# A repository that keeps a tracked README in secrets/ and .aws/config, and
# ignores what else is there: git lists each ignored file there on its own
# (secrets/prod-db.txt, .aws/sso/), not the directory.
tracked_secret_dirs() {
	git_init "$T/p"
	mkdir -p "$T/p/secrets" "$T/p/.aws"
	printf '*\n!.gitignore\n!README\n' >"$T/p/secrets/.gitignore"
	printf 'put the keys here\n' >"$T/p/secrets/README"
	printf 'sso/\n' >"$T/p/.aws/.gitignore"
	printf '[default]\nregion = eu-west-1\n' >"$T/p/.aws/config"
	printf 'hello\n' >"$T/p/README"
	git -C "$T/p" add -A
	git -C "$T/p" commit -q -m init
}

# --hide-ignored=secrets hid an ignored path whose own name is secret-shaped,
# so an ignored file in a tracked secrets/ or .aws/ was shown: git names the
# file, not the directory.  A secret-shaped directory above counts now, as
# it does in a project without git and for a bind's covers.
test_secrets_mode_hides_ignored_files_in_tracked_secret_dirs() {
	tracked_secret_dirs
	printf 'canary-prod-db\n' >"$T/p/secrets/prod-db.txt"
	mkdir -p "$T/p/.aws/sso/cache"
	printf 'canary-sso-token\n' >"$T/p/.aws/sso/cache/token.json"
	run_jail -q --hide-ignored=secrets -D "$T/p" -- \
		sh -c 'cat secrets/README; ls -a secrets .aws; cat secrets/prod-db.txt .aws/sso/cache/token.json'
	assert_contains "$out" "put the keys here" # the positive control: tracked files are there
	assert_eq "$(grep -c -e canary -e prod-db -e sso <<<"$out")" 0 "what the agent saw in tracked secret directories"
	# --show lets the directory in, whole
	run_jail -q --hide-ignored=secrets --show secrets -D "$T/p" -- cat secrets/prod-db.txt
	assert_contains "$out" canary-prod-db
}

# The content of a hidden file git once stored is withheld from the view's
# objects when the file is a secret's: a secret-shaped name, or below a
# hidden directory of one.  secrets/prod-db.txt, hidden on its own in a
# tracked secrets/, was not taken for one: staged once by mistake, its blob
# was readable with git cat-file.
test_objects_of_ignored_files_in_tracked_secret_dirs_withheld() {
	tracked_secret_dirs
	printf 'canary-staged-prod-db\n' >"$T/p/secrets/prod-db.txt"
	git -C "$T/p" add -f secrets/prod-db.txt
	git -C "$T/p" rm -q --cached secrets/prod-db.txt
	local reader='cat README; for f in .git/objects/??/*; do d=${f%/*}; git cat-file -p "${d##*/}${f##*/}"; done 2>/dev/null'
	grep -q canary-staged <<<"$(cd "$T/p" && sh -c "$reader")" ||
		fail "the reader finds nothing on the host: it proves nothing"
	run_jail -q -D "$T/p" -- sh -c "$reader"
	assert_contains "$out" hello
	assert_eq "$(grep -c canary-staged <<<"$out")" 0 "what the agent read of a hidden file's object"
}
