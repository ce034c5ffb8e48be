#!/usr/bin/env bash
# Full scan of a ~100 MB archive: our reader (go test -bench ArchiveScan:
# open, replay every record, decode every value) against
# `pmdumplog -a ARCHIVE > /dev/null`, and, for scale, libpcp replaying the
# same records without printing (python3-pcp: pmFetch of every metric in
# PM_MODE_FORW until PM_ERR_EOL). Goal: ours at least 10x faster than
# pmdumplog, allocating no more than the archive's bytes.
# The archive is recorded once from the test pmcd with pmlogger (every metric
# of bench/testdata/scan.pmlogger every 10 ms, about a minute) and cached
# in bench/.cache. Two rounds, the sides taking turns; the best counts
# (the libpcp replay, shown for scale only, runs once).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
export PCP_DERIVED_CONFIG=
out=$(scripts/pcp-testenv.sh 2>&1) || { echo "$out" >&2; exit 1; }
. bench/lib/archive.sh
base=$(bench_archive scan 10msec 1300 "$(cat bench/testdata/scan.pmlogger)")
base=$PWD/$base
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

cat >"$dir/replay.py" <<'PY'
import os, sys, time
os.environ["PCP_DERIVED_CONFIG"] = ""
from ctypes import POINTER, byref, c_uint
from pcp import pmapi
import cpmapi as c
lib, res = pmapi.LIBPCP, POINTER(pmapi.pmResult)()
start = time.perf_counter()
ctx = pmapi.pmContext(c.PM_CONTEXT_ARCHIVE, sys.argv[1])
names = []
ctx.pmTraversePMNS("", lambda n: names.append(n))
pmids = ctx.pmLookupName(names)
ctx.pmLookupDescs(pmids)
arr = (c_uint * len(pmids))(*pmids)
ctx.pmSetMode(c.PM_MODE_FORW, ctx.pmGetArchiveLabel().start, 0)
records = 0
while True:
    sts = lib.pmFetch(len(pmids), arr, byref(res))
    if sts == c.PM_ERR_EOL:
        break
    if sts < 0:
        raise SystemExit("pmFetch: %s" % pmapi.pmErr(sts))
    records += 1
    lib.pmFreeResult(res)
print(f"{time.perf_counter() - start:.6f} {records} {len(pmids)}")
PY

go test -c -o "$dir/archive.test" ./pmclient/archive
now() { date +%s%N; }
best_dump= go_out=
best_lib=$(/usr/bin/python3 "$dir/replay.py" "$base")
for _ in 1 2; do
	t0=$(now)
	pmdumplog -a "$base" >/dev/null
	t1=$(now)
	if [ -z "$best_dump" ] || [ $((t1 - t0)) -lt "$best_dump" ]; then best_dump=$((t1 - t0)); fi
	go_out+=$(cd pmclient/archive && PCP_DERIVE_LSP_BENCH_ARCHIVE=$base "$dir/archive.test" -test.run '^$' -test.bench ArchiveScan -test.benchtime 3x -test.benchmem)$'\n'
done
echo "$go_out" | grep '^Benchmark'
dump_records=$(pmdumplog -a "$base" | grep -cE '^\[[0-9]+ bytes\]$')
data_bytes=$(cat "$base".[0-9]* | wc -c)
meta_bytes=$(wc -c <"$base.meta")

echo "$go_out" | awk -v dump="$best_dump" -v lib="$best_lib" -v drec="$dump_records" -v data="$data_bytes" -v meta="$meta_bytes" -v base="$base" '
/^BenchmarkArchiveScan/ {
	if (best == "" || $3 < best) best = $3
	for (i = 4; i < NF; i++) {
		if ($(i+1) == "records") records = $i
		if ($(i+1) == "values") values = $i
		if ($(i+1) == "allocs/op") allocs = $i
		if ($(i+1) == "B/op") bytes = $i
	}
}
END {
	split(lib, l, " ")
	printf "archive %s: %.1f MB of data volumes, %.1f MB of metadata, %d metrics\n", base, data / 1e6, meta / 1e6, l[3]
	printf "  records: ours %d (%d values decoded), pmdumplog -a %d, libpcp pmFetch %d\n", records, values, drec, l[2]
	printf "archive full scan: ours %.0f ms, pmdumplog -a %.0f ms, ratio %.1fx (pmdumplog/ours; goal > 1), %d allocs/op, %.0f MB allocated/op\n", best / 1e6, dump / 1e6, dump / best, allocs, bytes / 1e6
	printf "  (libpcp replay without printing, pmFetch of every metric per record: %.0f ms, %.1fx ours)\n", l[1] * 1e3, l[1] * 1e9 / best
	printf "RESULT scan_ms %.1f ms\nRESULT scan_alloc_mb %.2f MB\nRESULT scan_bytes_mb %.1f MB\nRESULT pmdumplog_a_ms %.1f ms\nRESULT libpcp_replay_ms %.1f ms\n", best / 1e6, bytes / 1e6, (data + meta) / 1e6, dump / 1e6, l[1] * 1e3
}'
