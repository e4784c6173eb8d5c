"""A drop-in for python-crfsuite (0.9.12) on sparsetag's engine.

    from sparsetag import pycrfsuite

    trainer = pycrfsuite.Trainer(verbose=False)
    trainer.append(xseq, yseq)
    trainer.set_params({"c1": 0.1, "c2": 0.01})
    trainer.train("model.crfsuite")

    tagger = pycrfsuite.Tagger()
    tagger.open("model.crfsuite")
    tagger.tag(xseq)

Items are read as python-crfsuite reads them, model files are CRFsuite's
format (interchangeable with python-crfsuite and the crfsuite CLI).
Inside, CRFsuite's defaults apply (lbfgs: c1 = 0, c2 = 1, observed
attribute-label pairs); differences are listed in docs/python.md.
"""

import contextlib
import ctypes
import json
import sys
import weakref

from . import _lib
from ._logs import LabelScore, ParsedDump, TrainLogParser, parse_dump  # noqa: F401
from ._model import Model

CRFSUITE_VERSION = "0.12 (sparsetag)"

__all__ = ["ItemSequence", "BaseTrainer", "Trainer", "Tagger", "CRFSuiteError", "CRFSUITE_VERSION"]


class CRFSuiteError(Exception):
    """Raised by Trainer.train for an error of the training itself."""

    def __init__(self, message, code=None):
        Exception.__init__(self, message)
        self.code = code


class ItemSequence(object):
    """A sequence of items, converted once: pass it to Trainer.append and
    Tagger.tag/set many times without converting again.

    >>> ItemSequence([["foo"], {"bar": {"baz": 1}}]).items()
    [{'foo': 1.0}, {'bar:baz': 1.0}]
    """

    def __init__(self, pyseq):
        self._enc = pyseq._enc if isinstance(pyseq, ItemSequence) else _lib.encode_items(pyseq)

    def items(self):
        """The attributes of every item: a list of {name: value} dicts."""
        names, vals = self._enc.attributes()
        out, at = [], 0
        for n in self._enc.counts:
            out.append({names[k]: vals[k] for k in range(at, at + n)})
            at += n
        return out

    def __len__(self):
        return self._enc.n

    def __repr__(self):
        return "<ItemSequence of size %d>" % len(self)


def _encode(xseq):
    if isinstance(xseq, ItemSequence):
        return xseq._enc
    return _lib.encode_items(xseq)


def _intbool(v):
    return bool(int(v))


_CAST = {"float": float, "int": int, "bool": _intbool, "string": str}


