#!/usr/bin/env bash
# Brings up a fleet of real pmcds of different PCP releases on this one
# machine, for the fleet tests (issue #16): in each release chroot of
# scripts/pcp-releases.sh, that release's own pmcd with the pmcd, linux,
# sample and sampledso PMDAs, listening on loopback on a port of its own:
#
#   bullseye  PCP 5.2.6  127.0.0.1:44331
#   trixie    PCP 6.3.8  127.0.0.1:44332
#   sid       PCP 7.2.2  127.0.0.1:44333
#
# (this machine's own pmcd, 6.0.3 on 44321, is the fourth host; the tests
# start their own pmproxy in front). Idempotent and quick when all answer.
# Needs root: it mounts /proc in each chroot and runs pmcd there as root.
# Everything a chroot's pmcd uses lives in its /var/lib/pcp-derive-lsp-fleet
# (config, namespace, log, pid); stop one with
#   kill "$(cat $PCP_RELEASES_DIR/SUITE/var/lib/pcp-derive-lsp-fleet/pmcd.pid)"
set -euo pipefail

dir=${PCP_RELEASES_DIR:-/var/cache/pcp-derive-lsp/releases}
work=/var/lib/pcp-derive-lsp-fleet
declare -A port=([bullseye]=44331 [trixie]=44332 [sid]=44333)
declare -A want=([bullseye]=5.2.6 [trixie]=6.3.8 [sid]=7.2.2)

say() { printf 'fleet-env: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# up SUITE: its pmcd answers with its release and the sample metrics.
up() {
	local out
	out=$(pminfo -h "127.0.0.1:${port[$1]}" -f pmcd.version sample.long.one 2>/dev/null) || return 1
	grep -q "\"${want[$1]}\"" <<<"$out" && grep -q 'value 1$' <<<"$out"
}

start() {
	local s=$1 root=$dir/$1
	[ -x "$root/usr/lib/pcp/bin/pmcd" ] || die "$root has no pmcd: run scripts/pcp-releases.sh first"
	[ "$(id -u)" = 0 ] || die "starting the $s pmcd needs root"
	mkdir -p "$root$work" "$root/run/pcp" "$root/proc"
	# The linux PMDA reads /proc; a chroot's own mount, gone with a reboot.
	mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
	# pmcd resolves localhost; bullseye's minbase chroot has no /etc/hosts.
	[ -f "$root/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost\n' >"$root/etc/hosts"
	cat >"$root$work/pmcd.conf" <<-'EOF'
		# pmcd for the fleet tests (scripts/fleet-env.sh)
		pmcd	2	dso	pmcd_init	/var/lib/pcp/pmdas/pmcd/pmda_pmcd.so
		linux	60	pipe	binary		/var/lib/pcp/pmdas/linux/pmdalinux
		sample	29	pipe	binary		/var/lib/pcp/pmdas/sample/pmdasample -d 29
		sampledso	30	dso	sample_init	/var/lib/pcp/pmdas/sample/pmda_sample.so
		[access]
		disallow ".*" : store;
		allow "local:*" : all;
	EOF
	# The namespace: what the PMDAs' Install scripts would merge.
	chroot "$root" sh -c 'cd /var/lib/pcp/pmns && { [ -f stdpmid ] || ./Make.stdpmid; }' >&2
	chroot "$root" sh -c "cd /var/lib/pcp/pmdas/sample && /usr/lib/pcp/bin/pmnsmerge -f /var/lib/pcp/pmns/root_pmcd /var/lib/pcp/pmns/root_linux ./root $work/root" >&2 ||
		die "$s: merging the namespace failed"
	# The sample PMDA's help text, as its Install builds it.
	if [ ! -f "$root/var/lib/pcp/pmdas/sample/help.dir" ]; then
		chroot "$root" sh -c "cd /var/lib/pcp/pmdas/sample && /usr/lib/pcp/bin/newhelp -n $work/root -v 2 -o help <help" 2>/dev/null || true
	fi
	if [ -f "$root$work/pmcd.pid" ]; then
		old=$(cat "$root$work/pmcd.pid")
		# Only the pmcd this script started (its command line names our config).
		if tr '\0' ' ' <"/proc/$old/cmdline" 2>/dev/null | grep -q "$work/pmcd.conf"; then
			kill "$old" 2>/dev/null || true
			sleep 1
		fi
	fi
	say "starting the $s pmcd (PCP ${want[$s]}) on 127.0.0.1:${port[$s]}"
	setsid chroot "$root" env PCP_DERIVED_CONFIG= /usr/lib/pcp/bin/pmcd -f -A -i 127.0.0.1 -p "${port[$s]}" \
		-s "$work/pmcd.socket" -c "$work/pmcd.conf" -n "$work/root" -l "$work/pmcd.log" -U root \
		</dev/null >"$root$work/pmcd.out" 2>&1 &
	echo $! >"$root$work/pmcd.pid"
	for _ in $(seq 60); do
		up "$s" && return 0
		sleep 0.5
	done
	tail -n 20 "$root$work/pmcd.log" >&2 || true
	die "the $s pmcd does not answer on 127.0.0.1:${port[$s]}: see $root$work/pmcd.log"
}

for s in bullseye trixie sid; do
	up "$s" || start "$s"
	say "$s: PCP ${want[$s]} pmcd answers on 127.0.0.1:${port[$s]}"
done
