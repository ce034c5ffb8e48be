#!/usr/bin/env bash
# The fleet check at scale, by simulation (issue #16): hundreds of Go pmcds
# on loopback ports (pmcd.Server serving the embedded snapshot as four
# kinds of host: PCP 5.2.6 without two PMDAs, 6.0.3, 6.3.8, 7.2.2; every
# 50th host down), checked with testdata/examples/*.conf.
#
#  (a) go test -bench FleetScale: the engine in process, 50 to 1000 hosts,
#      concurrency 16: wall time per host, connections open at once (the
#      bound) and in all, peak heap, heap the result keeps per host, bytes
#      allocated per host, distinct outcomes (interned).
#  (b) the built binary against libpcp on the same simulated fleet: our
#      `check --hosts-file` against `pminfo -h HOST -c CONFIG -d NAMES`
#      per host, 16 at a time (xargs -P16), which is what an admin would
#      script with PCP alone; wall time, ratio, and our peak RSS.
#
# Goal: time linear in hosts, memory bounded (retained bytes per host
# flat, peak RSS nearly flat), faster than the pminfo loop.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
export PCP_DERIVED_CONFIG=
sizes=${PCP_DERIVE_LSP_FLEET_SIZES:-"50 100 200 500 1000"}
max=0
for n in $sizes; do ((n > max)) && max=$n; done
dir=$(mktemp -d)
sim=
cleanup() {
	[ -n "$sim" ] && kill "$sim" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

echo "== (a) the engine in process (go test -bench FleetScale)"
go test -run '^$' -bench 'FleetScale' -benchtime 1x ./fleet/ | tee "$dir/bench.out" | grep -E '^(Benchmark|ok|FAIL)' >/dev/null
awk '
/^BenchmarkFleetScale/ {
	split($1, a, "="); n = a[2]; sub(/-.*/, "", n)
	for (i = 3; i < NF; i++) v[$(i+1)] = $i
	printf "%6d hosts  %7.0f ms  %5.2f ms/host  %3d open at once (%d conns)  peak heap %5.1f MiB  retained %5.0f B/host  alloc %5.1f KiB/host  %d outcomes\n",
		n, v["ns/op"] / 1e6, v["ms/host"], v["peak-open"], v["conns"], v["peak-heap-MiB"], v["retained-B/host"], v["alloc-KiB/host"], v["outcomes"]
}' "$dir/bench.out"

echo "== (b) the binary against a pminfo loop, on $max simulated hosts"
go build -o "$dir/pcp-derive-lsp" ./cmd/pcp-derive-lsp
go test -c -o "$dir/fleet.test" ./fleet/
PCP_DERIVE_LSP_SIM_FLEET=$max "$dir/fleet.test" -test.run TestServeSimFleet -test.timeout 0 >"$dir/sim.out" 2>&1 &
sim=$!
for _ in $(seq 100); do
	grep -q '^ready' "$dir/sim.out" && break
	sleep 0.1
done
grep -q '^ready' "$dir/sim.out" || { cat "$dir/sim.out" >&2; exit 1; }
configs=(testdata/examples/*.conf)
names=$(cat "${configs[@]}" | grep -oE '^[a-z][A-Za-z0-9_.]*' | sort -u | tr '\n' ' ')
cat "${configs[@]}" >"$dir/all.conf"
now() { date +%s%N; }
for n in $sizes; do
	awk -v n="$n" '$1 ~ /^host/ && c++ < n { print $1 "=" $2 }' "$dir/sim.out" >"$dir/hosts"
	t0=$(now)
	/usr/bin/time -f '%M' -o "$dir/rss" "$dir/pcp-derive-lsp" check --format json --allow-unreachable --concurrency 16 \
		--hosts-file "$dir/hosts" "${configs[@]}" >"$dir/report.json" || true
	t1=$(now)
	cut -d= -f2 "$dir/hosts" | xargs -P16 -I{} sh -c "pminfo -h {} -c $dir/all.conf -d $names >/dev/null 2>&1 || true"
	t2=$(now)
	checked=$(grep -c '"state": "checked"' "$dir/report.json" || true)
	awk -v n="$n" -v ours=$((t1 - t0)) -v theirs=$((t2 - t1)) -v rss="$(tail -n 1 "$dir/rss")" -v checked="$checked" 'BEGIN {
		printf "%6d hosts (%d checked)  ours %6.0f ms (%.2f ms/host, peak RSS %.1f MiB)  pminfo loop %6.0f ms  ratio %.1fx (pminfo/ours; goal > 1)\n",
			n, checked, ours / 1e6, ours / 1e6 / n, rss / 1024, theirs / 1e6, theirs / ours }'
done
