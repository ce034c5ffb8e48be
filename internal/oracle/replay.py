# Evaluates derived metrics over an archive with this release's libpcp:
# loads the config, replays every record forward (PM_MODE_FORW) and
# prints, per record, "T <sec>.<usec>" then "<name> <inst> <value>",
# "<name> NOVALUES" or "<name> ERR <code>".
# usage: python3 replay.py ARCHIVE CONFIG NAME...
# Works with the bindings of PCP 5.2 to 7.x: 7.x results carry a timespec.
import os, sys
os.environ["PCP_DERIVED_CONFIG"] = ""
from ctypes import POINTER, c_uint, cast
from pcp import pmapi
import cpmapi as c

archive, config, names = sys.argv[1], sys.argv[2], sys.argv[3:]
ctx = pmapi.pmContext(c.PM_CONTEXT_ARCHIVE, archive)
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
label = ctx.pmGetArchiveLabel()
ctx.pmSetMode(c.PM_MODE_FORW, label.start, 0)
types = {p: ctx.pmLookupDescs([p])[0].contents.type for p in pmids}
fields = {c.PM_TYPE_32: "l", c.PM_TYPE_U32: "ul", c.PM_TYPE_64: "ll", c.PM_TYPE_U64: "ull",
          c.PM_TYPE_FLOAT: "f", c.PM_TYPE_DOUBLE: "d", c.PM_TYPE_STRING: "cp"}
out = sys.stdout
while True:
    try:
        res = ctx.pmFetch(pmid_array)
    except pmapi.pmErr as e:
        if e.args[0] == c.PM_ERR_EOL:
            break
        raise
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
            a = ctx.pmExtractValue(vs.valfmt, v, t, t)
            val = getattr(a, fields[t])
            if isinstance(val, bytes):
                val = val.decode(errors="replace")
            if t in (c.PM_TYPE_FLOAT, c.PM_TYPE_DOUBLE):
                val = "%.17g" % float(val)
            out.write("%s %d %s\n" % (name, v.inst, val))
    ctx.pmFreeResult(res)
