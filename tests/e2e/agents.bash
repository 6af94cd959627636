# agents.bash — helpers for the end-to-end tests (sourced by tests/e2e/*.sh):
# the real agent CLIs from the npm registry, a scripted model API on the host's
# loopback (tests/helpers/scriptapi.py), a project with planted canary secrets.
#
# The CLIs are installed once into $JAIL_AGENTS_DIR (default
# /tmp/jail-agents-UID, shared with tests/integration/agents.sh) and reused by
# later runs.  If npm cannot install them the test fails; it never skips.

AGENTS_DIR=${JAIL_AGENTS_DIR:-/tmp/jail-agents-$(id -u)}
AGENT_BIN=$AGENTS_DIR/node_modules/.bin
HELPERS=$TESTS/helpers
source "$TESTS/agent_pins.bash"

# Canaries: if one of these strings reaches the model or a patch, jail leaked.
SSH_CANARY=ssh-canary-e2e-7781
ENV_CANARY=dotenv-canary-e2e-4412
HOSTENV_CANARY=hostenv-canary-e2e-9023
BLOCKED_CANARY=blocked-body-e2e-3305

# e2e_install BIN PACKAGE: PACKAGE at its pinned version (agent_pins.bash)
# from npm, unless BIN is there with that version already.
e2e_install() {
	local pin
	pin=$(agent_pin "$2")
	[ -x "$AGENT_BIN/$1" ] && agent_pinned "$AGENTS_DIR" "$2" && return 0
	command -v npm >/dev/null || fail "npm is needed to install $2"
	mkdir -p "$AGENTS_DIR"
	(
		flock 9
		[ -x "$AGENT_BIN/$1" ] && agent_pinned "$AGENTS_DIR" "$2" && exit 0
		# the suite's environment is built from nothing: name the CA store
		[ -r /etc/ssl/certs/ca-certificates.crt ] &&
			export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
		npm install --silent --no-fund --no-audit --save-exact --prefix "$AGENTS_DIR" \
			--cache "$AGENTS_DIR/.npm-cache" "$pin"
	) 9>"$AGENTS_DIR/.lock" || fail "npm install of $2 failed"
	[ -x "$AGENT_BIN/$1" ] || fail "npm installed $2 but there is no $AGENT_BIN/$1"
	chmod -R a+rX "$AGENTS_DIR"
}

# e2e_policy NAME: the shipped policy NAME, as a user runs it (-p NAME), in
# $POLICY.
e2e_policy() {
	[ -f "$TESTS/../policies/$1.ini" ] || fail "no shipped policy $1 in $TESTS/../policies"
	export JAIL_POLICY_PATH=$TESTS/../policies
	POLICY=(-p "$1")
}

e2e_bg() { # run in the background, killed when the test ends
	"$@" &
	echo $! >>"$T/.pids"
}
e2e_cleanup() {
	[ -f "$T/.pids" ] && kill $(cat "$T/.pids") 2>/dev/null
	[ -n "${TMUX_SOCK:-}" ] && tmux -S "$TMUX_SOCK" kill-server 2>/dev/null
	true
}
e2e_wait_file() { wait_for test -s "$1"; }

# e2e_project: the project $T/p (a function, its test, an ignored .env with a
# canary), a host home $T/h with a canary ssh key, a canary in the host's
# environment; $HOST_HASH is the project's tree hash before the agent.
e2e_project() {
	local d=$T/p
	git_init "$d"
	cat >"$d/greet.py" <<-'PY'
	def greet(name):
	    return "hi " + name
	PY
	cat >"$d/test_greet.py" <<-'PY'
	import unittest
	from greet import greet


	class T(unittest.TestCase):
	    def test_name(self):
	        self.assertTrue(greet("jail").endswith("jail"))


	unittest.main()
	PY
	printf '.env\n__pycache__/\n' >"$d/.gitignore"
	git -C "$d" add .
	git -C "$d" commit -q -m init
	printf 'API_TOKEN=%s\n' "$ENV_CANARY" >"$d/.env"
	export HOME=$T/h
	mkdir -p "$HOME/.ssh"
	printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n' "$SSH_CANARY" >"$HOME/.ssh/id_ed25519"
	chmod 600 "$HOME/.ssh/id_ed25519"
	export AWS_SECRET_ACCESS_KEY=$HOSTENV_CANARY
	HOST_HASH=$(tree_hash "$d")
}

