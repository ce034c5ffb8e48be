#!/usr/bin/env bash
# Makes, once, the chroot our terminal-editor tests run newer editors in:
# Debian sid's Neovim (0.12), Emacs (30, eglot built in, emacs-nox) and
# Helix (hx), with tmux to drive Helix. Debian 12's own Neovim 0.7.2 is
# installed on the host by scripts/pcp-testenv.sh.
#
# Idempotent and cached outside the repo ($PCP_EDITORS_DIR, default
# /var/cache/pcp-derive-lsp/editors): quick when it exists. The chroot is
# built in sid.tmp and renamed when complete, so an interrupted run never
# leaves one that looks done. Only Debian packages are downloaded (from the
# archive apt uses here: no mirror is named, as in pcp-releases.sh). Needs
# root.
#
# The tests (editors/test, lsp/editors_test.go) mount /proc in it and
# bind-mount their work directory; the editors reach the test pmcd over TCP
# (127.0.0.1:44321: the chroot shares the host's network namespace).
set -euo pipefail

dir=${PCP_EDITORS_DIR:-/var/cache/pcp-derive-lsp/editors}
root=$dir/sid
packages=neovim,emacs-nox,hx,netbase,tmux

say() { printf 'editors-env: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

ready() {
	[ -f "$root/.pcp-derive-lsp-ready" ] && chroot "$root" sh -c 'command -v nvim && command -v emacs && command -v hx && command -v tmux' >/dev/null
}

if ! ready; then
	[ "$(id -u)" = 0 ] || die "making the editors chroot needs root"
	command -v debootstrap >/dev/null 2>&1 || die "debootstrap is missing: run scripts/pcp-testenv.sh (make testenv), which installs what the tests need"
	mkdir -p "$dir"
	# A mount left by a killed test run must not be deleted through.
	for m in "$root.tmp/proc" "$root/proc"; do
		mountpoint -q "$m" 2>/dev/null && umount -l "$m"
	done
	if grep -q " $root" /proc/mounts; then
		die "something is still mounted under $root: $(grep " $root" /proc/mounts | cut -d' ' -f2 | tr '\n' ' ')"
	fi
	rm -rf "${root:?}" "${root:?}.tmp"
	say "making the sid chroot ($packages); log in $dir/sid.log"
	start=$SECONDS
	debootstrap --variant=minbase --include="$packages" sid "$root.tmp" >"$dir/sid.log" 2>&1 ||
		{ tail -n 20 "$dir/sid.log" >&2; die "debootstrap failed: see $dir/sid.log"; }
	# Where the tests bind-mount their work directory.
	mkdir -p "$root.tmp/work"
	touch "$root.tmp/.pcp-derive-lsp-ready"
	mv "$root.tmp" "$root"
	say "made in $((SECONDS - start)) s"
	ready || die "the sid chroot lacks an editor: see $dir/sid.log"
fi

v() { chroot "$root" "$@" 2>&1 | head -1; }
say "sid chroot ready at $root: $(v nvim --version), $(v emacs --version), $(v hx --version), $(v tmux -V)"
