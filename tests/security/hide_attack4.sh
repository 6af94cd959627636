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

# The user's git config may set the global ignore file only for some
# repositories, `includeIf "gitdir:~/work/"` (a work/personal split), or in
# the system's config.  jail read the user's files with `git config --file`,
# where such a condition never holds, and never the system's: the files that
# git on the host ignores were shown.  git is asked in the project now, with
# the user's config as the user's git reads it.
test_excludes_file_set_under_a_conditional_include_is_honoured() {
	hide_repo
	printf 'canary-work-only\n' >"$T/p/prod.json"
	printf 'canary-shown\n' >"$T/p/notes.txt"
	mkdir -p "$T/xdg/git"
	printf '[includeIf "gitdir:%s/"]\n\tpath = %s\n' "$T/p" "$T/work.gitconfig" >"$T/xdg/git/config"
	printf '[core]\n\texcludesFile = %s\n' "$T/work-ignore" >"$T/work.gitconfig"
	printf 'prod.json\n' >"$T/work-ignore"
	[ "$(cd "$T/p" && XDG_CONFIG_HOME=$T/xdg git status --porcelain --ignored prod.json)" = '!! prod.json' ] ||
		fail "git on the host does not ignore prod.json: the set-up proves nothing"
	out=$(XDG_CONFIG_HOME=$T/xdg "$JAIL" -q --no-export -D "$T/p" -- sh -c 'ls -a; cat notes.txt prod.json 2>/dev/null; true')
	assert_contains "$out" canary-shown # the positive control
	assert_not_contains "$out" prod.json
	assert_not_contains "$out" canary-work-only
	# the system's config (GIT_CONFIG_SYSTEM names it, as /etc/gitconfig)
	printf '[core]\n\texcludesFile = %s\n' "$T/system-ignore" >"$T/system.gitconfig"
	printf 'notes.txt\n' >"$T/system-ignore"
	[ "$(cd "$T/p" && env -u GIT_CONFIG_NOSYSTEM GIT_CONFIG_SYSTEM="$T/system.gitconfig" \
		git status --porcelain --ignored notes.txt)" = '!! notes.txt' ] ||
		fail "git on the host does not ignore notes.txt: the set-up proves nothing"
	out=$(env -u GIT_CONFIG_NOSYSTEM GIT_CONFIG_SYSTEM="$T/system.gitconfig" "$JAIL" -q --no-export -D "$T/p" -- sh -c 'ls -a; cat notes.txt 2>/dev/null; true')
	assert_contains "$out" README
	assert_not_contains "$out" notes.txt
	assert_not_contains "$out" canary-shown
}

# A gitlink whose directory is not a repository (a submodule's checkout
# replaced by a plain copy, a clone whose .git was removed after `git add`):
# the project's git lists nothing in it, ignored or not, and jail asked no
# other git, so lib/.env was shown although the project's .gitignore names
# .env.  The project's rules hold there now, run after run.
test_project_rules_hold_in_a_gitlink_that_is_no_repository() {
	hide_repo
	git -C "$T/p" update-index --add --cacheinfo 160000,1111111111111111111111111111111111111111,lib
	git -C "$T/p" commit -q -m 'a gitlink'
	mkdir -p "$T/p/lib"
	printf 'int main;\n' >"$T/p/lib/main.c"
	printf 'canary-gitlink-env\n' >"$T/p/lib/.env"
	local i
	for i in 1 2; do
		run_jail -q --no-export -D "$T/p" -- sh -c 'ls -a lib; cat lib/main.c lib/.env'
		assert_contains "$out" 'int main;' # the positive control: the directory is there
		assert_not_contains "$out" .env
		assert_not_contains "$out" canary-gitlink-env
	done
	# one the host adds between runs: the cached answer is not taken
	printf 'canary-gitlink-key\n' >"$T/p/lib/deploy.key"
	run_jail -q --no-export -D "$T/p" -- sh -c 'ls -a lib; cat lib/deploy.key'
	assert_contains "$out" main.c
	assert_not_contains "$out" canary-gitlink-key
}

