#!/usr/bin/env bash
# make web-e2e: the explain page (pcp-derive-lsp web) in a real headless
# Chromium (web/test/e2e/web.e2e.js), against an archive recorded here from
# the test pmcd and against the pmcd live. Uses the Node 24, chromium and
# puppeteer-core the VS Code end-to-end test caches
# (scripts/vscode-e2e-env.sh). Checks first that the committed plotting
# library is npm's (scripts/web-assets.sh --check). Screenshots go to
# build/web-e2e/; with UPDATE_SCREENSHOTS=1 they are copied to docs/images/
# (docs/explain.md shows them). Never skips: a missing piece is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PATH="$PATH:/usr/local/go/bin"
GO=${GO:-go}

say() { printf 'web-e2e: %s\n' "$*" >&2; }

env_out=$(scripts/vscode-e2e-env.sh)
eval "$env_out"

pminfo -h 127.0.0.1 -f sample.long.one >/dev/null 2>&1 ||
	{ say "the test pmcd with the sample PMDA does not answer on 127.0.0.1: run make testenv"; exit 1; }
scripts/web-assets.sh --check

CGO_ENABLED=0 $GO build -o bin/pcp-derive-lsp ./cmd/pcp-derive-lsp

out=$root/build/web-e2e
rm -rf "$out"
mkdir -p "$out/archive"
cat >"$out/archive/cfg" <<'CFG'
log mandatory on default { sample.bin sample.long.one sample.seconds sample.bad.novalues }
CFG
cat >"$out/my.conf" <<'CONF'
my.sum = sample.bin * 2 + sample.long.one
my.rate = rate(sample.seconds)
my.empty = sample.bin + matchinst(/nomatch/, sample.bin)
my.none = sample.long.one + sample.bad.novalues
CONF
say "recording an archive of 30 records"
(cd "$out/archive" && pmlogger -h 127.0.0.1 -c cfg -t 100msec -s 30 -V2 a >/dev/null 2>&1) ||
	{ say "pmlogger failed: $(cat "$out/archive/pmlogger.log" 2>/dev/null)"; exit 1; }

NODE_PATH=$E2E_NODE_PATH CHROMIUM=$CHROMIUM PCP_DERIVE_LSP_BIN=$root/bin/pcp-derive-lsp \
	ARCHIVE=$out/archive/a CONFIG=$out/my.conf E2E_OUT=$out \
	"$NODE24" --test --test-reporter=spec web/test/e2e/web.e2e.js

if [ "${UPDATE_SCREENSHOTS:-}" = 1 ]; then
	mkdir -p docs/images
	for s in archive slider live; do
		cp "$out/web-$s.png" "docs/images/web-$s.png"
	done
	say "copied the screenshots to docs/images/"
fi
