#!/usr/bin/env bash
# Builds a release into dist/: the server for linux, darwin and windows on
# amd64 and arm64 (static, no cgo), each in an archive (tar.gz; zip for
# windows) with the README and LICENSE, a .vsix per VS Code platform with
# that server inside plus a universal .vsix that finds the server on PATH,
# and SHA256SUMS over all of them.
#
#   scripts/release.sh [VERSION]     (default: git describe --tags, else 0.0.0-dev)
#
# Needs Go and the extension's npm packages (make vscode-test installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

version=${1:-$(git describe --tags --match 'v*' 2>/dev/null | sed 's/^v//' || true)}
version=${version:-0.0.0-dev}
commit=$(git rev-parse --short=12 HEAD)
pkg=github.com/pcp-derive-lsp/pcp-derive-lsp/internal/cli
ldflags="-s -w -X $pkg.Version=$version -X $pkg.Commit=$commit"
dist=dist
rm -rf "$dist"
mkdir -p "$dist"

say() { printf 'release: %s\n' "$*" >&2; }

# GOOS/GOARCH and the VS Code target of each build.
targets="linux/amd64:linux-x64 linux/arm64:linux-arm64 darwin/amd64:darwin-x64 darwin/arm64:darwin-arm64 windows/amd64:win32-x64 windows/arm64:win32-arm64"

if [ ! -d editors/vscode/node_modules ]; then
	(cd editors/vscode && npm ci --no-audit --no-fund >/dev/null)
fi
(cd editors/vscode && npm run build >/dev/null)

for t in $targets; do
	goos=${t%%/*}
	rest=${t#*/}
	goarch=${rest%%:*}
	vstarget=${rest#*:}
	name="pcp-derive-lsp-$version-$goos-$goarch"
	exe=pcp-derive-lsp
	[ "$goos" = windows ] && exe=pcp-derive-lsp.exe
	stage="$dist/$name"
	mkdir -p "$stage"
	say "building $goos/$goarch"
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -ldflags "$ldflags" -o "$stage/$exe" ./cmd/pcp-derive-lsp
	cp README.md LICENSE CHANGELOG.md "$stage/"
	if [ "$goos" = windows ]; then
		(cd "$dist" && zip -qr "$name.zip" "$name")
	else
		tar -C "$dist" -czf "$dist/$name.tar.gz" "$name"
	fi
	say "packaging the VS Code extension for $vstarget"
	(cd editors/vscode && PCP_DERIVE_LSP_TARGET=$vstarget PCP_DERIVE_LSP_BIN="$PWD/../../$stage/$exe" \
		PCP_DERIVE_LSP_OUT="$PWD/../../$dist" node scripts/package.mjs >/dev/null)
	rm -rf "$stage"
done
say "packaging the universal VS Code extension"
(cd editors/vscode && PCP_DERIVE_LSP_TARGET=universal PCP_DERIVE_LSP_OUT="$PWD/../../$dist" node scripts/package.mjs >/dev/null)
rm -rf editors/vscode/server

(cd "$dist" && sha256sum -- * >SHA256SUMS)
say "version $version (commit $commit):"
ls -l "$dist" | awk 'NR > 1 { printf "  %10d  %s\n", $5, $9 }' >&2
