# Sourced by bench scripts: go test for a benchmark whose output the
# script reads.
#
# bench_go_test ARGS... runs `go test -timeout $BENCH_GO_TEST_TIMEOUT ARGS...`
# and prints its output. When it fails (a benchmark that fails, or one
# still running at the timeout: its goroutine dump, from the package's
# own alarm or go test's SIGQUIT a minute later) the whole output goes
# to stderr, which make bench keeps in bench/.cache/results.txt, before
# the status is returned: a script that reads the output with $(...)
# under set -e would otherwise stop with it unseen (issue 39).
#
# The testing package applies -timeout to tests only; the lsp package's
# TestMain applies it to its benchmarks too (lsp/alarm_test.go), and go
# test kills any test binary a minute past it.
bench_go_test() {
	local out status=0
	out=$(go test -timeout "${BENCH_GO_TEST_TIMEOUT:-15m}" "$@" 2>&1) || status=$?
	if [ "$status" -ne 0 ]; then
		printf '%s\n' "$out" >&2
		echo "FAILED (status $status): go test $* (its whole output is above)" >&2
		return "$status"
	fi
	printf '%s\n' "$out"
}
