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

mode, archive, config = sys.argv[1], sys.argv[2], sys.argv[3]
if mode == "interp":
    osec, onsec, dsec, dnsec, samples = (int(a) for a in sys.argv[4:9])
    names = sys.argv[9:]
elif mode == "replay":
    names = sys.argv[4:]
else:
    sys.exit("archive.py: mode must be replay or interp, not %r" % mode)

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
fields = {c.PM_TYPE_32: "l", c.PM_TYPE_U32: "ul", c.PM_TYPE_64: "ll", c.PM_TYPE_U64: "ull",
          c.PM_TYPE_FLOAT: "f", c.PM_TYPE_DOUBLE: "d", c.PM_TYPE_STRING: "cp"}
out = sys.stdout


def write(res):
    r = res.contents
    ts = r.timestamp
    usec = ts.tv_nsec // 1000 if hasattr(ts, "tv_nsec") else ts.tv_usec
    out.write("T %d.%06d\n" % (ts.tv_sec, usec))
    for i in range(r.numpmid):
        vs = r.get_vset(i).contents
        name = kept[i]
        if vs.numval < 0:
            out.write("%s ERR %d\n" % (name, vs.numval))
            continue
        if vs.numval == 0:
            out.write("%s NOVALUES\n" % name)
            continue
        t = types[pmids[i]]
        vlist = cast(vs.vlist, POINTER(pmapi.pmValue))
        for j in range(vs.numval):
            v = vlist[j]
            val = getattr(ctx.pmExtractValue(vs.valfmt, v, t, t), fields[t])
            if isinstance(val, bytes):
                val = val.decode(errors="replace")
            if t in (c.PM_TYPE_FLOAT, c.PM_TYPE_DOUBLE):
                val = "%.17g" % float(val)
            out.write("%s %d %s\n" % (name, v.inst, val))


fetched = 0
while mode == "replay" or fetched < samples:
    fetched += 1
    try:
        res = ctx.pmFetch(pmid_array)
    except pmapi.pmErr as e:
        if e.args[0] != c.PM_ERR_EOL:
            raise
        if mode == "replay":
            break
        out.write("EOL\n")
        continue
    write(res)
    ctx.pmFreeResult(res)
