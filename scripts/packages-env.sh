#!/usr/bin/env bash
# Makes, once, what the package tests (internal/pkgbuild, TestPackagesInstall)
# install the release's .deb and .rpm into:
#
#   - a clean Debian 12 minbase chroot (debootstrap --variant=minbase
#     bookworm) with man-db, zsh and fish, so the test reads the page with
#     man and loads the completions in the shells that use them, at
#     $PCP_PACKAGES_DIR/bookworm (default
#     /var/cache/pcp-derive-lsp/packages). The test never installs into it:
#     it copies it to a throwaway directory (cp -a: no copy-on-write here)
#     and runs dpkg -i / dpkg -r in the copy with chroot.
#   - Debian's rpm package on the host, for rpm --root DIR.
#
# Idempotent: quick when both exist. The chroot is built in bookworm.tmp
# and renamed when complete, so an interrupted run never leaves one that
# looks done. Needs root.
set -euo pipefail

dir=${PCP_PACKAGES_DIR:-/var/cache/pcp-derive-lsp/packages}
root=$dir/bookworm
packages=man-db,zsh,fish

say() { printf 'packages-env: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

if ! command -v rpm >/dev/null 2>&1; then
	[ "$(id -u)" = 0 ] || die "installing rpm needs root: apt-get install rpm"
	say "installing rpm"
	export DEBIAN_FRONTEND=noninteractive
	# make testenv runs this beside other set-up that may use apt: one at a time.
	flock /run/lock/pcp-derive-lsp-apt apt-get update -qq >&2 || die "apt-get update failed"
	# apt exits non-zero when an unrelated half-configured package (pcp's
	# postinst calls systemctl, see pcp-testenv.sh) is retried: judge by
	# the command.
	flock /run/lock/pcp-derive-lsp-apt apt-get install -y -qq --no-upgrade rpm >&2 || true
	command -v rpm >/dev/null 2>&1 || die "apt-get install rpm did not install rpm (see its output above)"
fi
say "$(rpm --version)"

ready() {
	[ -f "$root/.pcp-derive-lsp-ready" ] && chroot "$root" sh -c 'dpkg --version && command -v man && command -v zsh && command -v fish' >/dev/null 2>&1
}

if ! ready; then
	[ "$(id -u)" = 0 ] || die "making the packages chroot needs root"
	command -v debootstrap >/dev/null 2>&1 || die "debootstrap is missing: run scripts/pcp-testenv.sh (make testenv), which installs what the tests need"
	mkdir -p "$dir"
	rm -rf "${root:?}" "${root:?}.tmp"
	say "making the bookworm minbase chroot ($packages); log in $dir/bookworm.log"
	start=$SECONDS
	debootstrap --variant=minbase --include="$packages" bookworm "$root.tmp" >"$dir/bookworm.log" 2>&1 ||
		{ tail -n 20 "$dir/bookworm.log" >&2; die "debootstrap failed: see $dir/bookworm.log"; }
	# apt's caches make every throwaway copy slower and are never used.
	chroot "$root.tmp" apt-get clean
	rm -rf "$root.tmp/var/lib/apt/lists/"*
	touch "$root.tmp/.pcp-derive-lsp-ready"
	mv "$root.tmp" "$root"
	say "made in $((SECONDS - start)) s"
	ready || die "the bookworm chroot lacks dpkg, man, zsh or fish: see $dir/bookworm.log"
fi
say "bookworm minbase chroot ready at $root ($(du -sh "$root" | cut -f1))"
