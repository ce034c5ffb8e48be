#!/usr/bin/env bash
# make web-assets: builds the explain page's third-party assets from npm
# (web/package.json, pinned by web/package-lock.json) and copies them into
# web/assets/vendor/, which go:embed puts in the binary. The copies are
# committed so that `go build` from a clean clone needs no npm and no
# network; `scripts/web-assets.sh --check` (run by make web-e2e, so by
# make test) fails when they differ from what npm installs.
set -euo pipefail
cd "$(dirname "$0")/../web"
check=${1:-}
[ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund >/dev/null
files=(
	"node_modules/uplot/dist/uPlot.iife.min.js:assets/vendor/uPlot.iife.min.js"
	"node_modules/uplot/dist/uPlot.min.css:assets/vendor/uPlot.min.css"
	"node_modules/uplot/LICENSE:assets/vendor/uPlot.LICENSE"
)
status=0
for pair in "${files[@]}"; do
	from=${pair%%:*} to=${pair#*:}
	if [ "$check" = --check ]; then
		cmp -s "$from" "$to" || { echo "web-assets: web/$to differs from npm's $from: run make web-assets" >&2; status=1; }
	else
		cp "$from" "$to"
	fi
done
exit $status
