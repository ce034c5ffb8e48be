#!/usr/bin/env bash
# Brings up the real PCP our tests compare against: installs Debian's pcp
# (pmcd, libpcp, pminfo, pmlogger, python3-pcp) when missing, starts pmcd on
# loopback and installs the sample PMDA. Idempotent, and quick when all is
# already up. Needs root on Debian; touches nothing but this machine.
set -euo pipefail

say() { printf 'pcp-testenv: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# missing_packages prints the Debian packages whose commands or files are
# missing, so that only those are installed: apt is never asked to touch
# (or upgrade) what is already there.
missing_packages() {
	command -v pminfo >/dev/null 2>&1 && command -v pmlogger >/dev/null 2>&1 &&
		[ -x /usr/lib/pcp/bin/pmcd ] || echo pcp
	[ -f /usr/include/pcp/pmapi.h ] || echo libpcp3-dev
	[ -f /usr/include/pcp/pmda.h ] || echo libpcp-pmda3-dev
	/usr/bin/python3 -c 'from pcp import pmapi' >/dev/null 2>&1 || echo python3-pcp
	command -v bison >/dev/null 2>&1 || echo bison
	command -v nvim >/dev/null 2>&1 || echo neovim
	command -v xz >/dev/null 2>&1 || echo xz-utils
	command -v make >/dev/null 2>&1 || echo make
	command -v node >/dev/null 2>&1 || echo nodejs
	command -v npm >/dev/null 2>&1 || echo npm
	command -v debootstrap >/dev/null 2>&1 || echo debootstrap # the release and editor chroots
	return 0
}

missing=$(missing_packages | tr '\n' ' ')
if [ -n "${missing// /}" ]; then
	[ "$(id -u)" = 0 ] || die "missing packages and we are not root: apt-get install $missing"
	say "installing what is missing: $missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 || die "apt-get update failed"
	# pcp's postinst calls systemctl, which fails without systemd: apt then
	# exits non-zero although every binary is installed. Judge by the files.
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-upgrade $missing >&2 || true
	still=$(missing_packages | tr '\n' ' ')
	[ -z "${still// /}" ] || die "still missing after apt-get install: $still (see the apt output above)"
fi
say "PCP installed: $(pminfo --version 2>&1 | head -1)"

pmcd_up() { pminfo -h 127.0.0.1 pmcd.version >/dev/null 2>&1; }

if ! pmcd_up; then
	# A pmcd that died (6.0.3 can abort with "double free" while it
	# restarts a crashed PMDA) leaves its pid file and unix socket behind:
	# the init script then refuses to start (it also takes the fleet's
	# chroot pmcds for this one), or starts without the socket.
	if [ -f /run/pcp/pmcd.pid ] && ! kill -0 "$(cat /run/pcp/pmcd.pid)" 2>/dev/null; then
		say "removing the pid file and socket of a pmcd that is gone"
		rm -f /run/pcp/pmcd.pid /run/pcp/pmcd.socket
	fi
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
pminfo -h unix:/run/pcp/pmcd.socket pmcd.version >/dev/null 2>&1 ||
	die "pmcd does not answer on its unix socket /run/pcp/pmcd.socket (a stale socket: remove it and /run/pcp/pmcd.pid, then run this again)"
say "unix socket /run/pcp/pmcd.socket present"
