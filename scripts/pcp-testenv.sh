#!/usr/bin/env bash
# Brings up the real PCP our tests compare against: installs Debian's pcp
# (pmcd, libpcp, pminfo, pmlogger, python3-pcp) when missing, starts pmcd on
# loopback and installs the sample PMDA. Idempotent, and quick when all is
# already up. Needs root on Debian; touches nothing but this machine.
set -euo pipefail

say() { printf 'pcp-testenv: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

have_pcp() {
	command -v pminfo >/dev/null 2>&1 &&
		command -v pmlogger >/dev/null 2>&1 &&
		[ -x /usr/lib/pcp/bin/pmcd ] &&
		[ -f /usr/include/pcp/pmda.h ] &&
		/usr/bin/python3 -c 'from pcp import pmapi' >/dev/null 2>&1 &&
		command -v bison >/dev/null 2>&1 &&
		command -v nvim >/dev/null 2>&1
}

if ! have_pcp; then
	[ "$(id -u)" = 0 ] || die "PCP is not installed and we are not root: install pcp libpcp3-dev libpcp-pmda3-dev python3-pcp"
	say "installing pcp, libpcp3-dev, libpcp-pmda3-dev, python3-pcp, bison, neovim"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 || die "apt-get update failed"
	# pcp's postinst calls systemctl, which fails without systemd: apt then
	# exits non-zero although every binary is installed. Judge by the files.
	apt-get install -y -qq pcp libpcp3-dev libpcp-pmda3-dev python3-pcp bison neovim xz-utils make >&2 || true
	have_pcp || die "PCP is still missing after apt-get install (see the apt output above)"
fi
say "PCP installed: $(pminfo --version 2>&1 | head -1)"

pmcd_up() { pminfo -h 127.0.0.1 pmcd.version >/dev/null 2>&1; }

if ! pmcd_up; then
	say "starting pmcd"
	/etc/init.d/pmcd start >&2 || true
	for _ in $(seq 60); do
		pmcd_up && break
		sleep 0.5
	done
	pmcd_up || die "pmcd does not answer on 127.0.0.1:44321"
fi
say "pmcd $(pminfo -h 127.0.0.1 -f pmcd.version | sed -n 's/.*value "\(.*\)"/\1/p') answers on 127.0.0.1"

if ! pminfo -h 127.0.0.1 -f sample.long.one >/dev/null 2>&1; then
	say "installing the sample PMDA"
	(cd /var/lib/pcp/pmdas/sample && ./Install </dev/null >&2) || die "sample PMDA install failed"
	for _ in $(seq 60); do
		pminfo -h 127.0.0.1 -f sample.long.one >/dev/null 2>&1 && break
		sleep 0.5
	done
	pminfo -h 127.0.0.1 -f sample.long.one >/dev/null 2>&1 || die "sample metrics do not answer"
fi
say "sample PMDA answers ($(pminfo -h 127.0.0.1 sample | wc -l) sample metrics)"

[ -S /run/pcp/pmcd.socket ] || die "pmcd's unix socket /run/pcp/pmcd.socket is missing"
say "unix socket /run/pcp/pmcd.socket present"
