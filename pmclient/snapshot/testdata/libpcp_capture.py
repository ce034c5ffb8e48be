# Captures a metadata snapshot (pmclient/snapshot format, version 1) from a
# pmcd through libpcp's own Python bindings. Tests use it as the oracle's
# view of the metadata; the product captures with its own pmcd client.
# usage: /usr/bin/python3 libpcp_capture.py HOST [EXCLUDE,PREFIXES [MAX_INSTANCES]] > snapshot.json
import json, os, sys
os.environ["PCP_DERIVED_CONFIG"] = ""  # the host's metrics only, no derived ones
from pcp import pmapi
import cpmapi as c

host = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1"
exclude = [p for p in (sys.argv[2].split(",") if len(sys.argv) > 2 else []) if p]
max_instances = int(sys.argv[3]) if len(sys.argv) > 3 else -1
ctx = pmapi.pmContext(c.PM_CONTEXT_HOST, host)
names = []
ctx.pmTraversePMNS("", names.append)
names = [n for n in names if not any(n == p or n.startswith(p + ".") for p in exclude)]
pmids = ctx.pmLookupName(names)

def type_str(t):
    s = ctx.pmTypeStr(t)
    return s.decode() if isinstance(s, bytes) else s

def units_str(u):
    return ctx.pmUnitsStr(u) if (u.dimSpace or u.dimTime or u.dimCount or u.scaleCount) else ""

def pmid_str(p):
    return "%d.%d.%d" % ((p >> 22) & 0x1ff, (p >> 10) & 0xfff, p & 0x3ff)

def indom_str(i):
    return "%d.%d" % ((i >> 22) & 0x1ff, i & 0x3fffff)

def text(fn, ident, kind):
    try:
        t = fn(ident, kind)
    except pmapi.pmErr:
        return ""
    return t.decode(errors="replace") if isinstance(t, bytes) else t

metrics, indoms = [], {}
sems = {c.PM_SEM_COUNTER: "counter", c.PM_SEM_INSTANT: "instant", c.PM_SEM_DISCRETE: "discrete"}
for name, pmid in zip(names, pmids):
    if (pmid >> 22) & 0x1ff == 511:
        continue  # libpcp's own derived metrics (event.flags, event.missed)
    try:
        d = ctx.pmLookupDescs([pmid])[0]
    except pmapi.pmErr:
        continue
    m = {"name": name.decode() if isinstance(name, bytes) else name, "pmid": pmid_str(pmid), "type": type_str(d.contents.type),
         "indom": "" if d.contents.indom == c.PM_INDOM_NULL else indom_str(d.contents.indom),
         "sem": sems.get(d.contents.sem, str(d.contents.sem)), "units": units_str(d.contents.units),
         "oneline": text(ctx.pmLookupText, pmid, c.PM_TEXT_ONELINE),
         "help": text(ctx.pmLookupText, pmid, c.PM_TEXT_HELP)}
    metrics.append(m)
    if m["indom"] and m["indom"] not in indoms:
        try:
            ids, insts = ctx.pmGetInDom(d)
        except pmapi.pmErr:
            ids, insts = [], []
        if max_instances >= 0 and len(ids or []) > max_instances:
            ids, insts = [], []
        indoms[m["indom"]] = {"indom": m["indom"],
                              "instances": [{"id": i, "name": n.decode(errors="replace") if isinstance(n, bytes) else n}
                                            for i, n in zip(ids or [], insts or [])],
                              "oneline": text(ctx.pmLookupInDomText, d, c.PM_TEXT_ONELINE),
                              "help": text(ctx.pmLookupInDomText, d, c.PM_TEXT_HELP)}

ver = ""
try:
    res = ctx.pmFetch(ctx.pmLookupName(["pmcd.version"]))
    ver = ctx.pmExtractValue(res.contents.get_valfmt(0), res.contents.get_vlist(0, 0),
                             c.PM_TYPE_STRING, c.PM_TYPE_STRING).cp
    ver = ver.decode() if isinstance(ver, bytes) else ver
except Exception:
    pass
json.dump({"format": "pcp-derive-lsp-snapshot", "version": 1, "source": "pmcd at " + host + " (via libpcp)",
           "pcpVersion": ver, "metrics": sorted(metrics, key=lambda m: m["name"]),
           "indoms": sorted(indoms.values(), key=lambda i: i["indom"])}, sys.stdout, indent=1)
