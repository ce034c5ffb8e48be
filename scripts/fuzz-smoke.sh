#!/usr/bin/env bash
# Runs every Go fuzz target briefly, failing on any crash: a smoke test of
# the decoders of outside input, not a campaign.
#
# The budget is a count of executions per target (FUZZ_EXECS), not a
# duration: Go 1.26's fuzz coordinator can report "context deadline
# exceeded" at the end of a duration-based -fuzztime when a worker is slow
# to stop on a loaded machine (go.dev/issue/75804, fixed in Go 1.27), a
# failure with no failing input. A count has no deadline to race.
set -euo pipefail
cd "$(dirname "$0")/.."
execs=${FUZZ_EXECS:-20000}
# The grammar's targets run both parsers on every input, ~40x slower per
# execution than the binary decoders: they get a proportionally smaller
# count so the whole smoke run stays near 30 s.
declare -A scale=([FuzzExpr]=8 [FuzzParseConfig]=4)

mapfile -t targets < <(grep -rl --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]+\(' . |
	while read -r file; do
		pkg=./$(dirname "${file#./}")
		grep -oE '^func Fuzz[A-Za-z0-9_]+' "$file" | sed "s|^func |$pkg |"
	done | sort)

if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz-smoke: no fuzz targets"
	exit 0
fi
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	n=$((execs / ${scale[$name]:-1}))
	echo "fuzz-smoke: $name in $pkg for ${n} executions"
	go test -run '^$' -fuzz "^${name}\$" -fuzztime "${n}x" "$pkg" >/tmp/fuzz-smoke.$$ 2>&1 || {
		cat /tmp/fuzz-smoke.$$
		rm -f /tmp/fuzz-smoke.$$
		echo "fuzz-smoke: $name failed"
		exit 1
	}
	tail -1 /tmp/fuzz-smoke.$$
done
rm -f /tmp/fuzz-smoke.$$
echo "fuzz-smoke: ${#targets[@]} targets passed"
