# Real-shaped projects built and tested inside the jail as on the host, with
# the toolchains this machine already has and the network off: each test is a
# difference found between a build inside and the same build on the host.
# A test whose toolchain is missing skips.

# go_module DIR: a small Go module with a package, a test and a command.
go_module() {
	git_init "$1"
	printf 'module example.com/demo\n\ngo 1.19\n' >"$1/go.mod"
	printf 'package demo\n\nfunc Add(a, b int) int { return a + b }\n' >"$1/demo.go"
	printf 'package demo\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 2) != 4 {\n\t\tt.Fatal("2+2")\n\t}\n}\n' \
		>"$1/demo_test.go"
	git -C "$1" add . && git -C "$1" commit -q -m go
}

# The go build cache lives in the home: with -p go it is kept between runs,
# so the second `go test` is a cache hit as on the host, not a rebuild of the
# standard library and every dependency.
test_go_build_cache_is_kept_between_runs() {
	command -v go >/dev/null || skip "no go (scripts/setup installs golang-go)"
	go_module "$T/p"
	HOME="$T/home" run_jail -D "$T/p" --no-export -p go -- go test ./...
	assert_eq "$rc" 0 "first go test: $out $err"
	assert_not_contains "$out" "(cached)"
	HOME="$T/home" run_jail -D "$T/p" --no-export -p go -- go test ./...
	assert_eq "$rc" 0 "second go test: $out $err"
	assert_contains "$out" "(cached)"
}
