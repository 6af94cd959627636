# Real projects inside the jail: the id calls answer as on the host, hidden
# build output is announced, the secrets mode, non-git projects.

# The same script on the host and in the jail, as the same user, prints the
# same errno for every id call (EPERM where the single-id namespace would say
# EINVAL).
test_id_calls_fail_as_on_the_host() {
	command -v python3 >/dev/null || skip "no python3"
	mkrepo "$T/p"
	cp "$TESTS/helpers/idcalls.py" "$T/p/idcalls.py"
	touch "$T/p/f"
	python3 "$T/p/idcalls.py" "$T/p/f" >"$T/host.txt"
	assert_contains "$(cat "$T/host.txt")" "chown_other_uid EPERM"
	run_jail -q -D "$T/p" -- python3 "$T/p/idcalls.py" "$T/p/f"
	assert_eq "$rc" 0 "python3 in the jail: $err"
	diff -u "$T/host.txt" <(printf '%s\n' "$out") || fail "the id calls differ (host, jail)"
}

# A repository whose build output is ignored, as git's, libuv's and CMake's are.
mkbuildrepo() {
	local d=$1
	git_init "$d"
	printf 'build/\n.env\n*.key\nsecrets/\nGIT-BUILD-OPTIONS\n' >"$d/.gitignore"
	printf 'src\n' >"$d/main.c"
	git -C "$d" add .gitignore main.c
	git -C "$d" commit -q -m init
	mkdir -p "$d/build/.aws" "$d/secrets"
	printf '#!/bin/sh\necho tests-ran\n' >"$d/build/run-tests"
	chmod +x "$d/build/run-tests"
	printf 'canary-build-aws\n' >"$d/build/.aws/credentials"
	printf 'canary-build-env\n' >"$d/build/.env"
	printf 'canary-env\n' >"$d/.env"
	printf 'canary-key\n' >"$d/deploy.key"
	printf 'canary-secrets-dir\n' >"$d/secrets/s.txt"
	printf 'opts\n' >"$d/GIT-BUILD-OPTIONS"
}

# The command fails for want of its ignored build output: one line says what
# was hidden and how to let it in; a command that succeeds hears nothing of it.
test_hidden_build_output_is_announced_when_the_command_fails() {
	mkbuildrepo "$T/p"
	run_jail -D "$T/p" --no-export -- ./build/run-tests
	assert_ne "$rc" 0 "the hidden build output cannot run"
	local hint
	hint=$(grep 'ignored paths were hidden' <<<"$err") || fail "no hint in: $err"
	assert_eq "$(grep -c . <<<"$hint")" 1 "one line"
	assert_contains "$hint" "jail: "
	assert_contains "$hint" "5 ignored paths were hidden (build/, secrets/, .env, …)"
	assert_contains "$hint" "--show PATTERN or [fs] show_ignored lets them in"
	run_jail -D "$T/p" --no-export -- true
	assert_eq "$rc" 0
	assert_not_contains "$err" "were hidden"
	run_jail -D "$T/p" --no-export --show build -- ./build/run-tests
	assert_eq "$out" tests-ran "--show build lets the build output in"
	assert_not_contains "$err" "were hidden"
}

# --hide-ignored=secrets: build output visible and runnable, the ignored paths
# of secret-shaped names hidden, at the top and inside shown directories.
test_hide_ignored_secrets_shows_build_output_not_secrets() {
	mkbuildrepo "$T/p"
	local probe='./build/run-tests; ls -A build; cat GIT-BUILD-OPTIONS;
		cat .env deploy.key secrets/s.txt build/.env build/.aws/credentials 2>&1; ls -A'
	run_jail -D "$T/p" --no-export --hide-ignored=secrets -- sh -c "$probe"
	assert_contains "$out" tests-ran
	assert_contains "$out" opts
	assert_not_contains "$out" canary
	run_jail -D "$T/p" --no-export --hide-ignored=secrets -- ls -A . build
	assert_contains "$out" run-tests
	assert_not_contains "$out" ".aws"
	assert_not_contains "$out" "secrets"
	assert_not_contains "$out" "deploy.key"
	# the same from the policy; and --show still lets a secret-shaped one in
	mkdir -p "$XDG_CONFIG_HOME/jail"
	printf '[fs]\nhide_ignored = secrets\n' >"$XDG_CONFIG_HOME/jail/jail.ini"
	run_jail -D "$T/p" --no-export --show .env -- sh -c "$probe"
	assert_contains "$out" tests-ran
	assert_contains "$out" canary-env
	assert_not_contains "$out" canary-key
	assert_not_contains "$out" canary-build-aws
	# a policy extends the list: *.log is secret-shaped here
	printf 'x\n' >"$T/p/build/app.log"
	printf '[fs]\nhide_ignored = secrets\nsecret_names += *.log\n' >"$XDG_CONFIG_HOME/jail/jail.ini"
	run_jail -D "$T/p" --no-export -- ls -A build
	assert_not_contains "$out" app.log
	assert_contains "$out" run-tests
	run_jail policy show -D "$T/p"
	assert_contains "$out" "hide_ignored = secrets"
	expect_fail125 -D "$T/p" --hide-ignored=some -- true
	assert_contains "$err" "--hide-ignored some"
}