class BaseTrainer(object):
    """Collects training sequences and trains a model file.

    Parameters
    ----------
    algorithm : str
        CRFsuite's: 'lbfgs' (L-BFGS, OWL-QN when c1 > 0: sparsetag's
        certified elastic net), 'l2sgd' (SGD with L2 regularization),
        'ap' ('averaged-perceptron'), 'pa' ('passive-aggressive') or
        'arow'; each has CRFsuite's parameters and defaults (params(),
        help()).
    params : dict, optional
        Training parameters (set_params).
    verbose : bool
        Whether message() prints the training log.
    """

    def __new__(cls, *args, **kwargs):
        # The Go side exists before __init__, so that a subclass whose
        # __init__ does not call ours still works (as with python-crfsuite,
        # whose state is set up by Cython's __cinit__).
        self = object.__new__(cls)
        self._algorithm = "lbfgs"
        self._table = _lib.params_table("lbfgs")
        self._values = {}
        self.verbose = True
        self._h = _lib.lib().st_trainer_new()
        self._fin = weakref.finalize(self, _lib.close, self._h)
        return self

    def __init__(self, algorithm=None, params=None, verbose=True):
        if algorithm is not None:
            self.select(algorithm)
        if params is not None:
            self.set_params(params)
        self.verbose = verbose

    def message(self, message):
        """Receives the training log, message by message; prints it when
        verbose. Override to capture it."""
        if self.verbose:
            print(message, end="")

    def append(self, xseq, yseq, group=0, weight=None):
        """Adds a training sequence: items and their labels (as many).

        weight (a sparsetag extra) is CRFsuite's instance weight (its
        @weight:w lines): a finite number above 0 and at most 1e6 that
        scales the sequence's loss and updates in l2sgd, ap, pa and arow;
        lbfgs refuses weights other than 1 at train().
        """
        self._append(_encode(xseq), yseq, group, weight)

    def append_columns(self, rows, yseq, group=0, weight=None):
        """Adds a training sequence of token columns (a sparsetag extra):
        rows[t] is the list of strings of token t (a CoNLL-like row
        without its label), read by the CRF++ template of the parameter
        'template'. A trainer's sequences are all items or all columns.
        """
        self._append(_lib.encode_columns(rows), yseq, group, weight)

    def _append(self, enc, yseq, group, weight):
        yseq = list(yseq)
        if len(yseq) != enc.n:
            raise ValueError("The numbers of items and labels differ: |x| = %d, |y| = %d" % (enc.n, len(yseq)))
        for y in yseq:
            if not isinstance(y, (str, bytes)):
                raise TypeError("labels must be str, got %s" % type(y).__name__)
        labels = _lib.encode_strings(yseq)
        if weight is None:
            weight = 0.0  # not given (1)
        elif isinstance(weight, bool) or not isinstance(weight, (int, float)):
            raise TypeError("weight must be a number, got %s" % type(weight).__name__)
        elif not weight > 0:
            raise ValueError("sequence weight: %r is not positive (drop the sequence instead)" % (weight,))
        _lib.call(_lib.lib().st_trainer_append, self._h, *enc.args(), labels, len(labels), int(group), float(weight))

    def select(self, algorithm, type="crf1d"):
        """Chooses the training algorithm (its parameters start from their
        defaults)."""
        if type != "crf1d":
            raise ValueError("Bad arguments: algorithm=%r, type=%r (only crf1d)" % (algorithm, type))
        if not isinstance(algorithm, str):
            raise ValueError("Bad arguments: algorithm=%r" % (algorithm,))
        try:
            table = _lib.params_table(algorithm)
        except ValueError as e:
            raise ValueError("Bad arguments: algorithm=%r, type=%r: %s" % (algorithm, type, e))
        self._algorithm = {"ap": "averaged-perceptron", "pa": "passive-aggressive"}.get(algorithm.lower(), algorithm.lower())
        self._table = table
        self._values = {}

    def params(self):
        """The parameter names of the selected algorithm."""
        return [p["name"] for p in self._table]

    def _param(self, name):
        for p in self._table:
            if p["name"] == name:
                return p
        raise ValueError("Parameter not found: %s" % name)

    def set(self, name, value):
        """Sets a parameter (values as python-crfsuite takes them; a bool
        is 0 or 1)."""
        p = self._param(name)
        if isinstance(value, bool):
            value = int(value)
        text = str(value)
        try:
            if p["type"] in ("int", "bool"):
                float(text) if "." in text or "e" in text.lower() else int(text)
            elif p["type"] == "float":
                float(text)
            elif p.get("choices") and text not in p["choices"]:
                raise ValueError(text)
        except ValueError:
            raise ValueError("Bad value for parameter %s: %r" % (name, value))
        self._values[name] = text

    def get(self, name):
        """The value of a parameter, typed."""
        p = self._param(name)
        text = self._values.get(name, p["default"])
        cast = _CAST[p["type"]]
        if p["type"] in ("int", "bool"):
            return cast(int(float(text)))
        return cast(text)

    def help(self, name):
        """The description of a parameter."""
        return self._param(name)["help"]

    def get_params(self):
        return {name: self.get(name) for name in self.params()}

    def set_params(self, params):
        for k, v in params.items():
            self.set(k, v)

    def clear(self):
        """Removes every training sequence."""
        _lib.call(_lib.lib().st_trainer_clear, self._h)

    def _before_train(self):
        pass

    def train(self, model, holdout=-1):
        """Trains on the sequences appended (those of group holdout, when
        >= 0, are held out and evaluated at every iteration) and writes
        the model to the file model (none when model is empty).

        A KeyboardInterrupt stops training gracefully under the toolkit's
        interrupt rule: the best point so far is written to model, or to
        model + '.interrupted' when model exists (an existing file is never
        replaced by an interrupted run), nothing before the first
        iteration; then the KeyboardInterrupt is raised again.
        """
        self._before_train()
        self._trained = self._run(model or "", holdout)
        if self._trained is not None:
            self._trained.close()
            self._trained = None

    def _run(self, model, holdout, keep=False):
        lib = _lib.lib()
        job = _lib._u64()
        _lib.call(lib.st_train_start, self._h, self._algorithm.encode("ascii"),
                  json.dumps(self._values).encode("utf-8"),
                  str(model).encode("utf-8", "surrogateescape"), int(holdout), ctypes.byref(job))
        job = job.value
        pending = None
        try:
            while True:
                try:
                    done = self._poll(job)
                except KeyboardInterrupt as e:
                    lib.st_job_interrupt(job)
                    pending = e
                    continue
                except BaseException as e:
                    lib.st_job_interrupt(job)
                    pending = e
                    continue
                if done:
                    break
            info, handle = _lib.out_string(), _lib._u64()
            _lib.call(lib.st_job_result, job, ctypes.byref(info), ctypes.byref(handle))
            self.last_run = json.loads(_lib.take_string(info))
        finally:
            _lib.close(job)
        m = Model(handle.value) if handle.value else None
        if pending is not None:
            if m is not None and not keep:
                m.close()
            if isinstance(pending, KeyboardInterrupt):
                self.interrupted_model = m if keep else None
            raise pending
        return m

    def _poll(self, job):
        out, done = _lib.out_string(), _lib._int()
        _lib.call(_lib.lib().st_job_wait, job, 200, ctypes.byref(out), ctypes.byref(done))
        text = _lib.take_string(out)
        if text:
            for msg in text.split("\x1e")[:-1]:
                for line in msg.splitlines(True):
                    self.message(line)
        return done.value != 0


