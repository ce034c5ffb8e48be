#!/usr/bin/env bash
# Builds a release of pcp-derive-lsp into dist/:
#
#   pcp-derive-lsp-VERSION-OS-ARCH.tar.gz   linux and darwin, amd64 and arm64
#   pcp-derive-lsp-VERSION-windows-ARCH.zip windows, amd64 and arm64
#   pcp-derived-TARGET-VERSION.vsix         the VS Code extension with that
#                                           platform's server inside
#   pcp-derived-VERSION.vsix                the extension without a server (it
#                                           runs pcp-derive-lsp from PATH)
#   pcp-derive-lsp_VERSION-1_ARCH.deb       linux amd64 and arm64 packages:
#   pcp-derive-lsp-VERSION-1.ARCH.rpm       the binary in /usr/bin, the man page
#                                           pcp-derive-lsp(1) and bash, zsh and
#                                           fish completions generated from the
#                                           commands' help (internal/docgen),
#                                           the docs, example configs and the
#                                           licence (internal/pkgbuild, nfpm)
#   pcp-derive-lsp-VERSION-oci.tar          the container image: an OCI image layout
#                                           (oci-archive) of the linux binaries on a
#                                           distroless-style base, tagged VERSION
#                                           (internal/ociimage, no Docker daemon)
#   SHA256SUMS                              of all of the above
#
# Each archive holds one directory of the same name with the binary,
# LICENSE, README.md and CHANGELOG.md. Binaries are static (CGO_ENABLED=0),
# built with -trimpath, and print the version and commit given here:
# "pcp-derive-lsp --version" says "pcp-derive-lsp 0.2.0 (commit ..., go1.x os/arch)".
#
# usage: scripts/release.sh [--dist DIR] [--targets "OS/ARCH ..."] [--server-only] [VERSION]
#
#   VERSION        0.2.0 or v0.2.0; default: git describe --tags of HEAD
#                  (v0.2.0 on the tag, 0.2.0-3-gabc1234 past it)
#   --dist DIR     output directory (default: dist/ in the repository); files
#                  of an earlier run there are replaced, nothing else is touched
#   --targets LIST Go platforms to build (default: all six)
#   --server-only  archives, packages and SHA256SUMS only, no .vsix
#
# Environment: COMMIT overrides the commit recorded in the binaries (default:
# git rev-parse --short=12 HEAD, with -dirty when tracked files have
# changes); GO names the go command. The .vsix files need node and npm and
# the extension's npm packages (installed with npm ci when missing), and
# VERSION must be editors/vscode/package.json's version: VS Code versions
# are plain X.Y.Z.
set -euo pipefail

die() {
	echo "release: $*" >&2
	exit 1
}
note() { echo "release: $*" >&2; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dist=$repo/dist
targets="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"
vsix=1
version=""
while [ $# -gt 0 ]; do
	case $1 in
	--dist | --targets)
		[ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value"
		if [ "$1" = --dist ]; then dist=$2; else targets=$2; fi
		shift 2
		;;
	--server-only | --no-vsix)
		vsix=0
		shift
		;;
	-h | --help)
		sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	-*) die "unknown option $1 (see --help)" ;;
	*)
		[ -z "$version" ] || die "one VERSION only, got $version and $1"
		version=$1
		shift
		;;
	esac
done

export PATH="$PATH:/usr/local/go/bin"
GO=${GO:-go}
command -v "$GO" >/dev/null || die "no go command ($GO): install Go or set GO"
cd "$repo"

# The version: the argument, else the tag git describes.
if [ -z "$version" ]; then
	version=$(git describe --tags --match 'v[0-9]*' 2>/dev/null) ||
		die "no release tag (v*) is reachable from HEAD: give the version, e.g. scripts/release.sh 0.2.0 or make release VERSION=0.2.0"
fi
version=${version#v}
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$ ]] ||
	die "version \"$version\" is not X.Y.Z[-PRE][+BUILD]"

