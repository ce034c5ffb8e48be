#!/usr/bin/env bash
# Regenerates the metadata snapshot compiled into the binary from the pmcd
# on this machine (leaving out the test-only sample PMDAs and instance
# lists longer than 64, which are specific to the host).
set -euo pipefail
cd "$(dirname "$0")/.."
host=${1:-127.0.0.1}
/usr/bin/python3 pmclient/snapshot/testdata/libpcp_capture.py "$host" sample,sampledso,proc.psinfo.environ 64 |
	sed 's/"source": "pmcd at [^"]*"/"source": "a Linux host running pmcd (instance lists above 64 dropped)"/' |
	gzip -9 -n > pmclient/embedded/default.snapshot.json.gz
echo "wrote pmclient/embedded/default.snapshot.json.gz"
