# Evaluates metrics (derived or not) over an archive with this release's
# libpcp and prints each fetch canonically: "T <sec>.<usec>", then
# "<name> <inst> <value>", "<name> NOVALUES" or "<name> ERR <code>".
#
#   python3 archive.py replay ARCHIVE CONFIG NAME...
#     every record forward (PM_MODE_FORW), until the archive ends.
#   python3 archive.py interp ARCHIVE CONFIG ORIGIN_SEC ORIGIN_NSEC DELTA_SEC DELTA_NSEC SAMPLES NAME...
#     interpolation (PM_MODE_INTERP) as pmval -a and pmrep -a fetch:
#     SAMPLES fetches from ORIGIN every DELTA; "EOL" for a fetch past the end.
#
# CONFIG "-" loads no derived metrics. Works with the bindings of PCP 5.2
# to 7.x: 5.2 takes a timeval origin and a delta in microseconds
# (PM_XTB_SET), 6.x pmSetModeHighRes, 7.x a timespec pmSetMode; 7.x
# results carry a timespec.
import os, sys
os.environ["PCP_DERIVED_CONFIG"] = ""
from ctypes import POINTER, c_uint, cast
from pcp import pmapi
import cpmapi as c
from archive_common import canonical, fetch_loop, parse_args, write_record

mode, archive, config, window, names = parse_args("archive.py")
if mode == "interp":
    osec, onsec, dsec, dnsec, samples = window
else:
    samples = 0

ctx = pmapi.pmContext(c.PM_CONTEXT_ARCHIVE, archive)
if config != "-":
    ctx.pmLoadDerivedConfig(config)
pmids, kept = [], []
for n in names:
    try:
        pmid = ctx.pmLookupName([n])[0]
        ctx.pmLookupDescs([pmid])
    except pmapi.pmErr:
        continue
    pmids.append(pmid)
    kept.append(n)
if not pmids:
    sys.exit(0)
pmid_array = (c_uint * len(pmids))(*pmids)

if mode == "replay":
    ctx.pmSetMode(c.PM_MODE_FORW, ctx.pmGetArchiveLabel().start, 0)
elif hasattr(ctx, "pmSetModeHighRes"):
    ctx.pmSetModeHighRes(c.PM_MODE_INTERP, pmapi.timespec(osec, onsec), pmapi.timespec(dsec, dnsec))
elif pmapi.LIBPCP.pmSetMode.argtypes[2] is not pmapi.c_int:
    ctx.pmSetMode(c.PM_MODE_INTERP, pmapi.timespec(osec, onsec), pmapi.timespec(dsec, dnsec))
else:
    # PCP 5: microsecond origin, delta in microseconds (PM_XTB_SET(PM_TIME_USEC))
    xtb = 0x1000000 | (c.PM_TIME_USEC << 16)
    ctx.pmSetMode(c.PM_MODE_INTERP | xtb, pmapi.timeval(osec, onsec // 1000), dsec * 1000000 + dnsec // 1000)

types = {p: ctx.pmLookupDescs([p])[0].contents.type for p in pmids}
out = sys.stdout


def metric(r, i):
    vs = r.get_vset(i).contents
    t = types[pmids[i]]

    def values():
        vlist = cast(vs.vlist, POINTER(pmapi.pmValue))
        for j in range(vs.numval):
            yield vlist[j].inst, canonical(ctx.pmExtractValue(vs.valfmt, vlist[j], t, t), t)
    return kept[i], vs.numval, values


def fetch():
    try:
        res = ctx.pmFetch(pmid_array)
    except pmapi.pmErr as e:
        if e.args[0] != c.PM_ERR_EOL:
            raise
        return False
    r = res.contents
    ts = r.timestamp
    usec = ts.tv_nsec // 1000 if hasattr(ts, "tv_nsec") else ts.tv_usec
    write_record(out, ts.tv_sec, usec, (metric(r, i) for i in range(r.numpmid)))
    ctx.pmFreeResult(res)
    return True


fetch_loop(out, mode, samples, fetch)