# With --hide-start-only, hiding is whiteouts made at start in the session's
# layer, and an entry the agent made there stays.  A directory it made where
# the host had none (secrets/) merged, at a later start, with the host's
# directory of that name, ignored now: the host's keys in it were listed and
# read.  The agent's directory is made opaque: its own files stay, the
# host's do not show through.
test_agents_directory_does_not_merge_with_a_hidden_one() {
	hide_repo
	run_jail -q --hide-start-only --no-export -D "$T/p" -- sh -c 'mkdir secrets; echo mine >secrets/mine.txt'
	mkdir "$T/p/secrets"
	printf 'canary-merged-key\n' >"$T/p/secrets/prod.key"
	printf 'canary-merged-notes\n' >"$T/p/secrets/notes.txt"
	run_jail -q --hide-start-only --no-export -D "$T/p" -- sh -c 'ls -a secrets; cat secrets/*'
	assert_contains "$out" mine # the positive control: the agent's own file stays
	assert_not_contains "$out" canary-merged
	assert_not_contains "$out" prod.key
}

# core.ignoreCase = true in the user's ~/.gitconfig (dotfiles shared with a
# Mac) makes the host's git ignore .ENV by a `.env` rule; hardened git reads
# only the repository's config, so jail showed .ENV.  The user's value is
# asked for as git reads it in the project.
test_user_ignore_case_is_honoured() {
	hide_repo
	printf 'canary-upper-env\n' >"$T/p/.ENV"
	printf 'canary-upper-key\n' >"$T/p/DEPLOY.KEY"
	mkdir -p "$T/xdg/git"
	printf '[core]\n\tignoreCase = true\n' >"$T/xdg/git/config"
	[ "$(cd "$T/p" && XDG_CONFIG_HOME=$T/xdg git status --porcelain --ignored .ENV)" = '!! .ENV' ] ||
		fail "git on the host does not ignore .ENV: the set-up proves nothing"
	out=$(XDG_CONFIG_HOME=$T/xdg "$JAIL" -q --no-export -D "$T/p" -- sh -c 'ls -a; cat .ENV DEPLOY.KEY 2>/dev/null; true')
	assert_contains "$out" README # the positive control
	assert_not_contains "$out" canary-upper
	assert_not_contains "$out" .ENV
}

# A file of a secret-shaped name in a git directory is not shown (a
# credential store there), but a directory of one was, with all in it:
# `credential.helper 'store --file=.git/credentials/store'`, .git/secrets/.
# Such directories are not shown now, but for a submodule's or a linked
# worktree's git dir, which are named as the user named those.
test_secret_shaped_directories_in_a_git_dir_not_shown() {
	hide_repo
	mkdir -p "$T/p/.git/credentials" "$T/p/.git/secrets" "$T/sub"
	printf 'https://u:canary-store-token@example.com\n' >"$T/p/.git/credentials/store"
	printf 'canary-gitdir-secret\n' >"$T/p/.git/secrets/token.txt"
	git_init "$T/sub"
	printf 'sub-file-content\n' >"$T/sub/f"
	git -C "$T/sub" add f
	git -C "$T/sub" commit -q -m sub-commit-msg
	git -C "$T/p" -c protocol.file.allow=always submodule -q add --name secrets "$T/sub" deps/keys
	git -C "$T/p" commit -q -m 'a submodule named secrets'
	[ -d "$T/p/.git/modules/secrets" ] || fail "the submodule's git dir is not .git/modules/secrets"
	run_jail -q --no-export -D "$T/p" -- sh -c 'ls -a .git; cat .git/credentials/store .git/secrets/token.txt; git -C deps/keys log --format=%s; cat deps/keys/f'
	assert_contains "$out" sub-commit-msg # the positive control: the submodule named secrets works
	assert_contains "$out" sub-file-content
	assert_contains "$out" "HEAD"
	assert_not_contains "$out" canary
	assert_not_contains "$out" credentials
}

