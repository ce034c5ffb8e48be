#!/usr/bin/env bash
# Semantic check against the test pmcd, as CI runs it: pcp-derive-lsp check
# --host (one batched lookup for every operand; the whole process, its
# time and peak RSS) at 10,000, 100,000 and 1,000,000 definitions, against
# libpcp binding the same definitions (pminfo -c, which binds each one with
# its own round trips) in the same run. pminfo -c grows faster than
# linearly (libpcp registers each derived metric against every one before
# it): 4.1 s at 10,000 definitions, 13.7 s at 20,000, 61.5 s at 40,000
# and 515 s at 100,000 on this machine (2026-11-27). A 100,000 run does
# not fit in make bench's ten minutes, so it is measured at 10,000 (best
# of three, for the 10,000 ratio), 20,000 and 40,000 (one run each) and
# its 100,000 time extrapolated along the power law through the 20k and
# 40k runs (449 s from the runs above: under the 515 s measured, as the
# exponent still grows past 40k), its peak RSS along the line through
# them (said in the table's note). PCP_DERIVE_LSP_CHECK_PMINFO_100K=1
# runs pminfo -c at 100,000 as well (8 to 9 minutes) and uses that.
# Ours counts its best of three runs of each size, the sizes taking turns. Needs
# scripts/pcp-testenv.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
. bench/lib/gotest.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
metrics=sample.long.one,sample.long.ten,sample.ulong.hundred,sample.double.one,sample.bin,sample.part_bin,sample.byte_ctr,sample.kbyte_ctr,sample.milliseconds,kernel.all.load,disk.dev.read,disk.dev.read_bytes,mem.util.used,hinv.ncpu
sizes=${PCP_DERIVE_LSP_CHECK_SIZES:-"10000 100000 1000000"}
go run ./internal/exprgen/cmd/genconfig -n 1000000 -valid -metrics "$metrics" > "$dir/gen1000000.conf"
for n in 1000 10000 20000 40000 100000; do head -"$n" "$dir/gen1000000.conf" > "$dir/gen$n.conf"; done
CGO_ENABLED=0 go build -o "$dir/pcp-derive-lsp" ./cmd/pcp-derive-lsp

# timed CMD...: runs CMD, prints "seconds peak-RSS-MB stopped" (stopped
# is 1 when CMD ran past $limit seconds and was stopped, else 0).
limit=${PCP_DERIVE_LSP_CHECK_LIMIT:-120}
timed() {
	local t0 t1 rc=0
	t0=$(date +%s%N)
	/usr/bin/time -f '%M' -o "$dir/rss" timeout "$limit" "$@" >/dev/null 2>&1 || rc=$?
	t1=$(date +%s%N)
	awk -v t=$((t1 - t0)) -v kb="$(tail -n 1 "$dir/rss" | grep -E '^[0-9]+$' || echo 0)" -v stopped=$((rc == 124)) 'BEGIN { printf "%.4f %.1f %d\n", t / 1e9, kb / 1024, stopped }'
}

# best CMD...: timed three times (runs=N to change), the shortest time
# and the highest peak RSS of the runs (stopped if any was): on a shared
# 2-core machine one run of either side varied by half from one minute
# to the next; both sides are measured so.
best() {
	local i out t r s bt= br=0 bs=0
	for ((i = 0; i < ${runs:-3}; i++)); do
		out=$(timed "$@")
		read -r t r s <<<"$out"
		if [ -z "$bt" ] || awk -v a="$t" -v b="$bt" 'BEGIN { exit !(a < b) }'; then bt=$t; fi
		br=$(awk -v a="$r" -v b="$br" 'BEGIN { print (a > b ? a : b) }')
		[ "$s" = 1 ] && bs=1
	done
	echo "$bt $br $bs"
}

declare -A lib
for n in 10000 20000 40000; do
	lib[$n]=$(PCP_DERIVED_CONFIG= limit=600 runs=$([ "$n" = 10000 ] && echo 3 || echo 1) best pminfo -h 127.0.0.1 -c "$dir/gen$n.conf")
	set -- ${lib[$n]}
	printf "libpcp (pminfo -c, binds all), %7d definitions: %8.2f s, peak RSS %6.1f MB\n" "$n" "$1" "$2"
