# Integration tests for policies (issue 6): layering, +=, errors with file:line,
# trust, secrets, policy show/list, the shipped policies, the embedded default.

CONF() { echo "$XDG_CONFIG_HOME/jail"; }
shipped() { echo "$TESTS/../policies"; }

# The value of a key in `jail policy show` output: "key = value   ; origin".
show_line() { # output key
	grep -E "^$2 " <<<"$1" | head -n 1
}

test_embedded_default_with_nothing_installed() {
	mkdir -p "$T/bin" "$T/emptyhome"
	cp "$JAIL" "$T/bin/jail"
	mkrepo "$T/p"
	cd "$T/bin"
	out=$(env -u JAIL_POLICY_PATH HOME="$T/emptyhome" XDG_CONFIG_HOME= ./jail policy show -D "$T/p")
	assert_contains "$(show_line "$out" mode)" "mode = fresh"
	assert_contains "$out" "mode = none                            ; <embedded default.ini>:"
	assert_contains "$out" "max_size = 5M"
	run=$(env -u JAIL_POLICY_PATH HOME="$T/emptyhome" XDG_CONFIG_HOME= ./jail -D "$T/p" --no-export -- cat README)
	assert_eq "$run" "hello"
	[ -z "$(ls -A "$T/emptyhome")" ] || fail "the empty HOME was written: $(ls -A "$T/emptyhome")"
}

test_layering_order_and_provenance() {
	mkrepo "$T/p"
	mkdir -p "$(CONF)/policies"
	printf '[env]\nset += LAYER=named\nset += FROM_NAMED=1\n[limits]\npids = 100\n' >"$(CONF)/policies/mine.ini"
	printf '[env]\nset += LAYER=user\n[limits]\npids = 200\n' >"$(CONF)/jail.ini"
	printf '[env]\nset += LAYER=project\n' >"$T/p/.jail.ini"
	"$JAIL" trust -D "$T/p" >/dev/null
	run_jail -D "$T/p" -p mine --no-export -- sh -c 'echo "$LAYER $FROM_NAMED"'
	assert_eq "$rc" 0
	assert_eq "$out" "project 1"
	run_jail -D "$T/p" -p mine --no-export --setenv LAYER=flag -- sh -c 'echo "$LAYER"'
	assert_eq "$out" "flag"
	out=$("$JAIL" policy show -p mine -D "$T/p")
	assert_contains "$out" "pids = 200                             ; $(realpath "$(CONF)")/jail.ini:4"
	assert_contains "$out" "set += LAYER=project                   ; $(realpath "$T/p")/.jail.ini:2"
	assert_contains "$out" "set += FROM_NAMED=1                    ; $(realpath "$(CONF)")/policies/mine.ini:3"
	# the order of the layers, as show lists them
	layers=$(grep '^;   ' <<<"$out" | tr -d ';' | tr -d ' ' | tr '\n' ' ')
	assert_eq "$layers" "<embeddeddefault.ini> $(realpath "$(CONF)")/policies/mine.ini $(realpath "$(CONF)")/jail.ini $(realpath "$T/p")/.jail.ini "
}

test_append_versus_replace() {
	mkrepo "$T/p"
	mkdir -p "$(CONF)"
	printf '[fs]\nhide = a*, b*\nhide += c*\n[net]\nallow = x.example:443\n' >"$(CONF)/base.ini"
	printf '[fs]\nhide += d*\n[net]\nallow = y.example:443\n' >"$(CONF)/top.ini"
	out=$("$JAIL" policy show -p "$(CONF)/base.ini" -p "$(CONF)/top.ini" -D "$T/p")
	assert_eq "$(grep -cE '^hide \+?=' <<<"$out")" 4 "hide items"
	assert_contains "$out" "hide += d*"
	assert_eq "$(grep -c '^allow = \|^allow += ' <<<"$out" | head -1)" 3 "allow lines (net + export)"
	assert_contains "$out" "allow = y.example:443"
	assert_not_contains "$out" "x.example"
}