# The same at the top of a linked worktree's common git dir, which is
# overlaid as the host has it: a directory of a secret-shaped name there gets
# a whiteout too.
test_secret_shaped_directory_in_a_worktrees_common_dir_not_shown() {
	git_init "$T/main"
	printf 'hello\n' >"$T/main/README"
	git -C "$T/main" add README
	git -C "$T/main" commit -q -m init
	mkdir -p "$T/main/.git/credentials"
	printf 'https://u:canary-common-dir@example.com\n' >"$T/main/.git/credentials/store"
	git -C "$T/main" worktree add -q "$T/p" 2>/dev/null
	run_jail -q -D "$T/p" -- sh -c "git log --format=%s; ls -a '$T/main/.git';
		cat '$T/main/.git/credentials/store'"
	assert_contains "$out" init # the positive control: git works
	assert_not_contains "$out" canary
	assert_not_contains "$out" credentials
	assert_contains "$(cat "$T/main/.git/credentials/store")" canary-common-dir "the host's file"
}

# A project that is not a git repository but holds some (a folder with api/
# and web/, each a clone): jail hid secret-shaped names only, and never asked
# the repositories inside, so what they ignore under other names
# (app.local.yml, local_settings.py) was shown.  Their rules hold now.
test_repositories_in_a_project_without_git_keep_their_rules() {
	mkdir -p "$T/n"
	printf 'top\n' >"$T/n/README"
	local r
	for r in api web; do
		git_init "$T/n/$r"
		printf 'app.local.yml\nlocal_settings.py\n' >"$T/n/$r/.gitignore"
		printf 'code-%s\n' "$r" >"$T/n/$r/main.c"
		git -C "$T/n/$r" add -A
		git -C "$T/n/$r" commit -q -m init
	done
	printf 'canary-local-yml\n' >"$T/n/api/app.local.yml"
	printf 'canary-local-settings\n' >"$T/n/web/local_settings.py"
	run_jail --no-export -D "$T/n" -- sh -c 'sleep 1; cat api/main.c web/main.c; ls -a api web; cat api/app.local.yml web/local_settings.py'
	assert_contains "$out" code-api # the positive control: the repositories' files are there
	assert_contains "$out" code-web
	assert_not_contains "$out" canary
	assert_not_contains "$out" app.local.yml
	assert_not_contains "$out" local_settings
	assert_contains "$err" "2 paths that the git repositories in it ignore are hidden"
}

# The names the view shows are those of the walk at start; git is asked
# after it what is ignored.  A name gone while git looked (a watching build's
# `rm -rf dist` before it writes dist/ again, an .env written anew) was not
# in git's answer but still in the walk's names, and shown once it was back.
# What changed since git was asked is judged by the rules alone now.  A
# wrapper makes dist/ go away while the view's git lists, then come back.
test_ignored_directory_gone_while_git_lists_stays_hidden() {
	hide_repo
	printf 'dist/\n' >>"$T/p/.gitignore"
	git -C "$T/p" commit -q -am 'dist/ too'
	mkdir -p "$T/p/dist" "$T/wrap"
	printf 'canary-dist-build\n' >"$T/p/dist/app.js"
	run_jail -q --no-export -D "$T/p" -- true # the caches of a first start
	printf '*.log\n' >>"$T/p/.gitignore"       # git is asked again, not the cache
	local real
	real=$(command -v git)
	cat >"$T/wrap/git" <<WRAP
#!/bin/sh
case " \$* " in
*" ls-files "*"--ignored"*)
	[ -e "$T/moved" ] && exec "$real" "\$@"
	touch "$T/moved"
	mv "$T/p/dist" "$T/dist.away"; "$real" "\$@"; r=\$?; mv "$T/dist.away" "$T/p/dist"
	exit \$r ;;
