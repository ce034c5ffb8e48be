#!/usr/bin/env bash
# The cost of following one PCP release rather than another: the same
# config parsed (10,000 definitions) and checked warm (1,000) for every
# proved release, each time against the 6.0.3 figure measured in the same
# run. Version rules are comparisons, so the ratios should sit near 1.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
. bench/lib/gotest.sh
out=$(bench_go_test -run '^$' -bench 'ByRelease' -benchtime 10x ./grammar ./checker)
echo "$out" | grep '^Benchmark'
echo "$out" | awk '/^Benchmark.*ByRelease\// {
	split($1, p, "/"); sub(/-[0-9]+$/, "", p[2]); ns[p[1] "/" p[2]] = $3; bench[p[1]] = 1; rel[p[2]] = 1
}
END {
	for (b in bench) {
		base = ns[b "/6.0.3"]
		for (r in rel) if ((b "/" r) in ns) printf "%-32s PCP %-6s %10.2f ms  (%.2fx the 6.0.3 time)\n", b, r, ns[b "/" r] / 1e6, ns[b "/" r] / base
	}
}' | sort
