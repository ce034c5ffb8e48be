#!/usr/bin/env bash
# explain of a 50-node expression from the live test pmcd against libpcp
# computing the same 50 subexpressions as derived metrics of their own,
# in the same run. Ours (go test -bench Explain): parse and check the
# definition, bind, fetch once, analyse every node, per explanation on a
# warm connection. libpcp (python3-pcp): the 50 subexpressions loaded as
# a config (one definition per node, taken from explain --format json),
# bound once, then one pmFetch of all 50 per round — libpcp's best case,
# and, as a user bisecting by hand runs it, one pminfo -c -f of all 50.
# Goal: faster than the pminfo run, within a few times libpcp's bare
# fetch, with one fetch per explanation (two with delta or rate). Three
# rounds, the sides taking turns; the best of each counts.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
export PCP_DERIVED_CONFIG=
out=$(scripts/pcp-testenv.sh 2>&1) || { echo "$out" >&2; exit 1; }
host=${PCP_DERIVE_LSP_BENCH_HOST:-127.0.0.1}
export PCP_DERIVE_LSP_BENCH_HOST=$host
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

expr='sample.bin * 2 + sample.part_bin - matchinst(/bin-[1-5]00/, sample.long.bin) * sample.long.one + sample.double.bin / (sample.long.ten + 1) - sum(sample.bin) + max(sample.part_bin) - min(sample.bin) + avg(sample.float.bin) * sample.float.one + (sample.long.hundred > 50 ? sample.long.million : sample.long.one) + sample.longlong.bin - sample.ulong.bin + sample.bin[bin-300] * (sample.double.one + sample.long.one) + -sample.long.bin'
export PCP_DERIVE_LSP_BENCH_EXPR=$expr

go build -o "$dir/pcp-derive-lsp" ./cmd/pcp-derive-lsp
go test -c -o "$dir/explain.test" ./explain
"$dir/pcp-derive-lsp" explain --host "$host" --pcp-version 6.0.3 --format json -e "$expr" >"$dir/tree.json"
/usr/bin/python3 - "$dir/tree.json" "$dir/nodes.conf" <<'PY'
import json, sys
tree = json.load(open(sys.argv[1]))
expr = tree["expr"].encode()
stack, texts = [tree["root"]], []
while stack:
    n = stack.pop()
    # "text" is shortened past 200 bytes; the span is exact.
    text = expr[n["span"]["start"]:n["span"]["end"]].decode()
    if text not in texts:
        texts.append(text)
    stack.extend(n["children"])
with open(sys.argv[2], "w") as f:
    for i, t in enumerate(texts):
        f.write("node.n%d = %s\n" % (i, t))
print(len(texts), "distinct subexpressions", file=sys.stderr)
PY

cat >"$dir/fetch.py" <<'PY'
import os, sys, time
os.environ["PCP_DERIVED_CONFIG"] = ""
from ctypes import POINTER, byref, c_uint
from pcp import pmapi
import cpmapi as c
host, config = sys.argv[1], sys.argv[2]
names = [l.split("=", 1)[0].strip() for l in open(config) if "=" in l]
ctx = pmapi.pmContext(c.PM_CONTEXT_HOST, host)
ctx.pmLoadDerivedConfig(config)
pmids = ctx.pmLookupName(names)
ctx.pmLookupDescs(pmids)
arr = (c_uint * len(pmids))(*pmids)
lib, res = pmapi.LIBPCP, POINTER(pmapi.pmResult)()
n, start = 0, time.perf_counter()
while time.perf_counter() - start < 1.0:
    if lib.pmFetch(len(pmids), arr, byref(res)) < 0:
        raise SystemExit("pmFetch failed")
    lib.pmFreeResult(res)
    n += 1
print("%.0f %d" % ((time.perf_counter() - start) / n * 1e9, len(pmids)))
PY

# What a user bisecting by hand runs at best: one pminfo -c -f of every
# subexpression (process start, config load, bind, one fetch).
names=$(sed 's/ =.*//' "$dir/nodes.conf")
best_pminfo=
for _ in 1 2 3; do
	start=$(date +%s%N)
	pminfo -h "$host" -c "$dir/nodes.conf" -f $names >/dev/null
	t=$(( $(date +%s%N) - start ))
	if [ -z "$best_pminfo" ] || [ "$t" -lt "$best_pminfo" ]; then best_pminfo=$t; fi
done

best_lib= best_ours= line=
for _ in 1 2 3; do
	lib=$(/usr/bin/python3 "$dir/fetch.py" "$host" "$dir/nodes.conf")
	if [ -z "$best_lib" ] || [ "${lib%% *}" -lt "${best_lib%% *}" ]; then best_lib=$lib; fi
	got=$(cd explain && "$dir/explain.test" -test.run '^$' -test.bench '^BenchmarkExplain$' -test.benchtime 1s | grep '^BenchmarkExplain')
	ns=$(echo "$got" | awk '{ print $3 }')
	if [ -z "$best_ours" ] || [ "${ns%.*}" -lt "${best_ours%.*}" ]; then best_ours=$ns line=$got; fi
done
echo "$line"
echo "$line" | awk -v lib="$best_lib" -v pminfo="$best_pminfo" '{
	for (i = 4; i < NF; i++) {
		if ($(i+1) == "fetches/op") fetches = $i
		if ($(i+1) == "nodes") nodes = $i
		if ($(i+1) == "explain-ns/op") explain = $i
	}
	split(lib, l, " ")
	printf "explain of a %d-node expression: ours %.0f us per explanation with parse and check (%.0f us without; %s fetches each), libpcp %.0f us per pmFetch of its %d subexpressions registered as derived metrics and bound once; ratio %.2fx with parse and check, %.2fx without (libpcp/ours)\n", nodes, $3 / 1e3, explain / 1e3, fetches, l[1] / 1e3, l[2], l[1] / $3, l[1] / explain
	printf "  (pminfo -c FILE -f of the %d subexpressions, as a user bisecting by hand would at best: %.1f ms, %.1fx ours)\n", l[2], pminfo / 1e6, pminfo / $3
}'