esac
exec "$real" "\$@"
WRAP
	chmod +x "$T/wrap/git"
	out=$(PATH=$T/wrap:$PATH "$JAIL" -q --no-export -D "$T/p" -- sh -c 'ls -a; ls -a dist; cat dist/app.js 2>/dev/null; true')
	assert_file "$T/moved"
	assert_contains "$out" README # the positive control
	assert_not_contains "$out" canary-dist
	assert_not_contains "$out" app.js
}

# The same for the names judged by their shape (a project without git,
# --hide-ignored=secrets in shown build output, --hide): they were looked for
# in the project again after the walk, so an .env gone for a moment then (a
# tool writing it anew) was not hidden but still among the walk's names, and
# shown once back.  They are looked for among the walk's names now.  A
# wrapper takes build/.env away while the git of a repository inside the
# project lists, the last git run before the search, and puts it back a
# second later.
test_secret_gone_while_names_are_searched_stays_hidden() {
	hide_repo
	printf 'build/\n' >>"$T/p/.gitignore"
	git -C "$T/p" commit -q -am 'build/ too'
	mkdir -p "$T/p/build" "$T/wrap"
	printf 'canary-build-env\n' >"$T/p/build/.env"
	printf 'shown\n' >"$T/p/build/out.o"
	git_init "$T/p/lib/x"
	local real
	real=$(command -v git)
	cat >"$T/wrap/git" <<WRAP
#!/bin/sh
case "\$PWD \$* " in
*/lib/x*" ls-files "*"--ignored"*)
	[ -e "$T/moved" ] && exec "$real" "\$@"
	touch "$T/moved"
	mv "$T/p/build/.env" "$T/env.away"
	(sleep 1; mv "$T/env.away" "$T/p/build/.env") </dev/null >/dev/null 2>&1 &
	exec "$real" "\$@" ;;
esac
exec "$real" "\$@"
WRAP
	chmod +x "$T/wrap/git"
	out=$(PATH=$T/wrap:$PATH "$JAIL" -q --no-export --hide-ignored=secrets -D "$T/p" -- \
		sh -c 'sleep 2; cat build/out.o; ls -a build; cat build/.env 2>/dev/null; true')
	assert_file "$T/moved"
	assert_file "$T/p/build/.env"
	assert_contains "$out" shown # the positive control: the build output is there
	assert_not_contains "$out" canary-build-env
	assert_not_contains "$out" .env
}

# --hide-ignored=secrets and projects without git go by a list of names.
# Common ones holding secrets were not on it: Rails's config/secrets.yml,
# ASP.NET's secrets.json, .secrets, Terraform's terraform.tfvars, a GCP
# service account's or Firebase's key file, .htpasswd.  They are now.
test_secret_names_cover_more_common_files() {
	hide_repo
	printf 'config/secrets.yml\nsecrets.json\n.secrets\n*.tfvars\n*.json\n.htpasswd\nbuild/\n' \
		>>"$T/p/.gitignore"
	git -C "$T/p" commit -q -am 'more ignored'
	mkdir -p "$T/p/config" "$T/p/infra" "$T/p/build"
	local f names="config/secrets.yml secrets.json .secrets infra/terraform.tfvars
		infra/prod.tfvars.json service-account.json serviceAccountKey.json .htpasswd"
	for f in $names; do
		printf 'canary-%s\n' "$f" >"$T/p/$f"
	done
	printf 'shown\n' >"$T/p/build/out.o"
	run_jail -q --no-export --hide-ignored=secrets -D "$T/p" -- sh -c 'cat build/out.o; ls -a . config infra; cat $1' sh "$names"
	assert_contains "$out" shown # the positive control: ignored build output is there
	assert_not_contains "$out" canary
	assert_not_contains "$out" tfvars
	assert_not_contains "$out" htpasswd
}
