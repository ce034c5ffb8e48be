#!/usr/bin/env bash
# Parse + syntax check of a 10,000-definition config: ours (go test -bench)
# against libpcp's pmLoadDerivedConfig of the same file, in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
. bench/lib/gotest.sh
n=${1:-10000}
conf=$(mktemp --suffix=.conf)
trap 'rm -f "$conf"' EXIT
go run ./internal/exprgen/cmd/genconfig -n "$n" -valid > "$conf"

libpcp_s=$(PCP_DERIVED_CONFIG= /usr/bin/python3 - "$conf" <<'PY'
import ctypes, sys, time
lib = ctypes.CDLL("libpcp.so.3")
lib.pmLoadDerivedConfig.argtypes = [ctypes.c_char_p]
start = time.perf_counter()
n = lib.pmLoadDerivedConfig(sys.argv[1].encode())
elapsed = time.perf_counter() - start
print(f"{elapsed:.6f}")
print(f"libpcp registered {n} definitions", file=sys.stderr)
PY
)

out=$(PCP_DERIVE_LSP_BENCH_CONFIG="$conf" bench_go_test -run '^$' -bench 'BenchmarkParseConfig(WithTrees)?10k$' -benchtime 5x ./grammar)
echo "$out" | grep Benchmark
ours_ns=$(echo "$out" | awk '/^BenchmarkParseConfig10k/ {print $3}')
trees_ns=$(echo "$out" | awk '/^BenchmarkParseConfigWithTrees10k/ {print $3}')
awk -v l="$libpcp_s" -v o="$ours_ns" -v t="$trees_ns" -v n="$n" 'BEGIN {
	printf "definitions:                      %d\n", n
	printf "libpcp pmLoadDerivedConfig:       %8.1f ms\n", l * 1000
	printf "ours, parse + syntax check:       %8.1f ms  (libpcp/ours = %.2fx)\n", o / 1e6, l * 1e9 / o
	printf "ours, plus every syntax tree:     %8.1f ms  (libpcp/ours = %.2fx)\n", t / 1e6, l * 1e9 / t
	printf "RESULT parse_10000_ms %.2f ms\nRESULT parse_trees_10000_ms %.2f ms\nRESULT pmloadderivedconfig_10000_ms %.2f ms\n", o / 1e6, t / 1e6, l * 1000
}'
