#!/usr/bin/env bash
# make bench: every benchmark script in turn, its output shown and kept in
# bench/.cache/results.txt, then one table of issue #18's measures (ours,
# the reference measured in this run, the ratio, the goal, MISSED where a
# goal is missed), also written to bench/results.json. A script that fails
# is reported and its rows show n/a; the others still run. Archives are
# recorded once and cached in bench/.cache (see bench/lib/archive.sh).
#
# No script may hang make bench (issue 39): each go test a script reads
# runs with a -timeout and, failing, leaves its whole output (a goroutine
# dump) in the log (bench/lib/gotest.sh); and a script still running
# after $BENCH_SCRIPT_TIMEOUT (45m) gets SIGQUIT, with every process it
# started, then SIGKILL 30 s later (a Go program writing to the log
# prints every goroutine's stack there; one whose output the script was
# reading with $(...) takes its stack with it, hence bench_go_test).
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
	if ! timeout --signal=QUIT --kill-after=30s "${BENCH_SCRIPT_TIMEOUT:-45m}" bench/"$script".sh 2>&1 | tee -a "$results"; then
		failed+=("$script")
		echo "bench/$script.sh FAILED" | tee -a "$results"
	fi
	echo "   ($(( $(date +%s) - t0 )) s)"
done
echo "NOTE make bench took $(( $(date +%s) - start )) s" >>"$results"
for f in "${failed[@]}"; do echo "NOTE bench/$f.sh failed: its rows are n/a" >>"$results"; done
go run ./bench/table -json bench/results.json <"$results"
[ ${#failed[@]} -eq 0 ]
