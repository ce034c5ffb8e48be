#!/usr/bin/env bash
# Makes, once, a chroot per PCP release our tests compare against besides
# this machine's own (Debian 12's 6.0.3): bullseye (5.2.6), trixie (6.3.8)
# and sid (7.2.2), each with Debian's pcp and python3-pcp. Derived metrics
# are registered, bound and computed in the client library, so a chroot's
# pminfo and python3-pcp against our pmcd on 127.0.0.1 are that release's
# libpcp verdict, metadata and values.
#
# From 7.x Debian ships pcp-htop and pcp-dstat as packages of their own:
# sid's chroot gets them too, at the version of its pcp (from the package
# lists debootstrap left, so a newer sid never upgrades the release).
#
# Idempotent and cached outside the repo ($PCP_RELEASES_DIR, default
# /var/cache/pcp-derive-lsp/releases): quick when all exist. A chroot is
# built in SUITE.tmp and renamed when complete, so an interrupted run never
# leaves one that looks done. Needs root and Debian's package archive.
set -euo pipefail

dir=${PCP_RELEASES_DIR:-/var/cache/pcp-derive-lsp/releases}
suites=(bullseye trixie sid)
declare -A want=([bullseye]=5.2.6 [trixie]=6.3.8 [sid]=7.2.2)

# Packages each release ships apart from pcp and python3-pcp, which the
# oracle tests of pcp-htop's and pcp-dstat's files run.
declare -A extra=([sid]="pcp-htop pcp-dstat")

say() { printf 'pcp-releases: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# ready SUITE: the chroot answers with its release's pminfo and python3-pcp.
ready() {
	local root=$dir/$1
	[ -x "$root/usr/bin/pminfo" ] || return 1
	chroot "$root" pminfo --version 2>&1 | grep -q "version ${want[$1]}" || return 1
	chroot "$root" python3 -c 'from pcp import pmapi' >/dev/null 2>&1
}

missing=()
for s in "${suites[@]}"; do
	ready "$s" || missing+=("$s")
done

if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "making chroots for ${missing[*]} needs root"
	command -v debootstrap >/dev/null 2>&1 || die "debootstrap is missing: run scripts/pcp-testenv.sh (make testenv), which installs what the tests need"
	mkdir -p "$dir"
	pids=()
	for s in "${missing[@]}"; do
		rm -rf "${dir:?}/$s" "${dir:?}/$s.tmp"
		say "making the $s chroot (PCP ${want[$s]}); log in $dir/$s.log"
		(debootstrap --variant=minbase --include=pcp,python3-pcp "$s" "$dir/$s.tmp" >"$dir/$s.log" 2>&1 &&
			mv "$dir/$s.tmp" "$dir/$s") &
		pids+=($!)
	done
	failed=0
	for p in "${pids[@]}"; do
		wait "$p" || failed=1
	done
	for s in "${missing[@]}"; do
		ready "$s" || { tail -n 20 "$dir/$s.log" >&2 || true; die "the $s chroot (PCP ${want[$s]}) is not usable: see $dir/$s.log"; }
	done
	[ "$failed" = 0 ] || die "debootstrap failed"
fi

# install_extras SUITE: the suite's extra packages, at its pcp's version.
install_extras() {
	local s=$1 root=$dir/$1 p version todo=()
	for p in ${extra[$s]:-}; do
		chroot "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || todo+=("$p")
	done
	[ ${#todo[@]} -gt 0 ] || return 0
	[ "$(id -u)" = 0 ] || die "installing ${todo[*]} into the $s chroot needs root"
	version=$(chroot "$root" dpkg-query -W -f='${Version}' pcp)
	say "installing ${todo[*]} $version into the $s chroot; log in $dir/$s.log"
	chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		"${todo[@]/%/=$version}" >>"$dir/$s.log" 2>&1 ||
		die "could not install ${todo[*]} $version into the $s chroot: see $dir/$s.log"
}

for s in "${suites[@]}"; do
	install_extras "$s"
	say "$s: PCP ${want[$s]} ready at $dir/$s"
done
