#!/usr/bin/env bash
# Regenerates the metadata snapshot compiled into the binary, captured with
# our own snapshot command from the pmcd on this machine (leaving out the host-specific labels,
# test-only sample PMDAs and instance lists longer than 64, which belong to
# this host rather than to "a typical Linux host").
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
host=${1:-local:}
go run ./cmd/pcp-derive-lsp snapshot --host "$host" --exclude sample,sampledso,proc.psinfo.environ --max-instances 64 --no-labels |
	sed -e 's/"source": "[^"]*"/"source": "a Linux host running pmcd (instance lists above 64 dropped)"/' \
		-e '/"hostname": /d' -e '/"captured": /d' |
	gzip -9 -n > pmclient/embedded/default.snapshot.json.gz
echo "wrote pmclient/embedded/default.snapshot.json.gz"
