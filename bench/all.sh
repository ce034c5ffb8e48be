#!/usr/bin/env bash
# make bench: every benchmark script in turn, its output shown and kept in
# bench/.cache/results.txt, then one table of issue #18's measures (ours,
# the reference measured in this run, the ratio, the goal, MISSED where a
# goal is missed), also written to bench/results.json. A script that fails
# is reported and its rows show n/a; the others still run. Archives are
# recorded once and cached in bench/.cache (see bench/lib/archive.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
mkdir -p bench/.cache
results=bench/.cache/results.txt
: >"$results"
start=$(date +%s)
failed=()
for script in parse check pmcd archive eval explain web lsp versions tools; do
	echo "== bench/$script.sh"
	t0=$(date +%s)
	if ! bench/"$script".sh 2>&1 | tee -a "$results"; then
		failed+=("$script")
		echo "bench/$script.sh FAILED" | tee -a "$results"
	fi
	echo "   ($(( $(date +%s) - t0 )) s)"
done
echo "NOTE make bench took $(( $(date +%s) - start )) s" >>"$results"
for f in "${failed[@]}"; do echo "NOTE bench/$f.sh failed: its rows are n/a" >>"$results"; done
go run ./bench/table -json bench/results.json <"$results"
[ ${#failed[@]} -eq 0 ]
