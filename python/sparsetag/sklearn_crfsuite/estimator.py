"""The CRF estimator."""

import os

from .. import pycrfsuite
from .._model import Model

try:
    from sklearn.base import BaseEstimator
except ImportError:  # the estimator works without scikit-learn, as sklearn-crfsuite's did
    class BaseEstimator(object):
        pass


# Constructor argument -> CRFsuite parameter.
_PARAMS = [
    ("min_freq", "feature.minfreq"),
    ("all_possible_states", "feature.possible_states"),
    ("all_possible_transitions", "feature.possible_transitions"),
    ("c1", "c1"),
    ("c2", "c2"),
    ("max_iterations", "max_iterations"),
    ("num_memories", "num_memories"),
    ("epsilon", "epsilon"),
    ("period", "period"),
    ("delta", "delta"),
    ("linesearch", "linesearch"),
    ("max_linesearch", "max_linesearch"),
    ("calibration_eta", "calibration.eta"),
    ("calibration_rate", "calibration.rate"),
    ("calibration_samples", "calibration.samples"),
    ("calibration_candidates", "calibration.candidates"),
    ("calibration_max_trials", "calibration.max_trials"),
    ("pa_type", "type"),
    ("c", "c"),
    ("error_sensitive", "error_sensitive"),
    ("averaging", "averaging"),
    ("variance", "variance"),
    ("gamma", "gamma"),
    ("threads", "threads"),
    ("template", "template"),
    ("path", "path"),
    ("path_min_ratio", "path.min_ratio"),
    ("path_folds", "path.folds"),
]


class _LineTrainer(pycrfsuite.Trainer):
    """Prints one line per iteration when verbose."""

    def on_start(self, log):
        pass

    def on_featgen_progress(self, log, percent):
        pass

    def on_featgen_end(self, log):
        pass

    def on_prepared(self, log):
        pass

    def on_iteration(self, log, info):
        parts = ["Iter %d" % info["num"], "time=%.2f" % info.get("time", 0)]
        if "loss" in info:
            parts.append("loss=%.2f" % info["loss"])
        if "active_features" in info:
            parts.append("active=%d" % info["active_features"])
        if "feature_norm" in info:
            parts.append("feature_norm=%.2f" % info["feature_norm"])
        if "gap" in info:
            parts.append("gap=%.2e" % info["gap"])
        if "avg_f1" in info:
            parts.append("precision=%.3f recall=%.3f f1=%.3f" % (info["avg_precision"], info["avg_recall"], info["avg_f1"]))
        print("  ".join(parts))

    def on_optimization_end(self, log):
        print(log, end="")

    def on_end(self, log):
        pass


