#!/bin/sh
# tests/fuzz/run.sh [SECONDS | CRASH-FILES...] — build the export fuzz harness with
# clang (libFuzzer + ASan/UBSan) and run it for SECONDS (default 60), or replay the
# files given.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/fuzz
mkdir -p "$out/corpus"
srcs=$(ls "$top"/src/*.c "$top"/src/*/*.c | grep -v '/src/main\.c$')
incs=$(for d in "$top"/src "$top"/src/*/; do printf -- '-I%s ' "${d%/}"; done)
clang -std=gnu11 -D_GNU_SOURCE -DJAIL_DATADIR='"/usr/local/share/jail"' -g -O1 -fsanitize=fuzzer,address,undefined \
	$incs -I"$top/build" $(pkg-config --cflags libmnl libnftnl libseccomp libcap-ng inih fuse3 openssl libnghttp2) \
	-o "$out/fuzz_export" "$top/tests/fuzz/fuzz_export.c" $srcs "$top/build/embedded_policy.c" \
	$(pkg-config --libs libmnl libnftnl libseccomp libcap-ng inih fuse3 openssl libnghttp2)
if [ $# -gt 0 ] && [ -f "$1" ]; then
	exec "$out/fuzz_export" "$@"
fi
printf '*.pyc\0a/b.pyc\0../x' >"$out/corpus/seed1"
printf 'node_modules/\0web/node_modules/x\0/etc' >"$out/corpus/seed2"
printf 'diff --git a/x b/x\n+\033[2J\n-\302\233\n' >"$out/corpus/seed3"
exec "$out/fuzz_export" -max_total_time="${1:-60}" -max_len=4096 "$out/corpus"
