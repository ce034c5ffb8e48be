#!/usr/bin/env bash
# The pmcd client against libpcp, in the same run, over TCP to the test
# pmcd (scripts/pcp-testenv.sh, started here if needed):
#  (a) metadata of the whole PMNS, every name and its descriptor: ours
#      (go test -bench WholePMNSMetadata: connect, traverse, names, descs)
#      against `pminfo -d` of the whole namespace; goal: ours faster.
#  (b) one fetch round trip of the 50 metrics of bench/testdata/fetch50.names
#      on a warm connection: ours against libpcp's pmFetch of the same
#      PMIDs (python3-pcp calling libpcp directly through ctypes,
#      bench/lib/pmfetch.py); goal (issue #18): ours no slower.
# (a): three rounds, the two sides taking turns; the best run of each
# counts. (b): bench/fetchpair, $FETCH_ROUNDS (default 400) rounds of
# $FETCH_BURST (default 50) fetches a side in two long-lived processes,
# taking turns; the median of the rounds' paired ratios counts, with its
# 95% interval. Both sides spend about 90% of a fetch waiting for pmcd and
# its agents (per fetch on this machine: pmcd 82 µs, pmdalinux 194 µs and
# pmdasample 24 µs of CPU, each client 32 to 36 µs), whose speed drifts
# from one second to the next by more than the clients differ; bursts of
# 17 ms side by side see the same pmcd (see bench/fetchpair).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
host=${PCP_DERIVE_LSP_BENCH_HOST:-127.0.0.1}
export PCP_DERIVE_LSP_BENCH_HOST=$host
# pmcd's own namespace only: no libpcp-side derived metrics in pminfo.
export PCP_DERIVED_CONFIG=
out=$(scripts/pcp-testenv.sh 2>&1) || { echo "$out" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
names=bench/testdata/fetch50.names

now() { date +%s%N; }

go test -c -o "$dir/pmcd.test" ./pmclient/pmcd
ours() { (cd pmclient/pmcd && "$dir/pmcd.test" -test.run '^$' -test.bench "$@"); }

# (a) Three rounds, ours and pminfo taking turns so that both see the
# same pmcd; the best of each side counts.
best_pminfo= best_one= go_out=
for _ in 1 2 3; do
	# (a) pminfo -d over the whole namespace, and of one name for the cost
	# of a process and a connection alone.
	t0=$(now)
	pminfo -h "$host" -d >"$dir/pminfo-d.out"
	t1=$(now)
	pminfo -h "$host" -d pmcd.version >/dev/null
	t2=$(now)
	if [ -z "$best_pminfo" ] || [ $((t1 - t0)) -lt "$best_pminfo" ]; then best_pminfo=$((t1 - t0)); fi
	if [ -z "$best_one" ] || [ $((t2 - t1)) -lt "$best_one" ]; then best_one=$((t2 - t1)); fi
	go_out+=$(ours 'WholePMNSMetadata' -test.benchtime 5x)$'\n'
done

pminfo_names=$(grep -c '^[^ ]' "$dir/pminfo-d.out")
echo "$go_out" | grep '^Benchmark'

echo "$go_out" | awk -v pminfo="$best_pminfo" -v one="$best_one" -v pnames="$pminfo_names" '
function minset(k, v) { if (!(k in best) || v < best[k]) best[k] = v }
/^BenchmarkWholePMNSMetadata/ { minset("meta", $3); for (i = 4; i < NF; i++) if ($(i+1) == "names") names = $i; else if ($(i+1) == "allocs/op") metaAllocs = $i }
END {
	ours = best["meta"] / 1e6; theirs = pminfo / 1e6
	printf "pmcd whole-PMNS metadata (%d names; pminfo -d %d with libpcp'"'"'s event.flags, event.missed): ours %.1f ms, pminfo -d %.1f ms, ratio %.1fx (pminfo/ours; goal > 1), %d allocs/op\n", names, pnames, ours, theirs, theirs / ours, metaAllocs
	printf "  (pminfo -d of one name, process and connection alone: %.1f ms)\n", one / 1e6
	printf "RESULT pmns_metadata_ms %.1f ms\nRESULT pminfo_d_ms %.1f ms\n", best["meta"] / 1e6, pminfo / 1e6
}'

# (b) One fetch of 50 metrics, ours and libpcp's in bursts taking turns.
go build -o "$dir/fetchpair" ./bench/fetchpair
"$dir/fetchpair" -host "$host" -names "$names" -rounds "${FETCH_ROUNDS:-400}" -burst "${FETCH_BURST:-50}" \
	-- /usr/bin/python3 bench/lib/pmfetch.py "$host" "$names"
