# What archive.py and archive_ctypes.py share: the command line, the
# canonical output and the fetch loop. Each script drives its release's
# libpcp its own way (python3-pcp or ctypes); this module never calls it.
# The Go side writes it beside the script, where Python's import finds it.
import sys

# The pmAtomValue member per PM_TYPE_* (32, U32, 64, U64, FLOAT, DOUBLE,
# STRING: 0 to 6 in every release).
ATOM_FIELDS = {0: "l", 1: "ul", 2: "ll", 3: "ull", 4: "f", 5: "d", 6: "cp"}
PM_TYPE_FLOAT, PM_TYPE_DOUBLE = 4, 5


def parse_args(prog):
    """The mode, archive, config, window (ORIGIN_SEC ORIGIN_NSEC DELTA_SEC
    DELTA_NSEC SAMPLES as ints; None in replay) and names of the command line."""
    mode, archive, config = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "interp":
        return mode, archive, config, tuple(int(a) for a in sys.argv[4:9]), sys.argv[9:]
    if mode == "replay":
        return mode, archive, config, None, sys.argv[4:]
    sys.exit("%s: mode must be replay or interp, not %r" % (prog, mode))


def canonical(atom, t):
    """An extracted value of type t as the output prints it."""
    val = getattr(atom, ATOM_FIELDS[t])
    if isinstance(val, bytes):
        val = val.decode(errors="replace")
    if t in (PM_TYPE_FLOAT, PM_TYPE_DOUBLE):
        val = "%.17g" % float(val)
    return val


def write_record(out, sec, usec, metrics):
    """Prints one fetch: metrics yields (name, numval, values) per metric,
    values() yielding (inst, canonical value); it is called only when
    numval is positive."""
    out.write("T %d.%06d\n" % (sec, usec))
    for name, numval, values in metrics:
        if numval < 0:
            out.write("%s ERR %d\n" % (name, numval))
        elif numval == 0:
            out.write("%s NOVALUES\n" % name)
        else:
            for inst, val in values():
                out.write("%s %d %s\n" % (name, inst, val))


def fetch_loop(out, mode, samples, fetch):
    """Fetches until the archive ends (replay) or samples times (interp;
    "EOL" for each fetch past the end). fetch() prints one record and
    returns True, or returns False at the end of the archive."""
    fetched = 0
    while mode == "replay" or fetched < samples:
        fetched += 1
        if fetch():
            continue
        if mode == "replay":
            break
        out.write("EOL\n")
