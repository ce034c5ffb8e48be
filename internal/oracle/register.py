# Registers derived-metric expressions with this release's libpcp and
# reports its verdicts: one JSON string per line on stdin, one JSON object
# per line on stdout ({"ok": true} or {"ok": false, "caret": N, "msg": S}).
#
# libpcp leaves its matchinst lexer flag up after a failed parse inside
# matchinst(), which changes how it lexes the next expression; every failure
# is therefore followed by a successful matchinst() registration that
# clears the flag, so each verdict stands on its own.
import ctypes, json, sys

lib = None
for soname in ("libpcp.so.4", "libpcp.so.3"):
    try:
        lib = ctypes.CDLL(soname)
        break
    except OSError:
        pass
if lib is None:
    sys.exit("no libpcp.so.4 or libpcp.so.3")
lib.pmRegisterDerived.restype = ctypes.c_void_p
lib.pmRegisterDerived.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
lib.pmDerivedErrStr.restype = ctypes.c_char_p

n = 0
for line in sys.stdin:
    expr = json.loads(line).encode()
    n += 1
    buf = ctypes.create_string_buffer(expr)
    pos = lib.pmRegisterDerived(b"oracle.m%d" % n, buf)
    if pos is None:
        print(json.dumps({"ok": True}))
        continue
    msg = lib.pmDerivedErrStr()
    print(json.dumps({"ok": False, "caret": pos - ctypes.addressof(buf),
                      "msg": msg.decode() if msg else ""}))
    n += 1
    lib.pmRegisterDerived(b"oracle.m%d" % n, ctypes.create_string_buffer(b"matchinst(/x/, a.b)"))