# One session switched between the modes: every run hides what its mode says,
# whatever the last run left in the upper dir.
test_hide_ignored_modes_switch_within_a_session() {
	mkbuildrepo "$T/p"
	local probe='ls -A; ls -A build 2>&1; cat build/.env 2>&1'
	for mode in secrets all secrets none all; do
		run_jail -D "$T/p" --no-export --hide-ignored=$mode -- sh -c "$probe"
		case $mode in
		all)
			assert_not_contains "$out" run-tests
			assert_not_contains "$out" canary ;;
		secrets)
			assert_contains "$out" run-tests
			assert_not_contains "$out" canary ;;
		none)
			assert_contains "$out" run-tests
			assert_contains "$out" canary-build-env ;;
		esac
	done
}

# A project that is not a git repository has no ignore rules: the secret-shaped
# names are hidden anywhere in it, the rest is visible, and jail says so.
test_non_git_project_hides_secret_shaped_names() {
	local d="$T/p"
	mkdir -p "$d/src/.aws" "$d/deploy" "$d/.docker" "$d/keys"
	printf 'canary-env\n' >"$d/.env"
	printf 'canary-env-local\n' >"$d/src/.env.local"
	printf 'canary-aws\n' >"$d/src/.aws/credentials"
	printf 'canary-pem\n' >"$d/deploy/server.pem"
	printf 'canary-docker\n' >"$d/.docker/config.json"
	printf 'canary-rsa\n' >"$d/keys/id_rsa"
	printf 'canary-netrc\n' >"$d/.netrc"
	printf 'canary-tf\n' >"$d/terraform.tfstate.backup"
	printf 'visible\n' >"$d/.docker/readme"
	printf 'int main;\n' >"$d/src/main.c"
	local probe='find . -type f | sort; cat .env src/.env.local src/.aws/credentials \
		deploy/server.pem .docker/config.json keys/id_rsa .netrc terraform.tfstate.backup 2>&1; true'
	run_jail -D "$d" --no-export -- sh -c "$probe"
	assert_eq "$rc" 0
	assert_not_contains "$out" canary
	assert_contains "$out" ./src/main.c
	assert_contains "$out" ./.docker/readme
	assert_contains "$err" "is not a git repository: it has no ignore rules"
	assert_contains "$err" "8 secret-shaped paths are hidden"
	# adjustable: --show lets one in, the policy adds names or empties the list
	run_jail -D "$d" --no-export --show .env -- cat .env
	assert_eq "$out" canary-env
	mkdir -p "$XDG_CONFIG_HOME/jail"
	printf '[fs]\nsecret_names += *.c\n' >"$XDG_CONFIG_HOME/jail/jail.ini"
	run_jail -D "$d" --no-export -- sh -c "$probe"
	assert_not_contains "$out" main.c
	printf '[fs]\nsecret_names =\n' >"$XDG_CONFIG_HOME/jail/jail.ini"
	run_jail -D "$d" --no-export -- cat .env
	assert_eq "$out" canary-env
	assert_contains "$err" "nothing there has a secret-shaped name"
}

