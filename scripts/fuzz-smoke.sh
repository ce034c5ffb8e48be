#!/usr/bin/env bash
# Runs every Go fuzz target briefly (about 30 s in all), failing on any
# crash: a smoke test of the decoders of outside input, not a campaign.
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${FUZZ_BUDGET:-30}

mapfile -t targets < <(grep -rl --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]+\(' . |
	while read -r file; do
		pkg=./$(dirname "${file#./}")
		grep -oE '^func Fuzz[A-Za-z0-9_]+' "$file" | sed "s|^func |$pkg |"
	done | sort)

if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz-smoke: no fuzz targets"
	exit 0
fi
per=$((budget / ${#targets[@]}))
[ "$per" -ge 3 ] || per=3
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	echo "fuzz-smoke: $name in $pkg for ${per}s"
	go test -run '^$' -fuzz "^${name}\$" -fuzztime "${per}s" "$pkg" >/tmp/fuzz-smoke.$$ 2>&1 || {
		cat /tmp/fuzz-smoke.$$
		rm -f /tmp/fuzz-smoke.$$
		echo "fuzz-smoke: $name failed"
		exit 1
	}
	tail -1 /tmp/fuzz-smoke.$$
done
rm -f /tmp/fuzz-smoke.$$
echo "fuzz-smoke: ${#targets[@]} targets passed"
