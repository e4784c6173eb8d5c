"""ctypes binding of libsparsetag, the Go library (python/libsparsetag).

The ownership rules of the C boundary are in python/libsparsetag/doc.go:
inputs are borrowed for the duration of a call, every char** output is
malloc'ed and freed here with st_free after copying, handles are closed
with st_close. ctypes releases the GIL during every call (CDLL).
"""

import array
import ctypes
import json
import os
import threading
from itertools import chain

_HERE = os.path.dirname(os.path.abspath(__file__))
_NAME = "libsparsetag.so"
_VERSION = b"sparsetag-capi 2"

_u64 = ctypes.c_uint64
_i64 = ctypes.c_int64
_i32 = ctypes.c_int32
_int = ctypes.c_int
_vp = ctypes.c_void_p
_cp = ctypes.c_char_p
_pcp = ctypes.POINTER(ctypes.c_void_p)  # char** outputs, read as addresses

_lib = None
_lock = threading.Lock()


def _load():
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        path = os.environ.get("SPARSETAG_LIB") or os.path.join(_HERE, _NAME)
        if not os.path.exists(path):
            raise ImportError(
                "sparsetag: the Go library %s is missing; install the package with "
                "`pip install --no-build-isolation ./python` (it needs the Go toolchain), "
                "or set SPARSETAG_LIB" % path)
        lib = ctypes.CDLL(path)
        seq = [_int, _cp, _i64, _vp, _i64, _vp]  # kind, names, len, counts, T, values
        sigs = {
            "st_free": ([_vp], None),
            "st_version": ([], _vp),
            "st_close": ([_u64, _pcp], _int),
            "st_trainer_new": ([], _u64),
            "st_trainer_append": ([_u64, _int, _cp, _i64, _vp, _i64, _vp, _cp, _i64, _i32, ctypes.c_double, _pcp], _int),
            "st_trainer_clear": ([_u64, _pcp], _int),
            "st_trainer_len": ([_u64], _i64),
            "st_params": ([_cp, _pcp, _pcp], _int),
            "st_train_start": ([_u64, _cp, _cp, _cp, _i32, ctypes.POINTER(_u64), _pcp], _int),
            "st_job_wait": ([_u64, _i32, _pcp, ctypes.POINTER(_int), _pcp], _int),
            "st_job_interrupt": ([_u64], None),
            "st_job_result": ([_u64, _pcp, ctypes.POINTER(_u64), _pcp], _int),
            "st_model_open": ([_cp, ctypes.POINTER(_u64), _pcp], _int),
            "st_model_open_bytes": ([_cp, _i64, ctypes.POINTER(_u64), _pcp], _int),
            "st_model_labels": ([_u64, _pcp, ctypes.POINTER(_i64), _pcp], _int),
            "st_model_info": ([_u64, _pcp, _pcp], _int),
            "st_model_tag": ([_u64] + seq + [_vp, _pcp], _int),
            "st_model_marginals": ([_u64] + seq + [_vp, ctypes.POINTER(ctypes.c_double), _pcp], _int),
            "st_model_probability": ([_u64] + seq + [_vp, ctypes.POINTER(ctypes.c_double), _pcp], _int),
            "st_model_nbest": ([_u64] + seq + [_i32, _pcp, _pcp], _int),
            "st_model_dump": ([_u64, _pcp, _pcp], _int),
            "st_model_bytes": ([_u64, _cp, _pcp, ctypes.POINTER(_i64), _pcp], _int),
            "st_model_save": ([_u64, _cp, _cp, _pcp], _int),
        }
        for name, (args, res) in sigs.items():
            f = getattr(lib, name)
            f.argtypes = args
            f.restype = res
        p = lib.st_version()
        v = ctypes.string_at(p)
        lib.st_free(p)
        if v != _VERSION:
            raise ImportError("sparsetag: %s is %r, this package needs %r" % (path, v, _VERSION))
        _lib = lib
        return lib


def lib():
    return _lib if _lib is not None else _load()


def _take(p, size=None):
    """Copies and frees a malloc'ed output (rule 3)."""
    if not p.value:
        return b""
    data = ctypes.string_at(p.value, size) if size is not None else ctypes.string_at(p.value)
    _lib.st_free(p.value)
    p.value = None
    return data


_CLASSES = {1: ValueError, 2: OSError, 3: RuntimeError}


def call(fn, *args):
    """Calls fn(*args, &err) and raises the error's Python class (rule 4)."""
    err = ctypes.c_void_p()
    rc = fn(*args, ctypes.byref(err))
    if rc != 0:
        raise_error(rc, err)


def raise_error(rc, err):
    """Raises the Python class of error class rc with the message in err."""
    msg = _take(err).decode("utf-8", "replace")
    raise _CLASSES.get(rc, RuntimeError)(msg)


def out_string():
    return ctypes.c_void_p()


def take_string(p):
    return _take(p).decode("utf-8", "surrogateescape")


def take_bytes(p, n):
    return _take(p, n.value)


def close(handle):
    if handle and _lib is not None:
        err = ctypes.c_void_p()
        if _lib.st_close(handle, ctypes.byref(err)) != 0:
            _take(err)


def params_table(algorithm):
    out = ctypes.c_void_p()
    call(lib().st_params, algorithm.encode("ascii", "replace"), ctypes.byref(out))
    return json.loads(take_string(out))


# --- items -----------------------------------------------------------------

ATTRIBUTES, COLUMNS, DICTS = 0, 1, 2  # the sequence kinds of python/libsparsetag/seq.go