# A fake home with a toolchain, a package cache and credentials for each of
# the shipped toolchain policies.
mkhome_toolchains() {
	local h=$1 d
	for d in .cargo/bin .cargo/registry/cache .rustup/toolchains go/bin go/pkg/mod/example.com \
		.m2/repository/org .gradle/caches .local/bin .cache/uv .sdkman/candidates/java/current/bin \
		.nvm/versions/node/v20.0.0/bin .nvm/versions/node/v20.0.0/include; do
		mkdir -p "$h/$d"
	done
	for d in .cargo/bin/cargo-hello go/bin/go-hello .local/bin/uv-hello \
		.sdkman/candidates/java/current/bin/java-hello .nvm/versions/node/v20.0.0/bin/nvm-hello; do
		printf '#!/bin/sh\necho "%s runs"\n' "${d##*/}" >"$h/$d"
		chmod +x "$h/$d"
	done
	printf 'crate\n' >"$h/.cargo/registry/cache/c.crate"
	printf 'module\n' >"$h/go/pkg/mod/example.com/m.mod"
	printf 'jar\n' >"$h/.m2/repository/org/a.jar"
	printf 'wheel\n' >"$h/.cache/uv/w.whl"
	printf 'header\n' >"$h/.nvm/versions/node/v20.0.0/include/node.h"
	ln -s "$h/.nvm/versions/node/v20.0.0" "$h/.nvm/current"
	printf 'canary-cargo-token\n' >"$h/.cargo/credentials.toml"
	printf 'canary-cargo-config\n' >"$h/.cargo/config.toml"
	printf '<servers>canary-m2</servers>\n' >"$h/.m2/settings.xml"
	printf 'canary-gradle\n' >"$h/.gradle/gradle.properties"
	printf 'canary-npmrc\n' >"$h/.npmrc"
	printf 'canary-pypirc\n' >"$h/.pypirc"
	printf 'canary-netrc\n' >"$h/.netrc"
}

# policy  tool on PATH  a cached file (read-only inside)
toolchain_case() {
	local policy=$1 tool=$2 cached=$3
	mkrepo "$T/p"
	mkhome_toolchains "$T/home"
	local probe="$tool; cat ~/$cached; echo x >>~/$cached && echo WROTE;
		cat ~/.cargo/credentials.toml ~/.cargo/config.toml ~/.m2/settings.xml \
		~/.gradle/gradle.properties ~/.npmrc ~/.pypirc ~/.netrc 2>/dev/null; true"
	HOME="$T/home" run_jail -D "$T/p" --no-export -p "$policy" --net none -- sh -c "$probe"
	assert_eq "$rc" 0 "jail -p $policy: $err"
	assert_contains "$out" "$tool runs"
	assert_contains "$out" "$(cat "$T/home/$cached")"
	assert_not_contains "$out" WROTE
	assert_not_contains "$out" canary
	assert_eq "$(cat "$T/home/$cached" | wc -l)" 1 "the host's cache is unchanged"
}
test_policy_rust_toolchain_and_cache_read_only() {
	toolchain_case rust cargo-hello .cargo/registry/cache/c.crate
}
test_policy_go_toolchain_and_cache_read_only() {
	toolchain_case go go-hello go/pkg/mod/example.com/m.mod
}
test_policy_java_toolchain_and_cache_read_only() {
	toolchain_case java java-hello .m2/repository/org/a.jar
}
test_policy_node_nvm_toolchain_read_only() {
	toolchain_case node nvm-hello .nvm/versions/node/v20.0.0/include/node.h
}
test_policy_uv_toolchain_and_cache_read_only() {
	toolchain_case uv uv-hello .cache/uv/w.whl
}

