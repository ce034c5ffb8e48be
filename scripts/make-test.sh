#!/usr/bin/env bash
# make test: every check, in order, going on past a failure so that one run
# reports everything. Each Go test and subtest counts once (from go test
# -json, see internal/testreport); every other step (the test environment,
# gofmt, the LALR tables, vet, the VS Code extension's suites, the extension
# in real VS Code, the explain page in chromium, the fuzz smoke run) counts
# as one. The last line is the summary "N passed, N failed"; the exit status
# is 1 when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
GO=${GO:-go}
passed=0
failed=0
failures=()

step() {
	local name=$1
	shift
	echo "=== $name"
	if "$@"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures+=("$name")
		echo "=== $name FAILED"
	fi
}

step testenv make --no-print-directory testenv
step gofmt make --no-print-directory fmt-check
step lalr-tables make --no-print-directory tables-check
step vet make --no-print-directory vet
step cross-build make --no-print-directory cross-build

echo "=== go test -race, then the sampled tests without it"
counts=$(mktemp)
trap 'rm -f "$counts"' EXIT
$GO build -o "$counts.report" ./internal/testreport || { echo "testreport does not build"; exit 1; }
# A package's tests get 25 minutes, not go test's default 10: checker's
# release differentials took 5 to 6 under -race on an idle 2-core machine
# before the sampling below, and a busy one triples that. A hang still
# ends.
#
# The slowest tests under -race (the release differentials, the huge
# inputs) run there on one case in eight, and again in a plain pass on
# every case (internal/testsize: the detector slows our side of a
# comparison tenfold, not the releases' tools). The plain pass runs the
# tests testsize.Pattern names, in the packages that call testsize.Sample;
# testreport counts a test that ran in both passes once.
sampling=$(sed -n 's/^const Pattern = `\(.*\)`$/\1/p' internal/testsize/testsize.go)
sampled=$(grep -rl --include='*_test.go' --exclude-dir=node_modules --exclude-dir=.git -e 'testsize\.Sample' . |
	xargs -r -n1 dirname | sort -u)
{
	$GO test -race -count=1 -timeout 25m -json ./... 2>&1
	if [ -z "$sampling" ] || [ -z "$sampled" ]; then
		echo "make-test.sh: no testsize.Pattern in internal/testsize/testsize.go, or no package samples: the plain pass cannot run"
		echo '{"Action":"fail","Package":"scripts/make-test.sh (plain pass)"}'
	else
		# shellcheck disable=SC2086
		$GO test -count=1 -timeout 25m -json -run "$sampling" $sampled 2>&1
	fi
} | "$counts.report" -counts "$counts"
rm -f "$counts.report"
read -r p f <"$counts" || { p=0; f=1; }
passed=$((passed + p))
failed=$((failed + f))
[ "$f" -eq 0 ] || failures+=("go test ($f)")

step vscode make --no-print-directory vscode-test
step vscode-e2e make --no-print-directory vscode-e2e
step web-e2e make --no-print-directory web-e2e
step fuzz-smoke make --no-print-directory fuzz-smoke

if [ ${#failures[@]} -gt 0 ]; then
	echo "failed: ${failures[*]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
