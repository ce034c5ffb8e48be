# archive.py for a release without python3-pcp (the upstream builds of
# ../shared/oracles): the same modes, arguments and canonical output, with
# the release's libpcp called through ctypes from any Python 3.
#
#   python3 archive_ctypes.py replay ARCHIVE CONFIG NAME...
#   python3 archive_ctypes.py interp ARCHIVE CONFIG ORIGIN_SEC ORIGIN_NSEC DELTA_SEC DELTA_NSEC SAMPLES NAME...
#
# The API by release: 7.x (libpcp.so.4) pmSetMode takes timespecs and a
# pmResult carries a timespec; 6.x adds pmSetModeHighRes to the timeval
# pmSetMode; 5.x takes a timeval origin and an int delta in the unit
# PM_XTB_SET names: milliseconds when the delta is whole milliseconds, as
# pmval's pmTimeStateMode passes it (5.3 keeps the origin in nanoseconds in
# an int and overflows on a delta of 2.2 seconds or more given in
# microseconds), else microseconds. Replay starts at time zero: libpcp positions
# a forward scan from before the archive at its first record.
import ctypes, os, sys
from ctypes import POINTER, Structure, Union, byref, c_char_p, c_double, c_float, c_int, c_int32, c_int64, c_long, c_uint32, c_uint64, c_void_p
from archive_common import canonical, fetch_loop, parse_args, write_record

os.environ["PCP_DERIVED_CONFIG"] = ""

lib, v7 = None, False
for soname in ("libpcp.so.4", "libpcp.so.3"):
    try:
        lib = ctypes.CDLL(soname)
        v7 = soname.endswith(".4")
        break
    except OSError:
        pass
if lib is None:
    sys.exit("no libpcp.so.4 or libpcp.so.3")

PM_CONTEXT_ARCHIVE, PM_MODE_INTERP, PM_MODE_FORW = 2, 1, 2
PM_ERR_EOL = -12345 - 25
PM_XTB_USEC, PM_XTB_MSEC = 0x1000000 | (1 << 16), 0x1000000 | (2 << 16)


class Time(Structure):  # timeval and timespec alike: seconds, then usec or nsec
    _fields_ = [("sec", c_long), ("frac", c_long)]


class Value(Structure):
    _fields_ = [("inst", c_int), ("value", c_void_p)]


class ValueSet(Structure):
    _fields_ = [("pmid", c_uint32), ("numval", c_int), ("valfmt", c_int), ("vlist", Value * 1)]


class Result(Structure):
    _fields_ = [("timestamp", Time), ("numpmid", c_int), ("vset", POINTER(ValueSet) * 1)]


class Desc(Structure):
    _fields_ = [("pmid", c_uint32), ("type", c_int), ("indom", c_uint32), ("sem", c_int), ("units", c_uint32)]


class Atom(Union):
    _fields_ = [("l", c_int32), ("ul", c_uint32), ("ll", c_int64), ("ull", c_uint64),
                ("f", c_float), ("d", c_double), ("cp", c_char_p)]


lib.pmErrStr.restype = c_char_p


def check(sts, what):
    if sts < 0:
        sys.exit("%s: %s" % (what, lib.pmErrStr(sts).decode()))
    return sts


mode, archive, config, window, names = parse_args("archive_ctypes.py")
if mode == "interp":
    osec, onsec, dsec, dnsec, samples = window
else:
    samples = 0

check(lib.pmNewContext(PM_CONTEXT_ARCHIVE, archive.encode()), "pmNewContext " + archive)
if config != "-":
    check(lib.pmLoadDerivedConfig(config.encode()), "pmLoadDerivedConfig " + config)
pmids, kept, types = [], [], []
for n in names:
    pmid, desc = c_uint32(), Desc()
    if lib.pmLookupName(1, byref(c_char_p(n.encode())), byref(pmid)) < 0:
        continue
    if lib.pmLookupDesc(pmid, byref(desc)) < 0:
        continue
    pmids.append(pmid.value)
    kept.append(n)
    types.append(desc.type)
if not pmids:
    sys.exit(0)
pmid_array = (c_uint32 * len(pmids))(*pmids)

if mode == "replay":
    if v7:
        check(lib.pmSetMode(PM_MODE_FORW, byref(Time(0, 0)), None), "pmSetMode")
    else:
        check(lib.pmSetMode(PM_MODE_FORW, byref(Time(0, 0)), 0), "pmSetMode")
elif v7:
    check(lib.pmSetMode(PM_MODE_INTERP, byref(Time(osec, onsec)), byref(Time(dsec, dnsec))), "pmSetMode")
elif hasattr(lib, "pmSetModeHighRes"):
    check(lib.pmSetModeHighRes(PM_MODE_INTERP, byref(Time(osec, onsec)), byref(Time(dsec, dnsec))), "pmSetModeHighRes")
elif dnsec % 1000000 == 0:
    check(lib.pmSetMode(PM_MODE_INTERP | PM_XTB_MSEC, byref(Time(osec, onsec // 1000)), c_int(dsec * 1000 + dnsec // 1000000)), "pmSetMode")
else:
    check(lib.pmSetMode(PM_MODE_INTERP | PM_XTB_USEC, byref(Time(osec, onsec // 1000)), c_int(dsec * 1000000 + dnsec // 1000)), "pmSetMode")

out = sys.stdout


def metric(vsets, i):
    vs = vsets[i].contents
    name, t = kept[i], types[i]

    def values():
        vlist = ctypes.cast(ctypes.addressof(vs) + ValueSet.vlist.offset, POINTER(Value))
        for j in range(vs.numval):
            atom = Atom()
            check(lib.pmExtractValue(vs.valfmt, byref(vlist[j]), t, byref(atom), t), "pmExtractValue " + name)
            yield vlist[j].inst, canonical(atom, t)
    return name, vs.numval, values


def fetch():
    res = POINTER(Result)()
    sts = lib.pmFetch(len(pmids), pmid_array, byref(res))
    if sts < 0:
        if sts != PM_ERR_EOL:
            check(sts, "pmFetch")
        return False
    r = res.contents
    usec = r.timestamp.frac // 1000 if v7 else r.timestamp.frac
    vsets = ctypes.cast(ctypes.addressof(r) + Result.vset.offset, POINTER(POINTER(ValueSet)))
    write_record(out, r.timestamp.sec, usec, (metric(vsets, i) for i in range(r.numpmid)))
    lib.pmFreeResult(res)
    return True


fetch_loop(out, mode, samples, fetch)
