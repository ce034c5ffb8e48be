#!/usr/bin/env bash
# make testenv: everything the tests need, with the independent pieces at
# once. From nothing each piece mostly waits on the network (debootstrap,
# npm), so one after another they took about twice as long as the slowest.
#
#   1. scripts/pcp-testenv.sh: the host's PCP, pmcd, and the host tools the
#      others need (debootstrap, npm). Everything else waits for it.
#   2. At once, each idempotent and quick when its cache is there:
#        releases   scripts/pcp-releases.sh, then scripts/fleet-env.sh (the
#                   fleet's pmcds run in the release chroots)
#        oracles    scripts/pcp-oracles.sh
#        editors    scripts/editors-env.sh
#        packages   scripts/packages-env.sh
#        vscode     scripts/vscode-e2e-env.sh (code-server, Node 24,
#                   chromium; otherwise set up by make vscode-e2e, after
#                   the Go tests)
#        gomod      go mod download
#
# Each piece writes to its own log ($PCP_TESTENV_LOGS, default
# build/testenv/PIECE.log), printed whole, with its time, when it ends: the
# output never interleaves. Exits non-zero when any piece failed, naming
# them.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
GO=${GO:-go}
logs=${PCP_TESTENV_LOGS:-build/testenv}

say() { printf 'testenv: %s\n' "$*" >&2; }

scripts/pcp-testenv.sh || { say "error: the host's PCP is not ready (above)"; exit 1; }

mkdir -p "$logs"
declare -A pieces=(
	[releases]="scripts/pcp-releases.sh && scripts/fleet-env.sh"
	[oracles]="scripts/pcp-oracles.sh"
	[editors]="scripts/editors-env.sh"
	[packages]="scripts/packages-env.sh"
	[vscode]="scripts/vscode-e2e-env.sh >/dev/null"
	[gomod]="$GO mod download"
)
declare -A pid=()
for name in "${!pieces[@]}"; do
	(
		start=$SECONDS
		bash -c "set -o pipefail; ${pieces[$name]}" >"$logs/$name.log" 2>&1
		status=$?
		echo "$((SECONDS - start))" >"$logs/$name.seconds"
		exit "$status"
	) &
	pid[$name]=$!
done

failed=()
for name in releases oracles editors packages vscode gomod; do
	wait "${pid[$name]}"
	status=$?
	echo "=== testenv $name ($(cat "$logs/$name.seconds" 2>/dev/null || echo '?') s)"
	cat "$logs/$name.log"
	[ "$status" = 0 ] || failed+=("$name")
done
if [ ${#failed[@]} -gt 0 ]; then
	say "error: failed: ${failed[*]} (logs in $logs)"
	exit 1
fi
say "ready"
