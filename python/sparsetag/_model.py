"""A model held by the Go library: the shared core of Tagger, CRF and Model."""

import array
import ctypes
import json
import weakref

from . import _lib


class Model(object):
    """A trained model in Go memory: CRFsuite, sparsetag, Wapiti or CRF++.

    Safe for concurrent use by many Python threads (the GIL is released
    while Go decodes). Freed by close(), by garbage collection, or at exit.
    """

    def __init__(self, handle, source=None):
        self._h = handle
        self.source = source
        self._labels = None
        self._ids = None
        self._reads = None
        self._fin = weakref.finalize(self, _lib.close, handle)

    @classmethod
    def open(cls, path):
        """Opens a model file of any format the toolkit reads."""
        h = _lib._u64()
        _lib.call(_lib.lib().st_model_open, str(path).encode("utf-8", "surrogateescape"), ctypes.byref(h))
        return cls(h.value, str(path))

    @classmethod
    def from_bytes(cls, data):
        data = bytes(data)
        h = _lib._u64()
        _lib.call(_lib.lib().st_model_open_bytes, data, len(data), ctypes.byref(h))
        return cls(h.value)

    @property
    def closed(self):
        return self._h is None

    def close(self):
        if self._h is not None:
            self._fin()
            self._h = None

    def _handle(self, exc=ValueError):
        if self._h is None:
            raise exc("the model is closed")
        return self._h

    def labels(self):
        if self._labels is None:
            out, n = _lib.out_string(), _lib._i64()
            _lib.call(_lib.lib().st_model_labels, self._handle(), ctypes.byref(out), ctypes.byref(n))
            data = _lib.take_bytes(out, n)
            self._labels = data[:-1].decode("utf-8", "surrogateescape").split("\0") if data else []
            self._ids = {l: i for i, l in enumerate(self._labels)}
        return list(self._labels)

    def label_ids(self, yseq):
        if self._ids is None:
            self.labels()
        try:
            return array.array("i", [self._ids[y] for y in yseq])
        except KeyError as e:
            raise ValueError("unknown label %r" % (e.args[0],))

    def summary(self):
        out = _lib.out_string()
        _lib.call(_lib.lib().st_model_info, self._handle(), ctypes.byref(out))
        return json.loads(_lib.take_string(out))

    def tag_encoded(self, enc):
        # The hot path of Tagger.tag and CRF.predict: _lib.call inlined.
        h = self._handle()
        n = enc.n
        out = array.array("i", bytes(4 * n))
        err = ctypes.c_void_p()
        rc = _lib.lib().st_model_tag(h, *enc.args(), out.buffer_info()[0] if n else None, ctypes.byref(err))
        if rc != 0:
            _lib.raise_error(rc, err)
        if self._labels is None:
            self.labels()
        return list(map(self._labels.__getitem__, out))

    def marginals_encoded(self, enc):
        """Returns (rows, log Z): rows[t][y] = P(y_t = y | x)."""
        h = self._handle()
        L = len(self.labels())
        out = (ctypes.c_double * max(enc.n * L, 1))()
        lz = ctypes.c_double()
        _lib.call(_lib.lib().st_model_marginals, h, *enc.args(), ctypes.addressof(out), ctypes.byref(lz))
        flat = list(out)
        return [flat[t * L:(t + 1) * L] for t in range(enc.n)], lz.value

    def probability_encoded(self, enc, yseq):
        if len(yseq) != enc.n:
            raise ValueError("%d labels for a sequence of %d items" % (len(yseq), enc.n))
        ids = self.label_ids(yseq)
        p = ctypes.c_double()
        _lib.call(_lib.lib().st_model_probability, self._handle(), *enc.args(),
                  ids.buffer_info()[0] if enc.n else None, ctypes.byref(p))
        return p.value

    def nbest_encoded(self, enc, n):
        out = _lib.out_string()
        _lib.call(_lib.lib().st_model_nbest, self._handle(), *enc.args(), int(n), ctypes.byref(out))
        lab = self.labels()
        return [([lab[i] for i in p["labels"]], p["probability"]) for p in json.loads(_lib.take_string(out))]

    def dump_text(self):
        out = _lib.out_string()
        _lib.call(_lib.lib().st_model_dump, self._handle(RuntimeError), ctypes.byref(out))
        return _lib.take_string(out)

    def to_bytes(self, format="crfsuite"):
        out, n = _lib.out_string(), _lib._i64()
        _lib.call(_lib.lib().st_model_bytes, self._handle(), format.encode("ascii"), ctypes.byref(out), ctypes.byref(n))
        return _lib.take_bytes(out, n)

    def save(self, path, format="crfsuite"):
        """Writes the model file atomically (crfsuite or ours)."""
        _lib.call(_lib.lib().st_model_save, self._handle(), str(path).encode("utf-8", "surrogateescape"),
                  format.encode("ascii"))

    # The public extras, on raw input.

    @property
    def reads(self):
        """What the model reads: "attributes" (item dicts or lists of
        names), "columns" (token columns: CRF++, Wapiti, a template) or
        "pixels"."""
        if self._reads is None:
            self._reads = self.summary()["reads"]
        return self._reads

    def _encode(self, xseq):
        if type(xseq) is not list:  # a list, the usual input, is neither
            if isinstance(xseq, _lib.Encoded):
                return xseq
            enc = getattr(xseq, "_enc", None)  # an ItemSequence
            if enc is not None:
                return enc
        if (self._reads or self.reads) == "columns":
            return _lib.encode_columns(xseq)
        return _lib.encode_items(xseq)

    def tag(self, xseq):
        """Viterbi labels of an item sequence (python-crfsuite items)."""
        return self.tag_encoded(self._encode(xseq))

    def tag_columns(self, rows):
        """Labels of token columns (CRF++/Wapiti models, or a sparsetag
        model trained with a CRF++ template): rows[t] is the list of
        columns of token t. tag, marginals and nbest take rows too when
        the model reads columns."""
        return self.tag_encoded(_lib.encode_columns(rows))

    def marginals(self, xseq):
        """Node marginals: one {label: probability} dict per item (or
        row of token columns)."""
        rows, _ = self.marginals_encoded(self._encode(xseq))
        lab = self.labels()
        return [dict(zip(lab, r)) for r in rows]

    def nbest(self, xseq, n):
        """The n best label sequences with their probabilities, best first."""
        return self.nbest_encoded(self._encode(xseq), n)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def load(path):
    """Opens a model file: CRFsuite, sparsetag, Wapiti or CRF++ (the
    format is detected from the file)."""
    return Model.open(path)