test_errors_name_file_and_line_exit_125() {
	mkrepo "$T/p"
	mkdir -p "$(CONF)"
	printf '[net]\nmode = allow\nallow += nope\n' >"$(CONF)/jail.ini"
	expect_fail125 -D "$T/p" -- true
	assert_contains "$err" "$(realpath "$(CONF)")/jail.ini:3: net.allow: nope: expected HOST:PORT"
	printf '[fs]\nro = /usr\n\n[nosuch]\n' >"$(CONF)/jail.ini"
	expect_fail125 -D "$T/p" -- true
	assert_contains "$err" "jail.ini:4: unknown section [nosuch]"
	printf '[fs]\nrox = /usr\n' >"$(CONF)/jail.ini"
	expect_fail125 -D "$T/p" -- true
	assert_contains "$err" "jail.ini:2: unknown key 'rox' in [fs]"
	printf '[export]\ndeny = [abc\n' >"$(CONF)/jail.ini"
	expect_fail125 -D "$T/p" -- true
	assert_contains "$err" "jail.ini:2: export.deny: bad pattern '[abc'"
	printf '[limits]\ncpus = many\n' >"$(CONF)/jail.ini"
	expect_fail125 -D "$T/p" -- true
	assert_contains "$err" "jail.ini:2: limits.cpus = many: expected N|none"
	printf '[fs]\n' >"$(CONF)/jail.ini"
	chmod 000 "$(CONF)/jail.ini"
	expect_fail125 -D "$T/p" -- true
	assert_contains "$err" "jail.ini': Permission denied"
	rm -f "$(CONF)/jail.ini"
	expect_fail125 -D "$T/p" -p nosuchpolicy -- true
	assert_contains "$err" "policy 'nosuchpolicy' not found in"
	# nothing started: no session was created
	assert_no_file "$(session_dir "$T/p")/upper"
}

test_include_cycle_is_an_error() {
	mkrepo "$T/p"
	mkdir -p "$(CONF)/policies"
	printf 'include = two\n' >"$(CONF)/policies/one.ini"
	printf '; two\ninclude = one\n' >"$(CONF)/policies/two.ini"
	expect_fail125 -D "$T/p" -p one -- true
	assert_contains "$err" "two.ini:2: include cycle: "
}

test_untrusted_project_file_is_ignored() {
	mkrepo "$T/p"
	printf '[env]\nset += GRANTED=yes\n' >"$T/p/.jail.ini"
	run_jail -D "$T/p" --no-export -- sh -c 'echo "[$GRANTED]"'
	assert_eq "$rc" 0
	assert_eq "$out" "[]"
	assert_contains "$err" "ignoring $(realpath "$T/p")/.jail.ini: not trusted"
	assert_contains "$err" "jail trust -D"
}

test_trust_change_and_revoke() {
	mkrepo "$T/p"
	printf '[env]\nset += GRANTED=one\n' >"$T/p/.jail.ini"
	out=$("$JAIL" trust -D "$T/p")
	assert_contains "$out" "trusted $(realpath "$T/p")/.jail.ini"
	run_jail -D "$T/p" --no-export -- sh -c 'echo "[$GRANTED]"'
	assert_eq "$out" "[one]"
	assert_not_contains "$err" "ignoring"
	# a change after trust is ignored until trusted again
	printf '[env]\nset += GRANTED=two\n' >"$T/p/.jail.ini"
	run_jail -D "$T/p" --no-export -- sh -c 'echo "[$GRANTED]"'
	assert_eq "$out" "[]"
	assert_contains "$err" "it changed since it was trusted"
	"$JAIL" trust -D "$T/p" >/dev/null
	run_jail -D "$T/p" --no-export -- sh -c 'echo "[$GRANTED]"'
	assert_eq "$out" "[two]"
	"$JAIL" trust --revoke -D "$T/p" >/dev/null
	run_jail -D "$T/p" --no-export -- sh -c 'echo "[$GRANTED]"'
	assert_eq "$out" "[]"
	assert_contains "$err" "not trusted"
}

