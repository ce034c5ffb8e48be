#!/usr/bin/env bash
# The language server's costs, with libpcp's in the same run for scale:
# didChange -> publishDiagnostics for 1,000-, 10,000- and 100,000-line files with
# a warm metadata cache, completion in a 100,000-name namespace (and the
# RSS with it loaded), against one libpcp metadata round trip
# (pmLookupName + pmLookupDesc of one metric on the test pmcd, python3-pcp).
# Needs scripts/pcp-testenv.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
. bench/lib/gotest.sh

rt_us=$(/usr/bin/python3 - <<'PY'
import os, time
os.environ["PCP_DERIVED_CONFIG"] = ""
from pcp import pmapi
import cpmapi as c
ctx = pmapi.pmContext(c.PM_CONTEXT_HOST, "127.0.0.1")
names = ["sample.long.one", "kernel.all.load", "disk.dev.read", "mem.util.used"]
n = 2000
t0 = time.perf_counter()
for i in range(n):
    pmid = ctx.pmLookupName([names[i % len(names)]])
    ctx.pmLookupDescs(pmid)
print("%.1f" % ((time.perf_counter() - t0) / n * 1e6))
PY
)
# The keystroke benchmarks (didChange to publishDiagnostics, as an LSP
# client sees it) at 1,000, 10,000 and 100,000 lines, reporting the
# server's peak RSS as MB-RSS; before they exist, the DidChange ones
# (no 10,000-line figure, no RSS: n/a in the table).
# (The list is read whole: grep -q would close the pipe early, and
# pipefail would take go test's SIGPIPE for a failure.)
list=$(bench_go_test ./lsp -list 'BenchmarkKeystroke')
if grep -q '^BenchmarkKeystroke' <<<"$list"; then
	# 200 keystrokes each: at 20, the 1,000-line mean was 0.46 ms in one
	# run and 0.64 ms in the next (a collection falls on one keystroke in
	# several, and the first keystrokes of a session cost more).
	# And 100,000 lines with 12,500 findings of one code, over the cap a
	# file lists (BenchmarkKeystroke100000LinesOverCap).
	# Three rounds in which the sizes take turns, and the best round of
	# each size (as bench/check.sh does): the same build gave 0.41 and
	# 0.76 ms at 100,000 lines in consecutive runs on this machine, as
	# its other tenants came and went, and a table of one run measured
	# them as much as the server.
	# (The over-cap keystroke is measured once: it is not a ratio.)
	rounds=$(bench_go_test ./lsp -run '^$' -bench 'Keystroke100000LinesOverCap$' -benchtime 200x -benchmem)$'\n'
	# And the same with 2% of the lines in error (issue 39), 1,000 and
	# 100,000 lines in the same rounds.
	for round in 1 2 3; do
		rounds+=$(bench_go_test ./lsp -run '^$' -bench 'Keystroke(1000|10000|100000)Lines(Errors)?$' -benchtime 200x -benchmem)$'\n'
		# And Enter (a line added, then joined again) in the same
		# document: every definition and finding after it moves.
		rounds+=$(bench_go_test ./lsp -run '^$' -bench 'Enter(1000|100000)LinesErrors$' -benchtime 100x -benchmem)$'\n'
	done
	out=$(awk '
		function metric(name,   i) { for (i = 1; i <= NF; i++) if ($(i) == name) return $(i-1); return "" }
		/^Benchmark(Keystroke|Enter)/ {
			a = metric("ns-arrival") + 0
			if (!($1 in best) || a < best[$1]) { best[$1] = a; line[$1] = $0 }
			if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
			# The stand-in'"'"'s best round, on its own: taken from the
			# server'"'"'s best, the server'"'"'s share above it leaned low.
			if ((f = metric("ns-floor")) != "" && (!($1 in floor) || f + 0 < floor[$1])) floor[$1] = f + 0
		}
		END {
			for (i = 1; i <= n; i++) {
				$0 = line[order[i]]
				for (k = 1; k <= NF; k++) if ($(k) == "ns-floor") $(k-1) = floor[order[i]]
				print
			}
		}' <<<"$rounds")
	echo "NOTE each keystroke row is the best of three rounds, the sizes taking turns; each keystroke follows a 3 ms pause at every size (lsp/keystroke_bench_test.go: typed back to back, the 1,000-line server never went idle and the 100,000-line one always did); KEYSTROKE_PAUSE=0 types back to back"
	kind=Keystroke
else
	out=$(bench_go_test ./lsp -run '^$' -bench 'DidChange1000Lines|DidChange100000Lines' -benchtime 2x -benchmem)
	kind=DidChange
	echo "NOTE the keystroke rows are BenchmarkDidChange (BenchmarkKeystroke*Lines not found): no 10,000-line figure, no RSS"
fi
# (Anchored: unanchored, Features(1000|100000)Lines$ ran the NewFeatures
# benchmarks too, at 200x, which the line below runs at 50x.)
out2=$(bench_go_test ./lsp -run '^$' -bench '^Benchmark(Completion100kNames|Features(1000|100000)Lines)$' -benchtime 200x -benchmem)
# Opening a document (to its first diagnostics and to the complete
# ones), and 1,000 documents open at once (issue 39).
out2+=$'\n'$(bench_go_test ./lsp -run '^$' -bench 'Open(1000|100000)Lines$' -benchtime 5x)
out2+=$'\n'$(bench_go_test ./lsp -run '^$' -bench 'Open1000Documents$' -benchtime 1x)
# Issue 39's features (highlight, selection, call hierarchy, links, range
# formatting, pulls) in the middle of 1,000 and 100,000 lines, each with
# its ratio. links and pullfull are answers that grow with the document
# (every function call, every finding): taken as the JSON the server
# sent, their time follows their bytes (kB-reply).
# Half a second of each (go test picks the count): a fixed count small
# enough for the largest replies timed the quickest requests over too
# short a span for one collection not to show.
out2+=$'\n'$(bench_go_test ./lsp -run '^$' -bench 'NewFeatures(1000|100000)Lines$' -benchtime 500ms -benchmem)
printf '%s\n%s\n' "$out" "$out2" | grep '^Benchmark'
echo "NOTE a keystroke counts from the didChange written to the publishDiagnostics read; the benchmark client's own decoding of it (encoding/json, about 2 ms for 500 diagnostics) is left out, and printed beside it"
printf '%s\n%s\n' "$out" "$out2" | awk -v rt="$rt_us" -v kind="$kind" '
function metric(name,   i) { for (i = 1; i <= NF; i++) if ($(i) == name) return $(i-1); return "" }
# A keystroke counts from the didChange written to the publishDiagnostics
# read (ns-arrival); ns/op is the client loop, which also decodes each
# publication (about 2 ms for 500 diagnostics with encoding/json: the
# client'"'"'s work, not the server'"'"'s), printed beside it.
function keystroke(   a) { a = metric("ns-arrival"); return a != "" ? a : $3 }
$1 ~ "^BenchmarkKeystroke100000LinesOverCap" {
	printf "keystroke -> diagnostics, 100,000 lines, 12,500 findings of one code:  %9.1f ms  (client loop with its decoding %.1f ms)\n", keystroke()/1e6, $3/1e6
	printf "RESULT keystroke_100000_overcap_ms %.3f ms\n", keystroke()/1e6
	next
}
$1 ~ "^BenchmarkEnter(1000|100000)LinesErrors" {
	n = $1; sub("^BenchmarkEnter", "", n); sub(/Lines.*/, "", n)
	printf "Enter -> diagnostics, %7d lines, 2%% of them in error:  %9.2f ms  (server CPU %.2f ms; the stand-in %.2f ms)\n", n, keystroke()/1e6, metric("ns-server-cpu")/1e6, metric("ns-floor")/1e6
	printf "RESULT enter_errors_%d_ms %.3f ms\n", n, keystroke()/1e6
	printf "RESULT enter_errors_server_cpu_%d_ms %.3f ms\n", n, metric("ns-server-cpu")/1e6
	next
}
$1 ~ "^BenchmarkKeystroke(1000|100000)LinesErrors" {
	n = $1; sub("^BenchmarkKeystroke", "", n); sub(/Lines.*/, "", n)
	printf "keystroke -> diagnostics, %7d lines, 2%% of them in error:  %9.2f ms  (%s findings)\n", n, keystroke()/1e6, metric("diags")
	printf "RESULT keystroke_errors_%d_ms %.3f ms\n", n, keystroke()/1e6
	# ns-floor: the same keystrokes to a stand-in that does nothing but
	# send the same publications (lsp/standin_test.go): the floor no
	# server work lowers, since the protocol sends every finding each
	# time; the server'"'"'s own share is what its figure adds to it.
	arrival[n] = keystroke(); floor[n] = metric("ns-floor")
	printf "  a stand-in doing nothing but send the same %s kB: %.2f ms; this server'"'"'s share above it %.2f ms; server CPU %.2f ms\n", metric("kB-published"), floor[n]/1e6, (arrival[n]-floor[n])/1e6, metric("ns-server-cpu")/1e6
	printf "RESULT keystroke_errors_floor_%d_ms %.3f ms\n", n, floor[n]/1e6
	printf "RESULT keystroke_errors_share_%d_ms %.3f ms\n", n, (arrival[n]-floor[n])/1e6
	printf "RESULT keystroke_errors_server_cpu_%d_ms %.3f ms\n", n, metric("ns-server-cpu")/1e6
	next
}
/^BenchmarkNewFeatures(1000|100000)Lines\// {
	n = $1; sub("^BenchmarkNewFeatures", "", n); sub(/Lines.*/, "", n)
	f = $1; sub(/^[^\/]*\//, "", f); sub(/-[0-9]+$/, "", f)
	nf[f, n] = $3
	if ((kb = metric("kB-reply")) != "") reply[f, n] = kb
	if ((fl = metric("ns-floor")) != "") nfloor[f, n] = fl
	if (!(f in seen)) { seen[f] = 1; order[++features] = f }
	next
}
$1 ~ "^Benchmark" kind "(1000|10000|100000)Lines" {
	n = $1; sub("^Benchmark" kind, "", n); sub(/Lines.*/, "", n)
	printf "keystroke -> diagnostics, %7d lines:  %9.2f ms  (%.0f libpcp metadata round trips of %.0f us; client loop with its decoding %.2f ms)\n", n, keystroke()/1e6, keystroke()/1e3/rt, rt, $3/1e6
	printf "RESULT keystroke_%d_ms %.3f ms\n", n, keystroke()/1e6
	printf "RESULT keystroke_client_%d_ms %.3f ms\n", n, $3/1e6
	if ((rss = metric("MB-RSS")) != "") printf "RESULT server_rss_%d_mb %s MB\n", n, rss
	if ((doc = metric("MB-doc")) != "") printf "RESULT document_%d_mb %s MB\n", n, doc
}
/^BenchmarkFeatures(1000|100000)Lines/ {
	n = $1; sub("^BenchmarkFeatures", "", n); sub(/Lines.*/, "", n)
	printf "hover + completion + inlay hints + code lenses, %6d lines: %6.2f ms\n", n, $3/1e6
	printf "RESULT features_%d_ms %.4f ms\n", n, $3/1e6
}
/^BenchmarkOpen(1000|100000)Lines/ {
	n = $1; sub("^BenchmarkOpen", "", n); sub(/Lines.*/, "", n)
	printf "didOpen -> first diagnostics, %6d lines: %9.1f ms  (complete: %.1f ms)\n", n, metric("ns-first")/1e6, metric("ns-complete")/1e6
	printf "RESULT open_first_%d_ms %.3f ms\n", n, metric("ns-first")/1e6
	printf "RESULT open_complete_%d_ms %.3f ms\n", n, metric("ns-complete")/1e6
}
/^BenchmarkOpen1000Documents/ {
	printf "1,000 open documents: RSS %s MB (peak %s MB) for %s MB of text\n", metric("MB-RSS"), metric("MB-peak-RSS"), metric("MB-text")
	printf "RESULT documents_1000_peak_rss_mb %s MB\n", metric("MB-peak-RSS")
	printf "RESULT documents_1000_rss_mb %s MB\n", metric("MB-RSS")
	printf "RESULT documents_1000_text_mb %s MB\n", metric("MB-text")
}
/^BenchmarkCompletion100kNames/  { rss = metric("MB-RSS")
                                   printf "completion, 100,000-name namespace:       %9.3f ms  (%.1f libpcp round trips); RSS %s MB\n", $3/1e6, $3/1e3/rt, rss
                                   printf "RESULT completion_100k_ms %.4f ms\n", $3/1e6 }
END {
	if (arrival[1000] > 0 && arrival[100000] > 0 && floor[1000] > 0 && floor[100000] > 0) {
		# Issue 39 asks the keystroke at 100,000 lines within 2x of
		# 1,000: the stand-in'"'"'s ratio is what the publication'"'"'s size
		# alone makes of it, the share'"'"'s what the server adds.
		printf "keystroke, 2%% in error, 100,000 lines over 1,000: %.2f x; the stand-in %.2f x", arrival[100000]/arrival[1000], floor[100000]/floor[1000]
		if ((share = arrival[1000] - floor[1000]) > 0) printf "; the server'"'"'s share %.2f x", (arrival[100000]-floor[100000])/share
		printf "; the server over the stand-in %.2f x and %.2f x\n", arrival[1000]/floor[1000], arrival[100000]/floor[100000]
		printf "RESULT keystroke_errors_ratio %.2f x\n", arrival[100000]/arrival[1000]
		printf "RESULT keystroke_errors_floor_ratio %.2f x\n", floor[100000]/floor[1000]
		if (share > 0) printf "RESULT keystroke_errors_share_ratio %.2f x\n", (arrival[100000]-floor[100000])/share
	}
	for (i = 1; i <= features; i++) {
		f = order[i]
		if (nf[f, 1000] == "" || nf[f, 100000] == "") continue
		printf "%-14s 1,000 lines %9.3f ms, 100,000 lines %9.3f ms: %6.1f x", f, nf[f, 1000]/1e6, nf[f, 100000]/1e6, nf[f, 100000]/nf[f, 1000]
		if (reply[f, 1000] != "") printf "  (reply %s kB and %s kB)", reply[f, 1000], reply[f, 100000]
		printf "\n"
		printf "RESULT newfeatures_%s_ratio %.2f x\n", f, nf[f, 100000]/nf[f, 1000]
		# An answer that lists the whole document (every function call,
		# every finding) grows with it by the protocol: its cost per kB
		# of reply is the figure that shows whether the server does more
		# than write it.
		if (reply[f, 1000] > 0 && reply[f, 100000] > 0) {
			perkb = (nf[f, 100000]/reply[f, 100000]) / (nf[f, 1000]/reply[f, 1000])
			printf "%-14s per kB of reply: 1,000 lines %7.2f us, 100,000 lines %7.2f us: %6.2f x\n", f, nf[f, 1000]/reply[f, 1000]/1e3, nf[f, 100000]/reply[f, 100000]/1e3, perkb
			printf "RESULT newfeatures_%s_per_kb_ratio %.2f x\n", f, perkb
		}
		# The same requests to a stand-in that only sends the same JSON
		# (lsp/standin_test.go): the floor under the server'"'"'s time.
		if (nfloor[f, 1000] > 0 && nfloor[f, 100000] > 0) {
			printf "%-14s a stand-in sending the same reply: 1,000 lines %9.3f ms, 100,000 lines %9.3f ms: %6.1f x; the server over it %.2f x and %.2f x\n", f, nfloor[f, 1000]/1e6, nfloor[f, 100000]/1e6, nfloor[f, 100000]/nfloor[f, 1000], nf[f, 1000]/nfloor[f, 1000], nf[f, 100000]/nfloor[f, 100000]
			printf "RESULT newfeatures_%s_floor_ratio %.2f x\n", f, nfloor[f, 100000]/nfloor[f, 1000]
			printf "RESULT newfeatures_%s_over_floor_100000 %.2f x\n", f, nf[f, 100000]/nfloor[f, 100000]
		}
	}
	# afteredit is two keystrokes and the features; editsonly the same
	# keystrokes and a hover: what the features add is the difference.
	if (nf["afteredit", 1000] != "" && nf["editsonly", 1000] != "" && nf["afteredit", 100000] != "" && nf["editsonly", 100000] != "") {
		d1 = nf["afteredit", 1000] - nf["editsonly", 1000]; d100 = nf["afteredit", 100000] - nf["editsonly", 100000]
		printf "features after an edit (afteredit less editsonly): 1,000 lines %.3f ms, 100,000 lines %.3f ms\n", d1/1e6, d100/1e6
		if (d1 > 0 && d100 > 0) printf "RESULT newfeatures_afteredit_features_ratio %.2f x\n", d100/d1
	}
}'