# Go with Debian's toolchain: a module with a dependency that is only in the
# module cache of the (fake) home builds and passes its tests inside with the
# network off, through -p go.
test_go_project_builds_and_tests_offline_with_the_module_cache() {
	command -v go >/dev/null || skip "no go (scripts/setup installs golang-go)"
	local h="$T/home" px="$T/proxy/example.com/greet/@v"
	mkdir -p "$px" "$h"
	printf 'v1.0.0\n' >"$px/list"
	printf '{"Version":"v1.0.0"}\n' >"$px/v1.0.0.info"
	printf 'module example.com/greet\n' >"$px/v1.0.0.mod"
	python3 - "$px/v1.0.0.zip" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("example.com/greet@v1.0.0/go.mod", "module example.com/greet\n")
    z.writestr("example.com/greet@v1.0.0/greet.go",
               'package greet\n\nfunc Hello() string { return "hello from the cache" }\n')
PY
	git_init "$T/p"
	printf 'module example.com/app\n\ngo 1.19\n\nrequire example.com/greet v1.0.0\n' >"$T/p/go.mod"
	printf 'package main\n\nimport (\n\t"fmt"\n\t"example.com/greet"\n)\n\nfunc main() { fmt.Println(greet.Hello()) }\n' >"$T/p/main.go"
	printf 'package main\n\nimport (\n\t"testing"\n\t"example.com/greet"\n)\n\nfunc TestHello(t *testing.T) {\n\tif greet.Hello() != "hello from the cache" {\n\t\tt.Fatal("wrong")\n\t}\n}\n' >"$T/p/main_test.go"
	# the host fills the module cache (as `go mod download` from a proxy would)
	(cd "$T/p" && HOME="$h" GOPROXY="file://$T/proxy" GOSUMDB=off GOFLAGS=-mod=mod go mod tidy) >/dev/null 2>&1 ||
		fail "go mod tidy on the host"
	[ -d "$h/go/pkg/mod/example.com/greet@v1.0.0" ] || fail "no module cache on the host"
	git -C "$T/p" add . && git -C "$T/p" commit -q -m go
	chmod -R u+w "$h/go"
	local before
	before=$(tree_hash "$h/go")
	HOME="$h" run_jail -D "$T/p" --no-export -p go --net none -- \
		sh -c 'go test ./... && go run . && go env GOMODCACHE'
	assert_eq "$rc" 0 "go inside: $out $err"
	assert_contains "$out" "ok"
	assert_contains "$out" "hello from the cache"
	assert_contains "$out" "$h/go/pkg/mod"
	assert_eq "$(tree_hash "$h/go")" "$before" "the host's module cache is unchanged"
}

# Rust with Debian's cargo and its vendored crates as the registry: a crate
# with a dependency builds and passes its tests inside with the network off,
# and target/ (ignored) is shown by -p rust.
test_rust_project_builds_and_tests_offline_with_debian_crates() {
	local cargo=/usr/bin/cargo reg=/usr/share/cargo/registry
	[ -x "$cargo" ] && ls -d "$reg"/libc-0.2.* >/dev/null 2>&1 ||
		skip "no Debian cargo and librust-libc-dev (scripts/setup installs them)"
	git_init "$T/p"
	mkdir -p "$T/p/src" "$T/p/.cargo"
	printf '[source.crates-io]\nreplace-with = "debian"\n[source.debian]\ndirectory = "%s"\n' "$reg" \
		>"$T/p/.cargo/config.toml"
	printf '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nlibc = "0.2"\n' \
		>"$T/p/Cargo.toml"
	printf 'pub fn pid() -> i32 { unsafe { libc::getpid() } }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn has_a_pid() { assert!(super::pid() > 0); }\n}\n' \
		>"$T/p/src/lib.rs"
	printf 'target/\n' >"$T/p/.gitignore"
	git -C "$T/p" add . && git -C "$T/p" commit -q -m rust
	HOME="$T/home" run_jail -D "$T/p" --no-export -p rust --net none -- \
		sh -c "$cargo test --offline 2>&1 && ls target"
	assert_eq "$rc" 0 "cargo inside: $out $err"
	assert_contains "$out" "test tests::has_a_pid ... ok"
	assert_contains "$out" "debug"
}