test_trust_refuses_invalid_file_and_symlink() {
	mkrepo "$T/p"
	printf '[net]\nmode = wide\n' >"$T/p/.jail.ini"
	expect_fail125 trust -D "$T/p"
	assert_contains "$err" ".jail.ini:2: net.mode = wide"
	rm "$T/p/.jail.ini"
	expect_fail125 trust -D "$T/p"
	assert_contains "$err" "has no .jail.ini to trust"
	# a link to a real, valid file outside (the suite's fresh home has no .bashrc)
	printf '[net]\nmode = none\n' >"$T/outside.ini"
	ln -s "$T/outside.ini" "$T/p/.jail.ini"
	expect_fail125 trust -D "$T/p"
	assert_contains "$err" "is not a regular file"
}

test_project_file_cannot_be_moved_to_another_project() {
	mkrepo "$T/p"
	mkrepo "$T/q"
	printf '[env]\nset += GRANTED=yes\n' >"$T/p/.jail.ini"
	cp "$T/p/.jail.ini" "$T/q/.jail.ini"
	"$JAIL" trust -D "$T/p" >/dev/null
	run_jail -D "$T/q" --no-export -- sh -c 'echo "[$GRANTED]"'
	assert_eq "$out" "[]"
}

# Secrets from each source reach the jail and no file of the session holds them.
check_secrets() { # home mode
	mkrepo "$T/p"
	mkdir -p "$(CONF)"
	printf 'file-canary-5521\n' >"$T/secret.txt"
	cat >"$(CONF)/jail.ini" <<-EOF
	[home]
	mode = $1
	[secrets]
	S_ENV = env:HOST_CANARY
	S_FILE = file:$T/secret.txt
	S_CMD = cmd:printf 'cmd-canary-%s' 7730
	~/.config/tool/token = cmd:echo home-canary-9913
	EOF
	export HOST_CANARY=env-canary-3387
	run_jail -D "$T/p" -- sh -c 'echo "$S_ENV $S_FILE $S_CMD $(cat ~/.config/tool/token)";
		stat -c %a ~/.config/tool/token; echo work > work.txt'
	assert_eq "$rc" 0
	# the run exported a patch: it is among the files searched below
	ls "$(session_dir "$T/p")"/patches/0001-*.patch >/dev/null || fail "no patch was written: $err"
	assert_eq "$(head -n 1 <<<"$out")" "env-canary-3387 file-canary-5521 cmd-canary-7730 home-canary-9913"
	assert_eq "$(sed -n 2p <<<"$out")" "600" "mode of a secret file"
	assert_file "$(session_dir "$T/p")/upper/work.txt"
	if grep -rqaE 'env-canary-3387|file-canary-5521|cmd-canary-7730|home-canary-9913' "$XDG_STATE_HOME" 2>/dev/null; then
		fail "a secret value was written under the state dir: $(grep -rlaE 'canary-[0-9]{4}' "$XDG_STATE_HOME" 2>/dev/null)"
	fi
	assert_not_contains "$err" "canary"
	show=$("$JAIL" policy show -D "$T/p")
	assert_contains "$show" "S_CMD = cmd:<redacted>"
	assert_contains "$show" "S_ENV = env:HOST_CANARY"
	assert_not_contains "$show" "7730"
}

test_secrets_fresh_home_never_on_disk() { check_secrets fresh; }
test_secrets_persistent_home_never_on_disk() { check_secrets persistent; }

test_secret_source_failing_stops_the_run() {
	mkrepo "$T/p"
	unset NOT_SET_HERE || true
	expect_fail125 -D "$T/p" --secret K=env:NOT_SET_HERE -- true
	assert_contains "$err" "secret K: host variable NOT_SET_HERE is not set"
	expect_fail125 -D "$T/p" --secret 'K=cmd:echo leaked-4471; false' -- true
	assert_contains "$err" "secret K: its command failed (exit status 1)"
	assert_not_contains "$err" "leaked-4471"
}

