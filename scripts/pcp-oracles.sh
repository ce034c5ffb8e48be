#!/usr/bin/env bash
# Unpacks, once, the upstream builds of the PCP releases no Debian suite
# ships (5.3.7 for RHEL 8, 6.2.0 for Ubuntu 24.04, 7.0.2 for Ubuntu 26.04)
# that our tests compare against: their libpcp, pminfo and pmval, from
# shared/oracles beside the clone (the first shared/oracles in the clone's
# parent directories, or $PCP_SHARED_ORACLES). Their own pcp-release.sh
# unpacks each into $PCP_ORACLE_CACHE (default
# /var/cache/pcp-derive-lsp/oracles), where internal/oracle finds them.
#
# Idempotent: quick when each is unpacked and answers with its release.
# Missing shared/oracles is an error, never a skip: tests need them.
set -euo pipefail

releases=(5.3.7 6.2.0 7.0.2)

say() { printf 'pcp-oracles: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

find_shared() {
	if [ -n "${PCP_SHARED_ORACLES:-}" ]; then
		printf '%s\n' "$PCP_SHARED_ORACLES"
		return
	fi
	local d
	d=$(cd "$(dirname "$0")/.." && pwd)
	while [ "$d" != / ]; do
		d=$(dirname "$d")
		if [ -f "$d/shared/oracles/pcp-release.sh" ]; then
			printf '%s\n' "$d/shared/oracles"
			return
		fi
	done
	return 1
}

shared=$(find_shared) || die "no shared/oracles/pcp-release.sh beside the clone or above it (set PCP_SHARED_ORACLES): the tests compare with PCP ${releases[*]} from there"
for v in "${releases[@]}"; do
	[ -f "$shared/pcp-$v.tar.xz" ] || die "$shared/pcp-$v.tar.xz is missing"
	# The first call unpacks (into a temporary directory, renamed when done).
	got=$(sh "$shared/pcp-release.sh" "$v" --version 2>&1) || die "PCP $v does not run: $got"
	case $got in
	*"version $v"*) say "PCP $v ready at ${PCP_ORACLE_CACHE:-/var/cache/pcp-derive-lsp/oracles}/pcp-$v" ;;
	*) die "PCP $v answers: $got" ;;
	esac
done