# Java with Debian's Maven and its repository (/usr/share/maven-repo) as the
# user's local repository: a project with a JUnit test compiles, passes its
# test and packages inside with the network off, through -p java; the
# repository is read-only inside and unchanged on the host.
test_maven_project_builds_and_tests_offline_with_debian_repository() {
	local repo=/usr/share/maven-repo plugins=org/apache/maven/plugins p
	command -v mvn >/dev/null && [ -d "$repo/junit/junit/4.13.2" ] &&
		[ -e "$repo/$plugins/maven-surefire-plugin/2.22.3" ] ||
		skip "no Debian maven, junit4 and Maven plugins (scripts/setup installs them)"
	local h="$T/home"
	mkdir -p "$h/.m2"
	# the user's local repository: links into Debian's, as a cache would hold
	cp -rs "$repo" "$h/.m2/repository"
	git_init "$T/p"
	mkdir -p "$T/p/src/main/java/ex" "$T/p/src/test/java/ex"
	{
		echo '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
		echo '<groupId>ex</groupId><artifactId>hello</artifactId><version>1.0</version>'
		echo '<properties><maven.compiler.source>11</maven.compiler.source>'
		echo '<maven.compiler.target>11</maven.compiler.target>'
		echo '<project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>'
		echo '<dependencies><dependency><groupId>junit</groupId><artifactId>junit</artifactId>'
		echo '<version>4.13.2</version><scope>test</scope></dependency></dependencies><build><plugins>'
		for p in maven-resources-plugin:3.3.0 maven-compiler-plugin:3.10.1 \
			maven-surefire-plugin:2.22.3 maven-jar-plugin:3.3.0; do
			printf '<plugin><groupId>org.apache.maven.plugins</groupId><artifactId>%s</artifactId><version>%s</version></plugin>\n' \
				"${p%:*}" "${p#*:}"
		done
		echo '</plugins></build></project>'
	} >"$T/p/pom.xml"
	printf 'package ex;\npublic class Hello {\n  public static String greet() { return "hello from maven"; }\n  public static void main(String[] a) { System.out.println(greet()); }\n}\n' \
		>"$T/p/src/main/java/ex/Hello.java"
	printf 'package ex;\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\npublic class HelloTest {\n  @Test public void greets() { assertEquals("hello from maven", Hello.greet()); }\n}\n' \
		>"$T/p/src/test/java/ex/HelloTest.java"
	printf 'target/\n' >"$T/p/.gitignore"
	git -C "$T/p" add . && git -C "$T/p" commit -q -m maven
	local before
	before=$(tree_hash "$h/.m2")
	HOME="$h" run_jail -D "$T/p" --no-export -p java --net none -- \
		sh -c 'mvn -o -q -B package 2>&1 && java -cp target/hello-1.0.jar ex.Hello &&
			cat target/surefire-reports/ex.HelloTest.txt && { touch ~/.m2/repository/x && echo WROTE; true; }'
	assert_eq "$rc" 0 "maven inside: $out $err"
	assert_contains "$out" "hello from maven"
	assert_contains "$out" "Tests run: 1, Failures: 0, Errors: 0"
	assert_not_contains "$out" WROTE
	assert_eq "$(tree_hash "$h/.m2")" "$before" "the host's Maven repository is unchanged"
}