# e2e_servers SCRIPT.json [CERT KEY]: the scripted API ($API, logs in $T/api;
# HTTPS with CERT and KEY) and a server the jail must not reach ($BLOCKED_PORT,
# its page holds a canary).
e2e_servers() {
	trap e2e_cleanup EXIT
	[ -r /dev/net/tun ] && [ -w /dev/net/tun ] || fail "/dev/net/tun is not usable: chmod 0666 /dev/net/tun"
	mkdir -p "$T/www"
	echo "$BLOCKED_CANARY" >"$T/www/index.html"
	e2e_bg python3 "$HELPERS/scriptapi.py" "$T/apiport" "$T/api" "$@"
	e2e_bg python3 "$HELPERS/http_server.py" "$T/blockedport" 127.0.0.1 "$T/www"
	e2e_wait_file "$T/apiport"
	e2e_wait_file "$T/blockedport"
	API=$(cat "$T/apiport")
	BLOCKED_PORT=$(cat "$T/blockedport")
}

# e2e_requests: every request body the model API received, one per line.
e2e_requests() { cat "$T"/api/[0-9]*.json; }

# --- a brokered key (issue 18) ---------------------------------------------

# e2e_brokered_servers SCRIPT.json HOST: e2e_servers with the scripted API on
# HTTPS, its certificate for HOST from a test CA ($T/ca/ca.crt) that only jail's
# supervisor trusts (e2e_brokered_run).  The agent uses its default base URL;
# jail's broker sends what the agent sends to HOST to this server instead.
e2e_brokered_servers() {
	command -v openssl >/dev/null || fail "openssl is missing (scripts/setup installs it)"
	make_ca "$T/ca" "$2"
	e2e_servers "$1" "$T/ca/srv.crt" "$T/ca/srv.key"
}

# e2e_brokered_run JAIL-ARGS...: run_jail with the supervisor trusting the test
# CA (OpenSSL's SSL_CERT_FILE, in jail's environment only: the jail gets its
# own) and its connections to the brokered host going to the scripted API on
# the host's loopback; the name verified stays the brokered host's.
e2e_brokered_run() {
	SSL_CERT_FILE=$T/ca/ca.crt JAIL_TEST_BROKER_UPSTREAM=127.0.0.1:$API run_jail "$@"
}