test_git_identity_only() {
	mkrepo "$T/p"
	mkdir -p "$T/h"
	printf '[user]\n\tname = Jo Host\n\temail = jo@example.com\n[credential]\n\thelper = store\n[alias]\n\tco = checkout\n' >"$T/h/.gitconfig"
	out=$(HOME="$T/h" "$JAIL" -D "$T/p" --no-export -- sh -c 'cat ~/.gitconfig; git config --global --get user.email')
	assert_contains "$out" 'name = "Jo Host"'
	assert_contains "$out" "jo@example.com"
	assert_not_contains "$out" "helper"
	assert_not_contains "$out" "alias"
}

test_every_shipped_policy_loads() {
	export JAIL_POLICY_PATH=$(shipped)
	mkrepo "$T/p"
	out=$("$JAIL" policy list)
	for p in default aider claude codex gemini opencode node python; do
		assert_contains "$out" "$p "
		"$JAIL" policy show -p "$p" -D "$T/p" >"$T/show.$p" || fail "policy $p does not load"
	done
	assert_contains "$(cat "$T/show.claude")" "allow = api.anthropic.com:443"
	assert_contains "$(cat "$T/show.codex")" "allow = api.openai.com:443"
	assert_contains "$(cat "$T/show.gemini")" "allow = generativelanguage.googleapis.com:443"
	assert_contains "$(cat "$T/show.node")" "show_ignored = node_modules"
	assert_contains "$(cat "$T/show.python")" "show_ignored = .venv"
	assert_not_contains "$out" "does not load"
}

test_user_policy_shadows_shipped_one() {
	export JAIL_POLICY_PATH=$(shipped)
	mkdir -p "$(CONF)/policies"
	printf 'description = my own node\n[env]\nset += MINE=1\n' >"$(CONF)/policies/node.ini"
	out=$("$JAIL" policy list)
	assert_contains "$out" "my own node"
	assert_eq "$(grep -c '^node ' <<<"$out")" 1
}

test_policy_show_accepts_options_after_show() {
	mkrepo "$T/p"
	export JAIL_POLICY_PATH=$(shipped)
	out=$("$JAIL" policy show -p node -D "$T/p")
	assert_contains "$out" "registry.npmjs.org:443"
	assert_contains "$out" "; jail policy show -D $(realpath "$T/p")"
	expect_fail125 policy show extra
	expect_fail125 policy frob
}

# A persistent home holds what the agent left there: copying into it the next
# time must not follow a symlink it planted (init still sees the host's root
# under /oldroot while it fills the home).
test_home_copy_does_not_follow_the_agents_symlinks() {
	mkrepo "$T/p"
	export HOME=$T/h
	mkdir -p "$HOME/.tool" "$T/outside"
	printf 'host-config\n' >"$HOME/.tool/config"
	run_jail -D "$T/p" --home persistent --no-export -- \
		sh -c "rm -rf ~/.tool && ln -s /oldroot$T/outside ~/.tool && ln -s /oldroot$T/outside ~/.sec"
	assert_eq "$rc" 0
	run_jail -D "$T/p" --home persistent --copy '~/.tool/config' --no-export -- true
	assert_no_file "$T/outside/config"
	run_jail -D "$T/p" --home persistent --secret '~/.sec/token=cmd:echo x' --no-export -- true
	assert_no_file "$T/outside/token"
}

test_git_identity_follows_a_changed_gitconfig() {
	mkrepo "$T/p"
	mkdir -p "$T/h"
	printf '[user]\n\tname = First Name\n\temail = first@example.com\n' >"$T/h/.gitconfig"
	out=$(HOME="$T/h" "$JAIL" -D "$T/p" --no-export -- git config --global --get user.name </dev/null)
	assert_eq "$out" "First Name"
	# the cached identity must follow an edit of the file
	printf '[user]\n\tname = Second Name\n\temail = second@example.com\n' >"$T/h/.gitconfig"
	out=$(HOME="$T/h" "$JAIL" -D "$T/p" --no-export -- git config --global --get user.name </dev/null)
	assert_eq "$out" "Second Name"
	rm "$T/h/.gitconfig"
	out=$(HOME="$T/h" "$JAIL" -D "$T/p" --no-export -- sh -c 'cat ~/.gitconfig 2>/dev/null || echo none' </dev/null)
	assert_eq "$out" "none"
}
