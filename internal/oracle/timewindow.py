# Resolves time window arguments with this release's pmParseTimeWindow:
# reads lines "START\tEND\tALIGN\tORIGIN" (an empty field: not given) and
# prints, per line, "OK start end origin" (seconds.microseconds), "WARN
# start end origin" when the alignment was not applied, or "ERR".
# usage: python3 timewindow.py FIRST_SEC FIRST_USEC LAST_SEC LAST_USEC < lines
# The reporting time zone is $TZ.
import sys
from ctypes import POINTER, byref, c_char_p, c_int
from pcp import pmapi

L = pmapi.LIBPCP
L.pmParseTimeWindow.restype = c_int
L.pmParseTimeWindow.argtypes = [c_char_p, c_char_p, c_char_p, c_char_p,
                                POINTER(pmapi.timeval), POINTER(pmapi.timeval),
                                POINTER(pmapi.timeval), POINTER(pmapi.timeval),
                                POINTER(pmapi.timeval), POINTER(c_char_p)]
first = pmapi.timeval(int(sys.argv[1]), int(sys.argv[2]))
last = pmapi.timeval(int(sys.argv[3]), int(sys.argv[4]))
for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    args = [a.encode() if a else None for a in f]
    start, end, origin = pmapi.timeval(), pmapi.timeval(), pmapi.timeval()
    msg = c_char_p()
    sts = L.pmParseTimeWindow(args[0], args[1], args[2], args[3], byref(first), byref(last),
                              byref(start), byref(end), byref(origin), byref(msg))
    if sts < 0:
        print("ERR")
    else:
        print("%s %d.%06d %d.%06d %d.%06d" % ("OK" if sts == 1 else "WARN",
              start.tv_sec, start.tv_usec, end.tv_sec, end.tv_usec, origin.tv_sec, origin.tv_usec))
    sys.stdout.flush()
