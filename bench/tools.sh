#!/usr/bin/env bash
# pmrep, pcp-dstat and pcp-htop files (issue #38): pcp-derive-lsp check of
# every config this machine's PCP (6.0.3) ships for pmrep and pcp-dstat —
# /etc/pcp/pmrep/*.conf, /etc/pcp/dstat/* — and the sid chroot's (7.2.2)
# for pcp-htop, against the test pmcd, against running each tool itself on
# each section it would have to run to find the same problems, in the
# same run: pmrep -c FILE :SET for every metricset, pcp-dstat --PLUGIN for
# every plugin, pcp-htop once over all its files (it reads them all at
# start; 7.2.2's from the sid chroot, the first with -n, as 6.0.3's runs
# until stopped). check is timed whole, best of three; the tools'
# side once, the sum of its runs. Needs scripts/pcp-testenv.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/pcp-derive-lsp" ./cmd/pcp-derive-lsp
sid=${PCP_RELEASES_DIR:-/var/cache/pcp-derive-lsp/releases}/sid
py=/usr/bin/python3 # the one with Debian's python3-pcp

now() { date +%s%N; }
secs() { awk -v t="$1" 'BEGIN { printf "%.3f", t / 1e9 }'; }

# best N CMD...: the shortest of N timed runs of CMD, in nanoseconds.
best() {
	local n=$1 i t0 t b=
	shift
	for ((i = 0; i < n; i++)); do
		t0=$(now)
		"$@" >/dev/null 2>&1 || true
		t=$(($(now) - t0))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	echo "$b"
}

sets=0 plugins=0
tools() {
	local f s
	for f in /etc/pcp/pmrep/*.conf; do
		for s in $(grep -o '^\[[^]]*\]' "$f" | tr -d '[]' | grep -vx 'options\|global'); do
			PCP_DERIVED_CONFIG= timeout 30 "$py" /usr/bin/pmrep -h 127.0.0.1 -c "$f" -s 1 -t 0.01 ":$s" || true
		done
	done
	for s in $(cat /etc/pcp/dstat/* | grep -o '^\[[^]]*\]' | tr -d '[]' | sort -u); do
		timeout 30 "$py" /usr/lib/pcp/bin/pcp-dstat "--$s" 1 0 || true
	done
	TERM=xterm timeout 30 script -qec "chroot $sid /usr/lib/pcp/bin/pcp-htop --host=127.0.0.1 -n 1" /dev/null </dev/null || true
}
for f in /etc/pcp/pmrep/*.conf; do sets=$((sets + $(grep -o '^\[[^]]*\]' "$f" | tr -d '[]' | grep -cvx 'options\|global' || true))); done
plugins=$(cat /etc/pcp/dstat/* | grep -o '^\[[^]]*\]' | sort -u | wc -l)
htopfiles=$(find "$sid/usr/share/pcp/htop" -type f | wc -l)

# check: this machine's pmrep and dstat files as 6.0.3 (pmcd's release),
# the sid chroot's htop files as 7.2.2, whose pcp-htop runs.
check() {
	"$dir/pcp-derive-lsp" check --host 127.0.0.1 --format json /etc/pcp/pmrep /etc/pcp/dstat || true
	"$dir/pcp-derive-lsp" check --host 127.0.0.1 --pcp-version 7.2.2 --format json "$sid/usr/share/pcp/htop" || true
}
ours=$(best 3 check)
theirs=$(best 1 tools) # some 200 runs: one round is minutes, and steadier than one run
ratio=$(awk -v a="$theirs" -v b="$ours" 'BEGIN { printf "%.1f", a / b }')
printf "check of every pmrep and pcp-dstat config PCP 6.0.3 ships and 7.2.2's pcp-htop files (%d metricsets, %d plugins, %d htop files): %s s\n" "$sets" "$plugins" "$htopfiles" "$(secs "$ours")"
printf "the tools themselves on each (%d pmrep runs, %d pcp-dstat runs, 1 pcp-htop run):   %s s\n" "$sets" "$plugins" "$(secs "$theirs")"
printf "ratio (the tools' time / check's): %sx\n" "$ratio"
printf "RESULT tools_check_s %s s\nRESULT tools_run_s %s s\nRESULT tools_ratio %s x\n" "$(secs "$ours")" "$(secs "$theirs")" "$ratio"