class CRF(BaseEstimator):
    """A linear-chain CRF as a scikit-learn estimator, sklearn-crfsuite's
    CRF on sparsetag's engine.

    The constructor takes sklearn-crfsuite 0.3.6's arguments, each None
    meaning CRFsuite's default for the algorithm (lbfgs: c1 = 0, c2 = 1,
    max_iterations unlimited, num_memories 6, epsilon 1e-5, period 10,
    delta 1e-5), plus threads (training threads; None: every core).
    algorithm is one of CRFsuite's: 'lbfgs' (None; sparsetag's certified
    elastic net), 'l2sgd', 'ap', 'pa' or 'arow'; an argument the
    algorithm does not take (c1 with 'ap', ...) raises ValueError in fit,
    as with sklearn-crfsuite.

    template (a sparsetag extra): a CRF++ template (its text); then each
    sequence of X is a list of token rows (lists of str: the columns of a
    CoNLL-like file without the label), not of item dicts, and the model
    file is in sparsetag's format (CRFsuite's cannot hold a template).

    path, path_min_ratio (sparsetag extras, lbfgs): fit solves the elastic
    net along path penalties, c1 from c1_max down to path_min_ratio
    c1_max at the ratio c2/c1 given; with X_dev and y_dev each model is
    scored on them (chunk F1 or token accuracy), the path stops once the
    score has peaked and the best model is kept (path_: one dict per
    penalty, path_selected_: the index kept). tagger train --select's
    model selection. path_folds=K (K >= 2, with path, without X_dev)
    selects the penalty by K-fold cross-validation of X instead (sequence
    i in fold i mod K; tagger train --select-folds K) and refits on all of
    X down to it; cv_ holds the grid, the scores of every fold, their
    mean, the index chosen and its c1, c2.

    model_filename: when given, fit writes the CRFsuite model file there
    (and an unfitted CRF reads an existing one); otherwise the model stays
    in memory (pickling carries it).
    """

    def __init__(self, algorithm=None, min_freq=None, all_possible_states=None, all_possible_transitions=None,
                 c1=None, c2=None, max_iterations=None, num_memories=None, epsilon=None, period=None, delta=None,
                 linesearch=None, max_linesearch=None, calibration_eta=None, calibration_rate=None,
                 calibration_samples=None, calibration_candidates=None, calibration_max_trials=None,
                 pa_type=None, c=None, error_sensitive=None, averaging=None, variance=None, gamma=None,
                 verbose=False, model_filename=None, keep_tempfiles=False, trainer_cls=None, threads=None,
                 template=None, path=None, path_min_ratio=None, path_folds=None):
        self.algorithm = algorithm
        self.min_freq = min_freq
        self.all_possible_states = all_possible_states
        self.all_possible_transitions = all_possible_transitions
        self.c1 = c1
        self.c2 = c2
        self.max_iterations = max_iterations
        self.num_memories = num_memories
        self.epsilon = epsilon
        self.period = period
        self.delta = delta
        self.linesearch = linesearch
        self.max_linesearch = max_linesearch
        self.calibration_eta = calibration_eta
        self.calibration_rate = calibration_rate
        self.calibration_samples = calibration_samples
        self.calibration_candidates = calibration_candidates
        self.calibration_max_trials = calibration_max_trials
        self.pa_type = pa_type
        self.c = c
        self.error_sensitive = error_sensitive
        self.averaging = averaging
        self.variance = variance
        self.gamma = gamma
        self.verbose = verbose
        self.model_filename = model_filename
        self.keep_tempfiles = keep_tempfiles
        self.trainer_cls = trainer_cls
        self.threads = threads
        self.template = template
        self.path = path
        self.path_min_ratio = path_min_ratio
        self.path_folds = path_folds
        self.training_log_ = None
        self.path_ = None
        self.cv_ = None
        self._model = None
        self._tagger = None
        self._info_cached = None

    def _trainer(self):
        params = {p: getattr(self, a) for a, p in _PARAMS if getattr(self, a) is not None}
        cls = self.trainer_cls or _LineTrainer
        return cls(algorithm=self.algorithm or "lbfgs", params=params, verbose=self.verbose)

    def _set_model(self, model):
        if self._tagger is not None:
            self._tagger.close()
        self._model, self._info_cached = model, None
        self._tagger = pycrfsuite.Tagger._of(model) if model is not None else None

    def fit(self, X, y, X_dev=None, y_dev=None, sample_weight=None):
        """Trains on X (lists of item dicts) and y (lists of labels); with
        X_dev and y_dev, evaluates on them at every iteration
        (training_log_). sample_weight (a sparsetag extra) weighs each
        sequence (CRFsuite's instance weight; l2sgd, ap, pa, arow). A
        KeyboardInterrupt keeps the model of the last finished iteration
        as the fitted state, then is raised again."""
        if (X_dev is None) != (y_dev is None):
            raise ValueError("Pass both X_dev and y_dev to use the holdout data")
        trainer = self._trainer()
        append = trainer.append if self.template is None else trainer.append_columns
        if sample_weight is None:
            for xseq, yseq in zip(X, y):
                append(xseq, yseq)
        else:
            X, y, sample_weight = list(X), list(y), list(sample_weight)
            if len(sample_weight) != len(X):
                raise ValueError("sample_weight has %d weights for %d sequences" % (len(sample_weight), len(X)))
            for xseq, yseq, w in zip(X, y, sample_weight):
                append(xseq, yseq, weight=w)
        if X_dev is not None:
            for xseq, yseq in zip(X_dev, y_dev):
                append(xseq, yseq, 1)
        trainer._before_train()
        path = self.model_filename or ""
        try:
            model = trainer._run(path, -1 if X_dev is None else 1, keep=True)
        except KeyboardInterrupt:
            self.training_log_ = trainer.logparser
            self._set_model(getattr(trainer, "interrupted_model", None))
            raise
        self.training_log_ = trainer.logparser
        self.path_ = trainer.last_run.get("path")
        self.path_selected_ = trainer.last_run.get("selected")
        self.cv_ = trainer.last_run.get("cv")
        self._set_model(model)
        return self

    def predict(self, X):
        """Labels of every sequence of X."""
        tag = self._require().tag
        return [tag(xseq) for xseq in X]

    def predict_single(self, xseq):
        return self._require().tag(xseq)

    def predict_marginals(self, X):
        """For every sequence, a {label: probability} dict per item."""
        return [self.predict_marginals_single(xseq) for xseq in X]

    def predict_marginals_single(self, xseq):
        return self._require().marginals(xseq)

    def score(self, X, y):
        """Accuracy over the items (see .metrics for others)."""
        from .metrics import flat_accuracy_score
        return flat_accuracy_score(y, self.predict(X))

    def _require(self):
        t = self.tagger_
        if t is None:
            raise ValueError("This CRF is not fitted yet: call fit first (or give model_filename)")
        return t

    @property
    def tagger_(self):
        """The pycrfsuite.Tagger of the fitted model (None before fit)."""
        if self._tagger is None and self.model_filename and os.path.exists(self.model_filename):
            self._set_model(Model.open(self.model_filename))
        return self._tagger

    @property
    def _info(self):
        if self.tagger_ is None:
            return None
        if self._info_cached is None:
            self._info_cached = self.tagger_.info()
        return self._info_cached

    @property
    def classes_(self):
        return None if self.tagger_ is None else self.tagger_.labels()

    @property
    def size_(self):
        return None if self._info is None else int(self._info.header["size"])

    @property
    def num_attributes_(self):
        return None if self._info is None else int(self._info.header["num_attrs"])

    @property
    def attributes_(self):
        if self._info is None:
            return None
        out = [None] * self.num_attributes_
        for name, i in self._info.attributes.items():
            out[int(i)] = name
        return out

    @property
    def state_features_(self):
        return None if self._info is None else self._info.state_features

    @property
    def transition_features_(self):
        return None if self._info is None else self._info.transitions

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_tagger"] = None
        state["_info_cached"] = None
        state["_model"] = None
        m = self._model
        state["_model_bytes"] = None
        if m is not None and not m.closed:
            # A template model has no CRFsuite form: sparsetag's format.
            state["_model_bytes"] = m.to_bytes("crfsuite" if m.reads != "columns" else "ours")
        return state

    def __setstate__(self, state):
        data = state.pop("_model_bytes", None)
        self.__dict__.update(state)
        self._model, self._tagger, self._info_cached = None, None, None
        if data is not None:
            self._set_model(Model.from_bytes(data))
