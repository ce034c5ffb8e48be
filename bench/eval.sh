#!/usr/bin/env bash
# Derived-metric evaluation over an archive: the 1,000 definitions of
# bench/testdata/eval1000.conf over every record of an archive of more than
# 10,000 records. Ours (go test -bench EvalArchive: open the archive, parse,
# check and bind the config, then one evaluator Sample per record) against
# libpcp doing the same through python3-pcp (PM_CONTEXT_ARCHIVE,
# pmLoadDerivedConfig, pmLookupName + pmLookupDescs of every definition,
# then pmFetch of all 1,000 in PM_MODE_FORW until PM_ERR_EOL). Goal: ours at
# least 10x as fast as libpcp, allocating at most 32 bytes a value. The archive is recorded once from the test pmcd
# with pmlogger (bench/testdata/eval.pmlogger every millisecond, a few
# minutes) and cached in bench/.cache. libpcp runs once (about 18 s), ours
# twice; the best of ours counts.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
export PCP_DERIVED_CONFIG=
out=$(scripts/pcp-testenv.sh 2>&1) || { echo "$out" >&2; exit 1; }
. bench/lib/archive.sh
base=$(bench_archive eval 1msec 10500 "$(cat bench/testdata/eval.pmlogger)")
base=$PWD/$base
conf=$PWD/bench/testdata/eval1000.conf
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

cat >"$dir/eval.py" <<'PY'
import os, sys, time
os.environ["PCP_DERIVED_CONFIG"] = ""
from ctypes import POINTER, byref, c_uint
from pcp import pmapi
import cpmapi as c
archive, config = sys.argv[1], sys.argv[2]
names = [l.split("=", 1)[0].strip() for l in open(config) if "=" in l and not l.lstrip().startswith("#")]
lib, res = pmapi.LIBPCP, POINTER(pmapi.pmResult)()
start = time.perf_counter()
ctx = pmapi.pmContext(c.PM_CONTEXT_ARCHIVE, archive)
ctx.pmLoadDerivedConfig(config)
pmids = []
for n in names:
    try:
        pmid = ctx.pmLookupName([n])[0]
        ctx.pmLookupDescs([pmid])
    except pmapi.pmErr:
        continue
    pmids.append(pmid)
arr = (c_uint * len(pmids))(*pmids)
ctx.pmSetMode(c.PM_MODE_FORW, ctx.pmGetArchiveLabel().start, 0)
replay = time.perf_counter()
records = 0
while True:
    sts = lib.pmFetch(len(pmids), arr, byref(res))
    if sts == c.PM_ERR_EOL:
        break
    if sts < 0:
        raise SystemExit("pmFetch: %s" % pmapi.pmErr(sts))
    records += 1
    lib.pmFreeResult(res)
end = time.perf_counter()
print(f"{end - start:.6f} {end - replay:.6f} {records} {len(pmids)}")
PY

go test -c -o "$dir/evaluator.test" ./evaluator
go_out=
best_lib=$(/usr/bin/python3 "$dir/eval.py" "$base" "$conf")
for _ in 1 2; do
	go_out+=$(cd evaluator && PCP_DERIVE_LSP_BENCH_ARCHIVE=$base PCP_DERIVE_LSP_BENCH_CONFIG=$conf "$dir/evaluator.test" -test.run '^$' -test.bench EvalArchive -test.benchtime 1x)$'\n'
done
echo "$go_out" | grep '^Benchmark'

echo "$go_out" | awk -v lib="$best_lib" '
/^BenchmarkEvalArchive/ {
	if (best == "" || $3 < best) {
		best = $3
		for (i = 4; i < NF; i++) {
			if ($(i+1) == "replay-ns/op") replay = $i
			if ($(i+1) == "records") records = $i
			if ($(i+1) == "metrics") metrics = $i
			if ($(i+1) == "values") values = $i
			if ($(i+1) == "allocs/op") allocs = $i
			if ($(i+1) == "B/op") bytes = $i
			if ($(i+1) == "B/value") pervalue = $i
		}
	}
}
END {
	split(lib, l, " ")
	if (records < 10000) { printf "only %d records: the archive should have at least 10,000\n", records; exit 1 }
	printf "derived metrics: ours %d evaluated, libpcp %d bound; records: ours %d (%d values), libpcp %d\n", metrics, l[4], records, values, l[3]
	printf "eval of %d derived metrics over %d archive records: ours %.2f s, libpcp %.2f s, ratio %.1fx (libpcp/ours; goal >= 10), %d allocs/op, %.0f MB allocated/op\n", metrics, records, best / 1e9, l[1], l[1] * 1e9 / best, allocs, bytes / 1e6
	printf "  (replay alone, after load and bind: ours %.2f s, libpcp %.2f s, %.1fx; per record: ours %.0f us, libpcp %.0f us)\n", replay / 1e9, l[2], l[2] * 1e9 / replay, replay / records / 1e3, l[2] * 1e6 / l[3]
	printf "RESULT eval_s %.3f s\nRESULT libpcp_eval_s %.3f s\nRESULT eval_bytes_per_value %.2f B\nRESULT eval_alloc_mb %.1f MB\n", best / 1e9, l[1], pervalue, bytes / 1e6
}'
