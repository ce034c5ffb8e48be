# Asks the installed libpcp how it parses and renders units strings: reads
# one JSON string per line on stdin, writes one JSON object per line.
import ctypes, json, sys

lib = ctypes.CDLL("libpcp.so.3")

class Units(ctypes.Structure):
    # pmUnits on little-endian machines: bitfields from the low end.
    _fields_ = [("pad", ctypes.c_int, 8), ("scaleCount", ctypes.c_int, 4),
                ("scaleTime", ctypes.c_uint, 4), ("scaleSpace", ctypes.c_uint, 4),
                ("dimCount", ctypes.c_int, 4), ("dimTime", ctypes.c_int, 4),
                ("dimSpace", ctypes.c_int, 4)]

lib.pmParseUnitsStr.argtypes = [ctypes.c_char_p, ctypes.POINTER(Units), ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_char_p)]
lib.pmUnitsStr_r.argtypes = [ctypes.POINTER(Units), ctypes.c_char_p, ctypes.c_int]
lib.pmUnitsStr_r.restype = ctypes.c_char_p

for line in sys.stdin:
    s = json.loads(line)
    u = Units()
    mult = ctypes.c_double()
    err = ctypes.c_char_p()
    sts = lib.pmParseUnitsStr(s.encode(), ctypes.byref(u), ctypes.byref(mult), ctypes.byref(err))
    if sts < 0:
        print(json.dumps({"err": err.value.decode() if err.value else ""}))
        continue
    buf = ctypes.create_string_buffer(128)
    text = lib.pmUnitsStr_r(ctypes.byref(u), buf, 128).decode()
    print(json.dumps({"dims": [u.dimSpace, u.dimTime, u.dimCount],
                      "scales": [u.scaleSpace, u.scaleTime, u.scaleCount],
                      "mult": mult.value, "text": text}))
    sys.stdout.flush()