# A version given by hand that has a tag elsewhere is most likely a mistake.
if tagged=$(git rev-parse -q --verify "refs/tags/v$version^{commit}" 2>/dev/null) && [ "$tagged" != "$(git rev-parse HEAD)" ]; then
	note "warning: tag v$version is commit ${tagged:0:12}, not HEAD: these files are not what that tag holds"
fi

# The commit, marked dirty when tracked files differ from it.
if [ -z "${COMMIT:-}" ]; then
	COMMIT=$(git rev-parse --short=12 HEAD 2>/dev/null) || die "not a git checkout: set COMMIT"
	if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
		COMMIT=$COMMIT-dirty
		note "warning: tracked files have uncommitted changes: commit recorded as $COMMIT"
	fi
fi
[[ $COMMIT =~ ^[0-9A-Za-z._-]+$ ]] || die "commit \"$COMMIT\" has characters other than letters, digits, . _ -"

# Archive timestamps: the commit's time (reproducible archives).
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

# The .vsix target of a Go platform, empty for platforms VS Code has none for.
vscode_target() {
	case $1 in
	linux/amd64) echo linux-x64 ;;
	linux/arm64) echo linux-arm64 ;;
	darwin/amd64) echo darwin-x64 ;;
	darwin/arm64) echo darwin-arm64 ;;
	windows/amd64) echo win32-x64 ;;
	windows/arm64) echo win32-arm64 ;;
	esac
}

ext=$repo/editors/vscode
if [ "$vsix" = 1 ]; then
	command -v node >/dev/null || die "the .vsix files need node (or use --server-only)"
	command -v npm >/dev/null || die "the .vsix files need npm (or use --server-only)"
	ext_version=$(node -p "require('$ext/package.json').version")
	[ "$ext_version" = "$version" ] ||
		die "editors/vscode/package.json has version $ext_version, the release is $version: set the extension's version (and its CHANGELOG.md), or use --server-only"
fi
for t in $targets; do
	[[ $t =~ ^[a-z0-9]+/[a-z0-9]+$ ]] || die "target \"$t\" is not OS/ARCH"
	[ "$vsix" = 0 ] || [ -n "$(vscode_target "$t")" ] || note "no VS Code target for $t: archive only"
done
command -v zip >/dev/null || [[ " $targets " != *" windows/"* ]] || die "the windows archives need zip"
if command -v sha256sum >/dev/null; then
	sha256=(sha256sum)
elif command -v shasum >/dev/null; then
	sha256=(shasum -a 256)
else
	die "need sha256sum or shasum"
