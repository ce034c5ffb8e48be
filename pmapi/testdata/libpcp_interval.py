# Reads JSON strings, one per line, and prints what libpcp's
# pmParseInterval makes of each: "SEC USEC" or "ERR".
import json
import sys

from pcp import pmapi

for line in sys.stdin:
    spec = json.loads(line)
    try:
        tv, _ = pmapi.pmContext.pmParseInterval(spec)
        print(tv.tv_sec, tv.tv_usec)
    except pmapi.pmErr:
        print("ERR")
    except Exception:
        print("ERR")