done
read -r l10 r10 _ <<<"${lib[10000]}"
read -r l20 r20 _ <<<"${lib[20000]}"
read -r l40 r40 _ <<<"${lib[40000]}"
awk -v t10="$l10" -v t20="$l20" -v t40="$l40" -v r10="$r10" -v r20="$r20" -v r40="$r40" 'BEGIN {
	printf "RESULT pminfo_c_10000_s %.4f s\nRESULT pminfo_c_10000_rss_mb %.1f MB\n", t10, r10
	printf "RESULT pminfo_c_20000_s %.4f s\nRESULT pminfo_c_20000_rss_mb %.1f MB\n", t20, r20
	printf "RESULT pminfo_c_40000_s %.4f s\nRESULT pminfo_c_40000_rss_mb %.1f MB\n", t40, r40
}'
if [ "${PCP_DERIVE_LSP_CHECK_PMINFO_100K:-}" = 1 ]; then
	read -r t r stopped <<<"$(PCP_DERIVED_CONFIG= limit=900 runs=1 best pminfo -h 127.0.0.1 -c "$dir/gen100000.conf")"
	printf "libpcp (pminfo -c, binds all), %7d definitions: %8.2f s, peak RSS %6.1f MB%s\n" 100000 "$t" "$r" "$([ "$stopped" = 1 ] && echo " (stopped at 900 s)")"
	printf "RESULT pminfo_c_100000_s %s s\nRESULT pminfo_c_100000_rss_mb %s MB\n" "$t" "$r"
else
	# The power law t = t40 * (n / 40000)^k through the 20k and 40k runs;
	# the line through their peak RSS.
	awk -v t20="$l20" -v t40="$l40" -v r20="$r20" -v r40="$r40" 'BEGIN {
		k = log(t40 / t20) / log(2)
		t = t40 * exp(k * log(100000 / 40000)); r = r40 + (r40 - r20) * 3
		printf "RESULT pminfo_c_100000_s %.4f s\nRESULT pminfo_c_100000_rss_mb %.1f MB\nRESULT pminfo_c_100000_extrapolated 1 flag\n", t, r
		printf "libpcp (pminfo -c), 100,000 definitions, extrapolated from 20k and 40k (time ~ n^%.2f): %.1f s, peak RSS %.0f MB\n", k, t, r
		printf "NOTE pminfo -c at 100,000 definitions is extrapolated from runs at 20,000 and 40,000 (time along n^%.2f, RSS along a line): a run took 515 s on 2026-11-27, against 449 s so extrapolated from that day'"'"'s runs; PCP_DERIVE_LSP_CHECK_PMINFO_100K=1 measures it\n", k
	}'
fi

# Three rounds, each running every size once: the 1,000,000 time is
# compared with the 100,000 one, so the two are measured side by side (a
# round of each size within a quarter of a minute) rather than one size's
# runs in a quiet minute and the other's in a busy one. Each size's best
# run counts, and its highest peak RSS. With two runs of a million at the
# end, the same code gave 9.70 and 10.32 times the 100,000 time on one day.
declare -A ours_t ours_r ours_s
for _ in 1 2 3; do
	for n in $sizes; do
		read -r t r s <<<"$(timed "$dir/pcp-derive-lsp" check --dialect pcp6 --host 127.0.0.1 --format json "$dir/gen$n.conf")"
		if [ -z "${ours_t[$n]:-}" ] || awk -v a="$t" -v b="${ours_t[$n]}" 'BEGIN { exit !(a < b) }'; then ours_t[$n]=$t; fi
		ours_r[$n]=$(awk -v a="$r" -v b="${ours_r[$n]:-0}" 'BEGIN { print (a > b ? a : b) }')
		[ "$s" = 1 ] && ours_s[$n]=1
	done
done
for n in $sizes; do
	t=${ours_t[$n]} r=${ours_r[$n]} stopped=${ours_s[$n]:-0}
	mb=$(awk -v b="$(wc -c <"$dir/gen$n.conf")" 'BEGIN { printf "%.2f", b / 1e6 }')
	printf "pcp-derive-lsp check --host, %7d definitions (%s MB): %8.2f s, peak RSS %6.1f MB%s\n" "$n" "$mb" "$t" "$r" "$([ "$stopped" = 1 ] && echo " (stopped at the ${limit} s limit)")"
	printf "RESULT check_%d_s %s s\nRESULT check_%d_rss_mb %s MB\nRESULT config_%d_mb %s MB\nRESULT check_%d_stopped %d flag\n" "$n" "$t" "$n" "$r" "$n" "$mb" "$n" "$stopped"
	if [ "$stopped" = 1 ]; then echo "NOTE check --host of $n definitions was stopped at the ${limit} s limit (PCP_DERIVE_LSP_CHECK_LIMIT): its time is a lower bound, its RSS what it had reached"; fi
done
read -r t _ _ <<<"$(timed "$dir/pcp-derive-lsp" check --dialect pcp6 --host 127.0.0.1 --format json "$dir/gen1000.conf")"
printf "pcp-derive-lsp check, 1,000 lines:  %8.1f ms  (whole process, cold)\n" "$(awk -v t="$t" 'BEGIN { print t * 1000 }')"

# The language server's per-keystroke cost: parse and check a 1,000-line
# file against metadata already cached in memory.
bench_go_test ./checker -run '^$' -bench '^BenchmarkCheckWarm$' -benchtime 20x | awk '/^BenchmarkCheckWarm/ {
	printf "check of 1,000 lines, warm cache:   %8.1f ms  (%d allocs/op)\n", $3 / 1e6, $7 }'