fi
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
	tarflags=(--sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch")
else
	tarflags=(--uid 0 --gid 0)
fi

# Replace what an earlier run made, and only that.
mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
stage=$dist/.stage
rm -rf "$stage"
rm -f "$dist"/pcp-derive-lsp-*.tar.gz "$dist"/pcp-derive-lsp-*.zip "$dist"/pcp-derived-*.vsix "$dist"/SHA256SUMS \
	"$dist"/pcp-derive-lsp_*.deb "$dist"/pcp-derive-lsp-*.rpm "$dist"/pcp-derive-lsp-*-oci.tar
out=$stage/out # moved into $dist once everything is built
mkdir -p "$out"
trap 'rm -rf "$stage"' EXIT

pkg=github.com/pcp-derive-lsp/pcp-derive-lsp/internal/cli
ldflags="-s -w -X $pkg.Version=$version -X $pkg.Commit=$COMMIT"
note "pcp-derive-lsp $version, commit $COMMIT, $($GO env GOVERSION)"

# The man page and completions the packages carry, generated from the
# commands' help (the same for every arch).
gen=$stage/gen
if [[ " $targets " == *" linux/"* ]]; then
	note "generating the man page and shell completions"
	"$GO" run ./internal/docgen/gendocs -o "$gen" -version "$version" -date "$(date -u -d "@$epoch" +%Y-%m-%d 2>/dev/null || date -u -r "$epoch" +%Y-%m-%d)" ||
		die "generating the man page and completions failed"
	"$GO" build -o "$stage/mkpkg" ./internal/pkgbuild/mkpkg || die "building internal/pkgbuild/mkpkg failed"
	"$GO" build -o "$stage/mkimage" ./internal/ociimage/mkimage || die "building internal/ociimage/mkimage failed"
fi

declare -A binaries=()
image_bins=() # -bin ARCH=PATH for the container image
for t in $targets; do
	goos=${t%/*} goarch=${t#*/}
	name=pcp-derive-lsp-$version-$goos-$goarch
	exe=pcp-derive-lsp
	[ "$goos" != windows ] || exe=pcp-derive-lsp.exe
	dir=$stage/$name
	mkdir -p "$dir"
	note "building $t"
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch "$GO" build -trimpath -ldflags "$ldflags" -o "$dir/$exe" ./cmd/pcp-derive-lsp ||
		die "go build for $t failed"
	install -m 0644 LICENSE README.md CHANGELOG.md "$dir/"
	chmod 0755 "$dir/$exe"
	find "$dir" -exec touch -h -d "@$epoch" {} +
	if [ "$goos" = windows ]; then
		(cd "$stage" && zip -q -X -r "$out/$name.zip" "$name")
	else
		(cd "$stage" && tar "${tarflags[@]}" -cf - "$name" | gzip -9n >"$out/$name.tar.gz")
	fi
	binaries[$t]=$dir/$exe
	if [ "$goos" = linux ]; then
		note "packaging the .deb and .rpm for $goarch"
		"$stage/mkpkg" -arch "$goarch" -version "$version" -bin "$dir/$exe" \
			-gen "$gen" -repo "$repo" -epoch "$epoch" -o "$out" >/dev/null || die "packaging for $t failed"
		image_bins+=(-bin "$goarch=$dir/$exe")
	fi
done

if [ ${#image_bins[@]} -gt 0 ]; then
	note "writing the container image (OCI layout)"
	"$stage/mkimage" -o "$stage/oci" -version "$version" -revision "$COMMIT" -epoch "$epoch" "${image_bins[@]}" ||
		die "writing the container image failed"
	find "$stage/oci" -exec touch -h -d "@$epoch" {} +
	(cd "$stage/oci" && tar "${tarflags[@]}" -cf "$out/pcp-derive-lsp-$version-oci.tar" oci-layout index.json blobs)
fi

if [ "$vsix" = 1 ]; then
	if [ ! -d "$ext/node_modules/@vscode/vsce" ]; then
		note "installing the extension's npm packages (npm ci)"
		(cd "$ext" && npm ci --no-audit --no-fund >/dev/null)
	fi
	# vsce builds the extension (vscode:prepublish) for every package; a
	# failing build stops here with its own messages.
	(cd "$ext" && npm run build >/dev/null) || die "the extension does not build (npm run build in editors/vscode)"
	for t in $targets; do
		vt=$(vscode_target "$t")
		[ -n "$vt" ] || continue
		note "packaging the extension for $vt"
		(cd "$ext" && PCP_DERIVE_LSP_TARGET=$vt PCP_DERIVE_LSP_BIN=${binaries[$t]} PCP_DERIVE_LSP_OUT=$out node scripts/package.mjs >/dev/null)
	done
	note "packaging the universal extension (server from PATH)"
	(cd "$ext" && PCP_DERIVE_LSP_TARGET=universal PCP_DERIVE_LSP_OUT=$out node scripts/package.mjs >/dev/null)
	rm -rf "$ext/server"
fi

mv "$out"/* "$dist"/
(
	cd "$dist"
	shopt -s nullglob
	files=(pcp-derive-lsp-*.tar.gz pcp-derive-lsp-*.zip pcp-derive-lsp_*.deb pcp-derive-lsp-*.rpm pcp-derive-lsp-*-oci.tar pcp-derived-*.vsix)
	"${sha256[@]}" "${files[@]}" >SHA256SUMS
	echo "release $version (commit $COMMIT) in $dist:"
	for f in "${files[@]}" SHA256SUMS; do
		printf '  %10d  %s\n' "$(wc -c <"$f")" "$f"
	done
)
