# Replays an archive through libpcp (pmFetchArchive) and prints every
# record canonically: "T <sec>.<nsec>" or "MARK <sec>.<nsec>", then one
# line per value "<pmid> <inst> <value>" (or "<pmid> ERR <code>").
# usage: /usr/bin/python3 libpcp_dump.py ARCHIVE
import sys
from ctypes import POINTER, cast
from pcp import pmapi
import cpmapi as c

ctx = pmapi.pmContext(c.PM_CONTEXT_ARCHIVE, sys.argv[1])
types = {}
def desc_type(pmid):
    if pmid not in types:
        types[pmid] = ctx.pmLookupDescs([pmid])[0].contents.type
    return types[pmid]
def pmid_str(p):
    return "%d.%d.%d" % ((p >> 22) & 0x1ff, (p >> 10) & 0xfff, p & 0x3ff)
fields = {c.PM_TYPE_32: "l", c.PM_TYPE_U32: "ul", c.PM_TYPE_64: "ll", c.PM_TYPE_U64: "ull",
          c.PM_TYPE_FLOAT: "f", c.PM_TYPE_DOUBLE: "d", c.PM_TYPE_STRING: "cp"}
out = sys.stdout
while True:
    try:
        res = ctx.pmFetchHighResArchive()
    except pmapi.pmErr as e:
        if e.args[0] == c.PM_ERR_EOL:
            break
        raise
    r = res.contents
    ts = "%d.%09d" % (r.timestamp.tv_sec, r.timestamp.tv_nsec)
    if r.numpmid == 0:
        out.write("MARK %s\n" % ts)
        continue
    out.write("T %s\n" % ts)
    for i in range(r.numpmid):
        vs = r.get_vset(i).contents
        pmid = vs.pmid
        if vs.numval < 0:
            out.write("%s ERR %d\n" % (pmid_str(pmid), vs.numval))
            continue
        t = desc_type(pmid)
        vlist = cast(vs.vlist, POINTER(pmapi.pmValue))
        for j in range(vs.numval):
            v = vlist[j]
            if t in fields:
                a = ctx.pmExtractValue(vs.valfmt, v, t, t)
                val = getattr(a, fields[t])
                if isinstance(val, bytes):
                    val = val.decode(errors="replace")
                if t in (c.PM_TYPE_FLOAT, c.PM_TYPE_DOUBLE):
                    val = "%.17g" % float(val)
                out.write("%s %d %s\n" % (pmid_str(pmid), v.inst, val))
            else:
                out.write("%s %d [blob]\n" % (pmid_str(pmid), v.inst))
