#!/usr/bin/env bash
# make vscode-e2e: the extension in real VS Code. Sets up code-server, Node
# 24, Debian's chromium and puppeteer-core (scripts/vscode-e2e-env.sh, cached
# outside the repository), builds the server and the .vsix the way make
# vscode-test does, and runs editors/vscode/test/e2e/vscode.e2e.js against
# the test pmcd (make testenv). Screenshots go to build/vscode-e2e/; with
# UPDATE_SCREENSHOTS=1 the ones docs/editors.md shows are copied to
# docs/images/. Never skips: a missing piece is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PATH="$PATH:/usr/local/go/bin"
GO=${GO:-go}

say() { printf 'vscode-e2e: %s\n' "$*" >&2; }

env_out=$(scripts/vscode-e2e-env.sh)
eval "$env_out"

pminfo -h 127.0.0.1 -f sample.long.one >/dev/null 2>&1 ||
	{ say "the test pmcd with the sample PMDA does not answer on 127.0.0.1: run make testenv"; exit 1; }

say "building the server and the .vsix"
CGO_ENABLED=0 $GO build -o bin/pcp-derive-lsp ./cmd/pcp-derive-lsp
(
	cd editors/vscode
	[ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund >/dev/null
	npm run --silent build >&2
	PCP_DERIVE_LSP_BIN=$root/bin/pcp-derive-lsp npm run --silent package >/dev/null
)
vsix=$(ls editors/vscode/pcp-derived-linux-x64-*.vsix)

out=$root/build/vscode-e2e
rm -rf "$out"
mkdir -p "$out"

NODE_PATH=$E2E_NODE_PATH \
	CODE_SERVER=$CODE_SERVER CHROMIUM=$CHROMIUM VSIX=$root/$vsix \
	PCP_DERIVE_LSP_BIN=$root/bin/pcp-derive-lsp E2E_OUT=$out \
	"$NODE24" editors/vscode/test/e2e/vscode.e2e.js

if [ "${UPDATE_SCREENSHOTS:-}" = 1 ]; then
	mkdir -p docs/images
	for s in problems hover completion inlay-hints; do
		cp "$out/vscode-$s.png" "docs/images/vscode-$s.png"
	done
	say "copied the screenshots to docs/images/"
fi
