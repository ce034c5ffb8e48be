#!/usr/bin/env bash
# Semantic check of a 10,000-definition config against the test pmcd:
# pcp-derive-lsp check (one batched lookup for every operand) against
# libpcp binding the same definitions (pminfo -c, which binds each one with
# its own round trips), in the same run. Needs scripts/pcp-testenv.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
n=${1:-10000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
metrics=sample.long.one,sample.long.ten,sample.ulong.hundred,sample.double.one,sample.bin,sample.part_bin,sample.byte_ctr,sample.kbyte_ctr,sample.milliseconds,kernel.all.load,disk.dev.read,disk.dev.read_bytes,mem.util.used,hinv.ncpu
go run ./internal/exprgen/cmd/genconfig -n "$n" -valid -metrics "$metrics" > "$dir/gen.conf"
head -1000 "$dir/gen.conf" > "$dir/gen1k.conf"
CGO_ENABLED=0 go build -o "$dir/pcp-derive-lsp" ./cmd/pcp-derive-lsp

now() { date +%s.%N; }
t0=$(now)
PCP_DERIVED_CONFIG= pminfo -h 127.0.0.1 -c "$dir/gen.conf" >/dev/null 2>&1 || true
t1=$(now)
"$dir/pcp-derive-lsp" check --dialect pcp6 --host 127.0.0.1 --format json "$dir/gen.conf" >/dev/null || true
t2=$(now)
"$dir/pcp-derive-lsp" check --dialect pcp6 --host 127.0.0.1 --format json "$dir/gen1k.conf" >/dev/null || true
t3=$(now)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v n="$n" 'BEGIN {
	printf "definitions:                        %d\n", n
	printf "libpcp (pminfo -c, binds all):      %8.1f ms\n", (b - a) * 1000
	printf "pcp-derive-lsp check --host:        %8.1f ms  (libpcp/ours = %.1fx)\n", (c - b) * 1000, (b - a) / (c - b)
	printf "pcp-derive-lsp check, 1,000 lines:  %8.1f ms  (whole process, cold)\n", (d - c) * 1000
}'

# The language server's per-keystroke cost: parse and check a 1,000-line
# file against metadata already cached in memory.
go test ./checker -run '^$' -bench CheckWarm -benchtime 20x | awk '/^BenchmarkCheckWarm/ {
	printf "check of 1,000 lines, warm cache:   %8.1f ms  (%d allocs/op)\n", $3 / 1e6, $7 }'
