#!/usr/bin/env bash
# The language server's costs, with libpcp's in the same run for scale:
# didChange -> publishDiagnostics for a 1,000- and a 100,000-line file with
# a warm metadata cache, completion in a 100,000-name namespace (and the
# RSS with it loaded), against one libpcp metadata round trip
# (pmLookupName + pmLookupDesc of one metric on the test pmcd, python3-pcp).
# Needs scripts/pcp-testenv.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

rt_us=$(/usr/bin/python3 - <<'PY'
import os, time
os.environ["PCP_DERIVED_CONFIG"] = ""
from pcp import pmapi
import cpmapi as c
ctx = pmapi.pmContext(c.PM_CONTEXT_HOST, "127.0.0.1")
names = ["sample.long.one", "kernel.all.load", "disk.dev.read", "mem.util.used"]
n = 2000
t0 = time.perf_counter()
for i in range(n):
    pmid = ctx.pmLookupName([names[i % len(names)]])
    ctx.pmLookupDescs(pmid)
print("%.1f" % ((time.perf_counter() - t0) / n * 1e6))
PY
)
out=$(go test ./lsp -run '^$' -bench 'DidChange1000Lines|DidChange100000Lines' -benchtime 5x -benchmem)
out2=$(go test ./lsp -run '^$' -bench 'Completion100kNames' -benchtime 200x -benchmem)
echo "$out" "$out2" | awk -v rt="$rt_us" '
/^BenchmarkDidChange1000Lines/   { printf "didChange -> diagnostics, 1,000 lines:    %9.1f ms  (%.0f libpcp metadata round trips of %.0f us)\n", $3/1e6, $3/1e3/rt, rt }
/^BenchmarkDidChange100000Lines/ { printf "didChange -> diagnostics, 100,000 lines:  %9.1f ms  (%.0f libpcp metadata round trips)\n", $3/1e6, $3/1e3/rt }
/^BenchmarkCompletion100kNames/  { for (i = 1; i <= NF; i++) if ($(i) == "MB-RSS") rss = $(i-1)
                                   printf "completion, 100,000-name namespace:       %9.3f ms  (%.1f libpcp round trips); RSS %s MB\n", $3/1e6, $3/1e3/rt, rss }'