class Trainer(BaseTrainer):
    """BaseTrainer whose log is parsed (logparser, a TrainLogParser) and
    dispatched to the on_* hooks (which print by default, when verbose)."""

    logparser = None

    def _before_train(self):
        self.logparser = TrainLogParser()

    def message(self, message):
        event = self.logparser.feed(message)
        if not self.verbose or event is None:
            return
        log = self.logparser.last_log
        if event == "featgen_progress":
            self.on_featgen_progress(log, self.logparser.featgen_percent)
        elif event == "iteration":
            self.on_iteration(log, self.logparser.last_iteration)
        else:
            getattr(self, "on_" + event)(log)

    def on_start(self, log):
        print(log, end="")

    def on_featgen_progress(self, log, percent):
        print(log, end="")

    def on_featgen_end(self, log):
        print(log, end="")

    def on_prepared(self, log):
        print(log, end="")

    def on_prepare_error(self, log):
        print(log, end="")

    def on_iteration(self, log, info):
        print(log, end="")

    def on_optimization_end(self, log):
        print(log, end="")

    def on_end(self, log):
        print(log, end="")


class Tagger(object):
    """Tags item sequences with a model: open a file (any format sparsetag
    reads) or bytes, then tag, probability, marginal."""

    def __init__(self):
        self._m = None
        self._enc = None
        self._marg = None

    @classmethod
    def _of(cls, model):
        t = cls()
        t._m = model
        return t

    def open(self, name):
        """Opens a model file; returns a context manager that closes it."""
        with open(name, "rb"):
            pass  # OSError (IOError) for a file that cannot be read
        self.close()
        self._m = Model.open(name)
        return contextlib.closing(self)

    def open_inmemory(self, value):
        """Opens a model from the bytes of its file."""
        if not isinstance(value, bytes):
            raise TypeError("open_inmemory takes bytes")
        self.close()
        self._m = Model.from_bytes(value)
        return contextlib.closing(self)

    def close(self):
        if self._m is not None:
            self._m.close()
        self._m, self._enc, self._marg = None, None, None

    def _model(self, exc=ValueError):
        if self._m is None or self._m.closed:
            raise exc("The tagger is closed (open a model first)")
        return self._m

    def labels(self):
        """The labels of the model."""
        return self._model().labels()

    def set(self, xseq):
        """Sets the sequence that tag(), probability() and marginal() use
        (items, or token columns for a model that reads them: CRF++,
        Wapiti, or trained with a template)."""
        self._enc = self._model()._encode(xseq)
        self._marg = None

    def tag(self, xseq=None):
        """The Viterbi labels of xseq (or of the current sequence)."""
        m = self._model()
        if xseq is not None:
            self.set(xseq)
        if self._enc is None:
            raise ValueError("no sequence set")
        return m.tag_encoded(self._enc)

    def probability(self, yseq):
        """P(yseq | current sequence)."""
        m = self._model()
        if self._enc is None:
            raise ValueError("no sequence set")
        return m.probability_encoded(self._enc, list(yseq))

    def marginal(self, y, pos):
        """P(y at position pos | current sequence)."""
        m = self._model()
        if self._enc is None:
            raise ValueError("no sequence set")
        if not 0 <= pos < self._enc.n:
            raise ValueError("position %d out of range [0, %d)" % (pos, self._enc.n))
        if self._marg is None:
            self._marg, _ = m.marginals_encoded(self._enc)
        ids = m.label_ids([y])
        return self._marg[pos][ids[0]]

    # sparsetag extras.

    def marginals(self, xseq=None):
        """Every node marginal: a {label: probability} dict per item."""
        m = self._model()
        if xseq is not None:
            self.set(xseq)
        if self._marg is None:
            self._marg, _ = m.marginals_encoded(self._enc)
        lab = m.labels()
        return [dict(zip(lab, r)) for r in self._marg]

    def nbest(self, n, xseq=None):
        """The n best label sequences and their probabilities."""
        m = self._model()
        if xseq is not None:
            self.set(xseq)
        return m.nbest_encoded(self._enc, n)

    def dump(self, filename=None):
        """Writes the model as crfsuite dump prints it (to stdout when
        filename is None)."""
        text = self._model(RuntimeError).dump_text()
        if filename is None:
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            with open(filename, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)

    def info(self):
        """The model's weights and names (a ParsedDump)."""
        return parse_dump(self._model(RuntimeError).dump_text())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