# npm with the cache the user already has: the host's npm fills ~/.npm from a
# registry on loopback; inside, with the network off and the server gone,
# `npm ci --offline` installs from that cache through -p node, which sees
# ~/.npm copy-on-write: what npm writes there stays in the session, the host's
# cache is unchanged, and the next run of the session still sees it.
test_npm_installs_offline_from_the_hosts_cache_copy_on_write() {
	command -v npm >/dev/null || skip "no npm (scripts/setup installs it)"
	local h="$T/home" reg="$T/reg" port
	mkdir -p "$h" "$reg/tarballs" "$T/pkg/package"
	printf '{"name":"greet","version":"1.0.0","main":"index.js"}\n' >"$T/pkg/package/package.json"
	printf 'module.exports = () => "hello from the npm cache";\n' >"$T/pkg/package/index.js"
	tar -C "$T/pkg" -czf "$reg/tarballs/greet-1.0.0.tgz" package
	python3 "$TESTS/helpers/http_server.py" "$T/port" 127.0.0.1 "$reg" &
	local server=$!
	wait_for test -s "$T/port" || fail "the registry did not start"
	port=$(cat "$T/port")
	python3 - "$reg" "$port" <<'PY'
import base64, hashlib, json, sys
reg, port = sys.argv[1], sys.argv[2]
tgz = open(reg + "/tarballs/greet-1.0.0.tgz", "rb").read()
dist = {"tarball": "http://127.0.0.1:%s/tarballs/greet-1.0.0.tgz" % port,
        "integrity": "sha512-" + base64.b64encode(hashlib.sha512(tgz).digest()).decode(),
        "shasum": hashlib.sha1(tgz).hexdigest()}
doc = {"name": "greet", "dist-tags": {"latest": "1.0.0"},
       "versions": {"1.0.0": {"name": "greet", "version": "1.0.0", "main": "index.js", "dist": dist}}}
json.dump(doc, open(reg + "/greet", "w"))
PY
	git_init "$T/p"
	printf '{"name":"app","version":"1.0.0","dependencies":{"greet":"1.0.0"}}\n' >"$T/p/package.json"
	printf 'node_modules/\n' >"$T/p/.gitignore"
	(cd "$T/p" && HOME="$h" npm install --no-audit --no-fund --registry "http://127.0.0.1:$port/") \
		>/dev/null 2>&1 || fail "npm install on the host"
	kill "$server"
	rm -rf "$T/p/node_modules"
	git -C "$T/p" add . && git -C "$T/p" commit -q -m npm
	local before
	before=$(tree_hash "$h/.npm")
	HOME="$h" run_jail -D "$T/p" --no-export -p node --net none -- \
		sh -c 'npm ci --offline --no-audit --no-fund >/dev/null 2>&1 && node -e "console.log(require(\"greet\")())" &&
			echo agent >~/.npm/added'
	assert_eq "$rc" 0 "npm inside: $out $err"
	assert_contains "$out" "hello from the npm cache"
	assert_eq "$(tree_hash "$h/.npm")" "$before" "the host's npm cache is unchanged"
	[ ! -e "$h/.npm/added" ] || fail "the agent's write reached the host's cache"
	HOME="$h" run_jail -D "$T/p" --no-export -p node --net none -- sh -c 'cat ~/.npm/added'
	assert_eq "$out" agent "the session keeps what npm added to its cache"
	# a reset session starts from the host's cache again
	run_jail reset --all -D "$T/p"
	assert_eq "$rc" 0 "$err"
	HOME="$h" run_jail -D "$T/p" --no-export -p node --net none -- sh -c 'cat ~/.npm/added 2>&1; true'
	assert_contains "$out" "No such file"
}

# --cow names a directory; the project itself is copy-on-write already.
test_cow_refuses_files_and_the_project() {
	mkrepo "$T/p"
	mkdir -p "$T/c"
	printf 'x\n' >"$T/c/f"
	run_jail -D "$T/p" --no-export --cow "$T/c/f" -- true
	assert_eq "$rc" 125
	assert_contains "$err" "not a directory"
	run_jail -D "$T/p" --no-export --cow "$T/p" -- true
	assert_eq "$rc" 125
	assert_contains "$err" "overlaps the project"
	run_jail -D "$T/p" --no-export --cow "$T/c/none" -- true
	assert_eq "$rc" 125
	assert_contains "$err" "name an existing path"
	# a symlink to the project would show it whole, hidden files and all
	printf 'SECRET=canary\n' >"$T/p/.env"
	printf '.env\n' >>"$T/p/.gitignore"
	ln -s "$T/p" "$T/link"
	run_jail -D "$T/p" --no-export --cow "$T/link" -- cat "$T/link/.env"
	assert_eq "$rc" 125
	assert_contains "$err" "overlaps the project"
	assert_not_contains "$out" canary
	mkdir -p "$T/p/sub"
	ln -s "$T/p/sub" "$T/sublink"
	run_jail -D "$T/p" --no-export --cow "$T/sublink" -- true
	assert_eq "$rc" 125
	assert_contains "$err" "overlaps the project"
}

# A path hidden in a project without git never reaches the patch: the agent
# never saw it, and a diff against it would carry the host's secret.
test_non_git_hidden_names_are_not_exported() {
	mkdir -p "$T/p"
	printf 'SECRET=canary-host-env\n' >"$T/p/.env"
	printf 'one\n' >"$T/p/a.txt"
	run_jail -D "$T/p" -- sh -c 'echo agent >.env; echo two >>a.txt'
	assert_eq "$rc" 0
	run_jail export -D "$T/p"
	assert_eq "$rc" 0
	assert_not_contains "$(cat "$out")" canary-host-env
	assert_contains "$(cat "$out")" "+two"
	assert_contains "$err" ".env"
	assert_contains "$err" "hidden in the jail"
}
