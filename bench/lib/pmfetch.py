"""libpcp's side of bench/fetchpair: pmFetch of the given metrics in
bursts, on command.

    python3 pmfetch.py HOST NAMESFILE

Looks the names up, fetches 20 times to warm the connection, then prints
"ready VALUES LOOP_NS": the values one fetch returns, and what the Python
loop and two ctypes calls into libpcp cost without I/O, in nanoseconds
(part of every libpcp fetch timed here). Each line N on stdin is a
burst of N fetches; the answer is one line: the wall-clock nanoseconds per
fetch and the CPU nanoseconds (user and system) per fetch. pmFetch is
called through ctypes straight into libpcp, without the Python wrapper's
conversion of the result.
"""
import os
import resource
import sys
import time

os.environ["PCP_DERIVED_CONFIG"] = ""  # pmcd's metrics only
from ctypes import POINTER, byref, c_uint  # noqa: E402

import cpmapi as c  # noqa: E402
from pcp import pmapi  # noqa: E402


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def loop_overhead(lib, n):
    """The loop and two ctypes calls into libpcp, without I/O, in ns."""
    start = time.perf_counter_ns()
    for _ in range(n):
        lib.pmWhichContext()
        lib.pmWhichContext()
    return (time.perf_counter_ns() - start) // n


def main():
    host, names = sys.argv[1], open(sys.argv[2]).read().split()
    ctx = pmapi.pmContext(c.PM_CONTEXT_HOST, host)
    pmids = ctx.pmLookupName(names)
    ctx.pmLookupDescs(pmids)
    arr = (c_uint * len(pmids))(*pmids)
    lib, res = pmapi.LIBPCP, POINTER(pmapi.pmResult)()

    def fetch():
        if lib.pmFetch(len(pmids), arr, byref(res)) < 0:
            raise SystemExit("pmFetch failed")

    fetch()
    values = sum(max(res.contents.get_vset(i).contents.numval, 0)
                 for i in range(res.contents.numpmid))
    lib.pmFreeResult(res)
    for _ in range(20):
        fetch()
        lib.pmFreeResult(res)
    print("ready", values, loop_overhead(lib, 100000), flush=True)
    for line in sys.stdin:
        n = int(line)
        cpu0, start = cpu_seconds(), time.perf_counter_ns()
        for _ in range(n):
            fetch()
            lib.pmFreeResult(res)
        wall = (time.perf_counter_ns() - start) // n
        cpu = int((cpu_seconds() - cpu0) * 1e9 / n)
        print(wall, cpu, flush=True)


main()