# e2e_check_brokered NAME REAL HEADER HOST: after the scripted turn, with the
# real key REAL of the secret NAME brokered for HOST: every request the API got
# carried REAL in its HEADER and nowhere else (no other header, no body, no
# WebSocket message); the
# agent's environment (its `env` step) and the session's files hold the
# placeholder, never REAL; jail counted the requests that carried the key.
# Needs $err, jail's stderr.
e2e_check_brokered() {
	local name=$1 real=$2 header=$3 host=$4 n f results ph sd
	# HTTP requests (a WebSocket's messages, "WS", ride on its upgrade's)
	n=$(grep -vc '^WS ' "$T/api/requests" || true)
	[ "$n" -gt 0 ] || fail "the API got no request"
	for f in "$T"/api/[0-9]*.headers; do
		grep -qix "$header: \(Bearer \)\?$real" "$f" ||
			fail "$f: no $header with the real key: $(cat "$f")"
		assert_eq "$(grep -ivx "$header: .*" "$f" | grep -cF "$real" || true)" 0 \
			"other headers of $f holding the real key"
	done
	assert_eq "$(cat "$T"/api/[0-9]*.headers | grep -ci "^$header: ")" "$n" "requests with a $header"
	assert_eq "$(grep -lF "$real" "$T"/api/[0-9]*.json || true)" "" "request bodies holding the real key"
	# the placeholder, as the agent's `env` printed it: the real one's shape
	results=$(e2e_tool_results "$T"/api/[0-9]*.json)
	ph=$(grep -o "$name=[^\\\"]*" <<<"$results" | sed -n 1p || true)
	ph=${ph#"$name="}
	[ -n "$ph" ] || fail "no $name in the agent's environment"
	assert_ne "$ph" "$real" "the agent's $name"
	assert_eq "${#ph}" "${#real}" "the placeholder's length"
	assert_contains "$(e2e_requests)" "$name=$ph"
	assert_not_contains "$results" "$real"
	# the session's files (the agent's home and transcripts) and the project:
	# the placeholder is there (the transcript of `env`), the real key nowhere
	sd=$(session_dir "$T/p")
	[ -n "$(grep -rlF -- "$ph" "$sd" || true)" ] || fail "no session file holds the placeholder"
	assert_eq "$(grep -rlF -- "$real" "$sd" "$T/p" || true)" "" "session files holding the real key"
	if [ "$n" = 1 ]; then
		assert_contains "$err" "jail: 1 request to $host carried your key"
	else
		assert_contains "$err" "jail: $n requests to $host carried your key"
	fi
}

# e2e_check_reported NAME: the agent sent its environment to the model: the
# placeholder of NAME in a request body, passed on as it is and reported.
e2e_check_reported() {
	assert_contains "$err" "possible exfiltration attempt: the placeholder of $1 in a request body"
}

# e2e_assert_no_canary TEXT WHAT
e2e_assert_no_canary() {
	local c
	for c in "$SSH_CANARY" "$ENV_CANARY" "$HOSTENV_CANARY" "$BLOCKED_CANARY"; do
		[[ "$1" != *"$c"* ]] || fail "$2 holds the canary $c"
	done
}

# e2e_home_snapshot: note the host home's tree hash, once the test has put the
# agent's config there; e2e_check_landing checks that nothing wrote to it.
e2e_home_snapshot() { HOME_HASH=$(tree_hash "$HOME"); }

# e2e_check_landing: the host tree and home are untouched; the patch jail wrote lands
# with git am on a fresh clone and holds exactly the edit and the new file.
e2e_check_landing() {
	local patches all
	assert_eq "$(tree_hash "$T/p")" "$HOST_HASH" "the host project's tree hash"
	assert_eq "$(tree_hash "$HOME")" "$HOME_HASH" "the host home's tree hash"
	patches=$(ls "$(session_dir "$T/p")"/patches/*.patch) || fail "no patch written: $err"
	all=$(cat $patches)
	e2e_assert_no_canary "$all" "the patch"
	assert_not_contains "$all" "pre-commit"
	assert_not_contains "$all" "post-checkout"
	assert_not_contains "$all" "pwned"
	assert_eq "$(grep '^diff --git' <<<"$all")" \
		"$(printf 'diff --git a/farewell.py b/farewell.py\ndiff --git a/greet.py b/greet.py')" "files in the patch"
	git clone -q "$T/p" "$T/clone"
	git -C "$T/clone" config user.email t@example.com
	git -C "$T/clone" config user.name Tester
	git -C "$T/clone" am -q $patches || fail "git am of $patches failed"
	assert_eq "$(git -C "$T/clone" diff --name-status HEAD~1 HEAD | LC_ALL=C sort | tr '\t' ' ')" \
		"$(printf 'A farewell.py\nM greet.py')" "files in the patch"
	assert_eq "$(cat "$T/clone/greet.py")" "$(printf 'def greet(name):\n    return "hello " + name')"
	assert_eq "$(cat "$T/clone/farewell.py")" "$(printf 'def bye(name):\n    return "bye " + name')"
	assert_no_file "$T/clone/.git/hooks/pre-commit"
	(cd "$T/clone" && python3 test_greet.py 2>&1) || fail "the project's tests fail after git am"
}

# e2e_script AGENT: the turns of the scripted model in $T/script.json, in the
# tool names and parameters of AGENT (claude, opencode, codex or gemini; Codex
# does all through its shell tool, edits with its apply_patch).  Needs $BLOCKED_PORT.
e2e_script() {
	AGENT=$1 P=$T/p H=$T/h BLOCKED_PORT=$BLOCKED_PORT python3 - >"$T/script.json" <<-'PY'
	import json, os
	p, h, port = os.environ["P"], os.environ["H"], os.environ["BLOCKED_PORT"]
	claude = os.environ["AGENT"] == "claude"
	codex = os.environ["AGENT"] == "codex"
	def patch(body):
	    return "apply_patch <<'EOF'\n*** Begin Patch\n%s*** End Patch\nEOF\n" % body
	def codex_tool(name, args):
	    f = args.get("file_path", "")
	    if name == "Read":
	        cmd = "cat '%s'" % f
	    elif name == "Edit":
	        cmd = patch("*** Update File: %s\n@@\n-    %s\n+    %s\n" % (
	            f, args["old_string"], args["new_string"]))
	    elif name == "Write":
	        cmd = patch("*** Add File: %s\n%s" % (f, "".join(
	            "+" + l + "\n" for l in args["content"].splitlines())))
	    else:
	        cmd = args["command"]
	    return {"tool": "exec_command", "input": {"cmd": cmd}}
	gemini = os.environ["AGENT"] == "gemini"
	gemini_names = {"Read": "read_file", "Edit": "replace", "Write": "write_file",
	                "Bash": "run_shell_command"}
	def tool(name, **args):
	    if codex:
	        return codex_tool(name, args)
	    if gemini:
	        if name == "Edit":
	            args["instruction"] = "e2e step"
	        if name == "Bash":
	            args["description"] = "e2e step"
	        return {"tool": gemini_names[name], "input": args}
	    name = name if claude else name.lower()
	    if not claude:
	        args = {{"old_string": "oldString", "new_string": "newString",
	                 "file_path": "filePath"}.get(k, k): v for k, v in args.items()}
	    return {"tool": name, "input": args}
	def bash(cmd):
	    return tool("Bash", command=cmd, **({"description": "e2e step"} if claude else {}))
	print(json.dumps([
	    tool("Read", file_path=p + "/greet.py"),
	    tool("Edit", file_path=p + "/greet.py", old_string='return "hi " + name',
	         new_string='return "hello " + name'),
	    tool("Write", file_path=p + "/farewell.py",
	         content='def bye(name):\n    return "bye " + name\n'),
	    bash("python3 test_greet.py 2>&1; echo tests-exit=$?"),
	    bash("cat ~/.ssh/id_ed25519 " + h + "/.ssh/id_ed25519 2>&1; echo ssh-exit=$?"),
	    tool("Read", file_path=h + "/.ssh/id_ed25519"),
	    bash("cat .env 2>&1; ls -a; echo env-exit=$?"),
	    tool("Read", file_path=p + "/.env"),
	    bash("env; echo printenv-exit=$?"),
	    bash("curl -sS -m 5 http://host.jail.internal:%s/ 2>&1; echo curl-exit=$?" % port),
	    bash("printf '#!/bin/sh\\necho pwned\\n' >.git/hooks/pre-commit && "
	         "chmod +x .git/hooks/pre-commit; echo hook-exit=$?"),
	    tool("Write", file_path=p + "/.git/hooks/post-checkout",
	         content="#!/bin/sh\necho pwned\n"),
	    {"text": "All done: greet.py edited, farewell.py created."},
	]))
	PY
}

# e2e_tool_results REQUEST.json...: the tool results of the request that
# carries most, one JSON string a line (Messages API tool_result blocks, Chat
# "tool" messages, Responses function_call_output items, Gemini functionResponse
# parts): the agent's last turn, whatever side requests came after.
e2e_tool_results() {
	python3 - "$@" <<-'PY'
	import json, sys
	def text(c):
	    if isinstance(c, list):
	        return "".join(x.get("text", "") for x in c if isinstance(x, dict))
	    return c
	def results(path):
	    out = []
	    body = open(path).read()
	    if not body.strip():  # a GET (Claude Code's settings)
	        return out
	    req = json.loads(body)
	    for m in req.get("messages", []) + req.get("input", []) + req.get("contents", []):
	        if not isinstance(m, dict):
	            continue
	        for part in m.get("parts", []):
	            if isinstance(part, dict) and "functionResponse" in part:
	                r = part["functionResponse"].get("response", {})
	                out.append(r.get("output", r.get("error", json.dumps(r))))
	        if m.get("type") == "function_call_output":
	            out.append(text(m.get("output")))
	        elif m.get("role") == "tool":
	            out.append(text(m.get("content")))
	        elif isinstance(m.get("content"), list):
	            out += [text(b["content"]) for b in m["content"]
	                    if isinstance(b, dict) and b.get("type") == "tool_result"]
	    return out
	for r in max((results(p) for p in sys.argv[1:]), key=len):
	    print(json.dumps(r))
	PY
}

# e2e_check_results: a request to the model carries all 12 results,
# and they say what each step did or could not do.
e2e_check_results() {
	local results
	results=$(e2e_tool_results "$T"/api/[0-9]*.json)
	assert_eq "$(grep -c . <<<"$results")" 12 "tool results in the last request"
	assert_contains "$results" "tests-exit=0"
	assert_contains "$results" "Ran 1 test"
	assert_contains "$results" "ssh-exit=1"
	assert_contains "$results" "curl-exit=7"
	assert_contains "$results" "hook-exit=0"
	assert_contains "$results" "JAIL=1"
}

# --- a TUI in a tmux pane ----------------------------------------------------

# the pane's terminal modes: alternate screen, cursor, insert, keypad, mouse, origin
TMUX_FLAGS='#{alternate_on} #{cursor_flag} #{insert_flag} #{keypad_cursor_flag} #{keypad_flag} #{mouse_any_flag} #{origin_flag}'
tm() { tmux -S "$TMUX_SOCK" "$@"; }
screen() { tm capture-pane -p -t e2e; }
# wait_screen TEXT [SECONDS]: until the pane shows TEXT (30 s unless told).
wait_screen() {
	local end=$((SECONDS + ${2:-30}))
	while [ $SECONDS -lt $end ]; do
		[[ "$(screen)" == *"$1"* ]] && return 0
		sleep 0.1
	done
	fail "the screen never showed '$1'; it shows:
$(screen)"
}

# tui_start JAIL-ARGS... -- CMD...: a pane of 100x40 that, once "go" is there,
# notes `stty -g`, runs jail, then notes its status and `stty -g` again.
# $TUI_MODES holds the pane's modes from before.
tui_start() {
	TMUX_SOCK=$T/tmux.sock
	cat >"$T/pane.sh" <<-EOF2
	while [ ! -e "$T/go" ]; do sleep 0.1; done
	stty -g >"$T/stty.before"
	"$JAIL" $(printf '%q ' "$@") 2>"$T/jail.err"
	echo \$? >"$T/jail.status"
	stty -g >"$T/stty.after"
	exec sleep 120
	EOF2
	tm -f /dev/null new-session -d -s e2e -x 100 -y 40 "bash $T/pane.sh"
	TUI_MODES=$(tm display -p -t e2e "$TMUX_FLAGS")
	touch "$T/go"
}

# e2e_agent_procs AGENT: AGENT's processes of this test (its cwd or its
# environment names $T), not another suite's running at the same time.
e2e_agent_procs() {
	local p
	for p in $(pgrep -u "$(id -u)" -f "^$AGENT_BIN/$1" || true); do
		{ readlink "/proc/$p/cwd"; tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null |
			grep -qF "$T/" && echo "$p"
	done
	true
}

# tui_check_exit AGENT: jail ended with status 0 and left no AGENT process,
# the terminal is as before.  $err is jail's stderr.
tui_check_exit() {
	wait_for test -s "$T/stty.after"
	err=$(cat "$T/jail.err")
	assert_eq "$(cat "$T/jail.status")" 0 "jail's status after Ctrl-C ($err)"
	assert_eq "$(e2e_agent_procs "$1")" "" "$1 processes left"
	assert_eq "$(cat "$T/stty.after")" "$(cat "$T/stty.before")" "termios after the agent"
	assert_eq "$(tm display -p -t e2e "$TMUX_FLAGS")" "$TUI_MODES" "the pane's modes after the agent"
}