def _key(k):
    if type(k) is str:
        return k
    if isinstance(k, bytes):
        return k.decode("utf-8", "surrogateescape")
    if isinstance(k, str):
        return str(k)
    raise TypeError("attribute names must be str or bytes, got %s" % type(k).__name__)


def _flatten(x, prefix, names, values):
    """Appends the attributes of item x, as python-crfsuite reads it:
    a dict maps names to a number or bool (its value), a str or bytes
    (name:value, value 1), or a nested dict, list or set (name:nested);
    anything else iterable is a collection of names of value 1."""
    if isinstance(x, dict):
        for k, v in x.items():
            k = prefix + _key(k)
            t = type(v)
            if t is float or t is int or t is bool:
                names.append(k)
                values.append(v)
            elif isinstance(v, str):
                names.append(k + ":" + v)
                values.append(1.0)
            elif isinstance(v, bytes):
                names.append(k + ":" + v.decode("utf-8", "surrogateescape"))
                values.append(1.0)
            elif isinstance(v, (dict, list, set)):
                _flatten(v, k + ":", names, values)
            else:
                names.append(k)
                values.append(float(v))
    else:
        for k in x:
            names.append(prefix + _key(k))
            values.append(1.0)


class Encoded(object):
    """One item sequence in the buffers the library reads (a kind of
    python/libsparsetag/seq.go): buf, counts (an int per item) and values
    (doubles for ATTRIBUTES, a flag byte per attribute for DICTS)."""

    __slots__ = ("kind", "buf", "counts", "values", "n")

    def __init__(self, kind, buf, counts, values):
        self.kind, self.buf, self.counts, self.values = kind, buf, counts, values
        self.n = len(counts)

    def args(self):
        c = self.counts.buffer_info()[0] if self.n else None
        v = None
        if self.values is not None and len(self.values):
            v = self.values if self.kind == DICTS else self.values.buffer_info()[0]
        return (self.kind, self.buf, len(self.buf), c, self.n, v)

    def _strings(self):
        if not self.buf:
            return []
        return self.buf[:-1].decode("utf-8", "surrogateescape").split("\0")

    def attributes(self):
        """The attribute names and values, flat (as the library reads them)."""
        strs = self._strings()
        if self.kind != DICTS:
            return strs, list(self.values)
        n = len(self.values)
        names, vals = [], []
        for key, text, is_str in zip(strs[:n], strs[n:], self.values):
            if is_str:
                names.append(key + ":" + text)
                vals.append(1.0)
            else:
                names.append(key)
                vals.append(_BOOLS[text] if text in _BOOLS else float(text))
        return names, vals


# The value types of the shortcut, and whether each is a string.
_IS_STR = {str: 1, float: 0, int: 0, bool: 0}
_BOOLS = {"True": 1.0, "False": 0.0}


def _encode_dicts(xs):
    """The common case, items that are dicts of str to str, number or bool,
    with a few calls of C-level builtins instead of a loop over the
    attributes: the keys, the str() of each value and a flag per value
    (1: a string) for the library to join into names (seq.go's seqDicts).
    None when the case does not apply."""
    if not set(map(type, xs)) <= {dict}:
        return None
    try:
        keys = "\0".join(chain.from_iterable(xs))
    except TypeError:  # a key that is not a str
        return None
    vals = list(chain.from_iterable(map(dict.values, xs)))
    try:
        flags = bytes(map(_IS_STR.__getitem__, map(type, vals)))
    except KeyError:  # a value of another type
        return None
    counts = array.array("i", map(len, xs))
    if not vals:
        return Encoded(DICTS, b"", counts, b"")
    buf = (keys + "\0" + "\0".join(map(str, vals)) + "\0").encode("utf-8", "surrogateescape")
    return Encoded(DICTS, buf, counts, flags)


def encode_items(xseq):
    """Encodes a sequence of python-crfsuite items."""
    if type(xseq) is not list and type(xseq) is not tuple:
        xseq = list(xseq)
    enc = _encode_dicts(xseq)
    return enc if enc is not None else encode_items_general(xseq)


def encode_items_general(xseq):
    """Encodes any python-crfsuite items, attribute by attribute."""
    names, values, counts = [], [], []
    for x in xseq:
        before = len(names)
        if type(x) is dict:
            # The common cases inline; the rest as _flatten says.
            for k, v in x.items():
                t = type(v)
                if type(k) is str:
                    if t is str:
                        names.append(k + ":" + v)
                        values.append(1.0)
                        continue
                    if t is float or t is int or t is bool:
                        names.append(k)
                        values.append(v)
                        continue
                _flatten({k: v}, "", names, values)
        else:
            _flatten(x, "", names, values)
        counts.append(len(names) - before)
    buf = ("\0".join(names) + "\0").encode("utf-8", "surrogateescape") if names else b""
    try:
        vals = array.array("d", values)
    except TypeError:
        raise TypeError("attribute values must be numbers, bools, strings or nested dicts/lists")
    return Encoded(ATTRIBUTES, buf, array.array("i", counts), vals)


def encode_columns(rows):
    """Encodes token columns (a list of lists of str, one list per token)."""
    cells, counts = [], []
    for r in rows:
        if isinstance(r, str):
            r = [r]
        cells.extend(_key(c) for c in r)
        counts.append(len(r))
    buf = ("\0".join(cells) + "\0").encode("utf-8", "surrogateescape") if cells else b""
    return Encoded(COLUMNS, buf, array.array("i", counts), None)


def encode_strings(ss):
    return ("\0".join(_key(s) for s in ss) + "\0").encode("utf-8", "surrogateescape") if ss else b""
