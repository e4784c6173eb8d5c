"""CRFsuite's five training algorithms from Python: every estimator
feature with each (as sklearn-crfsuite's own tests run them), their
parameters, the training log and hooks, sequence weights and a
KeyboardInterrupt during an online algorithm."""

import os
import pickle

import pytest

import sparsetag
from sparsetag.pycrfsuite import Trainer

from conftest import read_conll, sent2features, sent2labels

ALGORITHMS = ["lbfgs", "l2sgd", "pa", "ap", "arow"]
ONLINE = ["l2sgd", "pa", "ap", "arow"]

sklearn = pytest.importorskip("sklearn")
from sparsetag.sklearn_crfsuite import CRF  # noqa: E402


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_crf(xseq, yseq, algorithm):
    crf = CRF(algorithm=algorithm)
    crf.fit([xseq], [yseq])
    y_pred = crf.predict([xseq])
    if algorithm != "ap":  # the averaged perceptron is too regularized for this one sequence (sklearn-crfsuite's note)
        assert y_pred == [yseq]
    assert len(y_pred[0]) == len(yseq) and set(y_pred[0]) <= set(yseq)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_crf_marginals(xseq, yseq, algorithm):
    crf = CRF(algorithm=algorithm)
    crf.fit([xseq], [yseq])
    marginals = crf.predict_marginals([xseq])[0]
    assert len(marginals) == len(yseq)
    labels = crf.tagger_.labels()
    for m in marginals:
        assert set(m) == set(labels)
        assert abs(sum(m.values()) - 1.0) < 1e-6


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_predict_without_fit(xseq, algorithm):
    with pytest.raises(Exception):
        CRF(algorithm=algorithm).predict([xseq])


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("use_dev", [True, False])
def test_crf_verbose(xseq, yseq, algorithm, use_dev, capsys):
    crf = CRF(algorithm=algorithm, verbose=True)
    if use_dev:
        crf.fit([xseq, xseq], [yseq, yseq], X_dev=[xseq], y_dev=[yseq])
    else:
        crf.fit([xseq, xseq], [yseq, yseq])
    out = capsys.readouterr().out
    assert "Iter 1 " in out
    if algorithm != "ap":
        assert crf.predict([xseq]) == [yseq]
    last = crf.training_log_.last_iteration
    assert ("avg_f1" in last) == use_dev


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_crf_model_filename(xseq, yseq, algorithm, tmpdir):
    path = str(tmpdir.join("model.crfsuite"))
    crf = CRF(algorithm=algorithm, model_filename=path)
    crf.fit([xseq], [yseq])
    assert os.path.exists(path)
    crf2 = CRF(algorithm=algorithm, model_filename=path)
    assert crf2.predict([xseq]) == crf.predict([xseq])


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_crf_dev_bad_arguments(xseq, yseq, algorithm):
    crf = CRF(algorithm=algorithm)
    with pytest.raises(ValueError):
        crf.fit([xseq], [yseq], X_dev=[xseq])
    with pytest.raises(ValueError):
        crf.fit([xseq], [yseq], y_dev=[yseq])


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_attributes(xseq, yseq, algorithm):
    crf = CRF(algorithm=algorithm)
    assert crf.tagger_ is None and crf.size_ is None and crf.classes_ is None
    crf.fit([xseq], [yseq])
    assert set(crf.classes_) == set(yseq)
    assert crf.num_attributes_ > 0 and crf.size_ > 0
    assert len(crf.attributes_) == crf.num_attributes_
    assert crf.state_features_ and crf.transition_features_
    for (attr, label), w in crf.state_features_.items():
        assert attr in crf.attributes_ and label in crf.classes_ and w != 0


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_crf_pickling(xseq, yseq, algorithm):
    crf = CRF(algorithm=algorithm)
    crf.fit([xseq], [yseq])
    back = pickle.loads(pickle.dumps(crf))
    assert back.algorithm == algorithm
    assert back.predict([xseq]) == crf.predict([xseq])
    assert back.state_features_ == crf.state_features_


def test_algorithm_arguments_change_the_model():
    # Each sklearn argument reaches its algorithm: changing it trains other
    # weights (a control that the argument is not dropped on the way).
    X, y = _chunk_data(30)
    cases = [("pa", {"c": 0.01, "pa_type": 0}, {"pa_type": 1}), ("pa", {}, {"c": 0.01}),
             ("pa", {}, {"averaging": False}), ("pa", {}, {"error_sensitive": False}),
             ("arow", {}, {"variance": 0.1}), ("arow", {}, {"gamma": 10.0}), ("ap", {}, {"max_iterations": 1}),
             ("ap", {}, {"epsilon": 0.5}), ("l2sgd", {}, {"c2": 10.0}),
             ("l2sgd", {}, {"calibration_eta": 0.01, "calibration_candidates": 1, "calibration_rate": 3.0}),
             ("l2sgd", {"max_iterations": 20}, {"period": 1, "delta": 0.5}), ("ap", {}, {"all_possible_states": True}),
             ("arow", {}, {"all_possible_transitions": True}), ("pa", {}, {"min_freq": 2})]
    for algo, base_kw, kw in cases:
        base_kw = dict({"max_iterations": 3}, **base_kw)
        base = CRF(algorithm=algo, **base_kw).fit(X, y)
        other = CRF(algorithm=algo, **dict(base_kw, **kw)).fit(X, y)
        assert (other.state_features_, other.transition_features_) != (base.state_features_, base.transition_features_), \
            (algo, kw)
    # These two choose the same learning rate here: they reach CRFsuite's
    # calibration log.
    crf = CRF(algorithm="l2sgd", max_iterations=1, calibration_samples=5, calibration_max_trials=2).fit(X, y)
    log = "".join(crf.training_log_.log)
    assert "calibration.samples: 5\n" in log and "calibration.max_trials: 2\n" in log


# --- Trainer: parameters, log and hooks per algorithm ----------------------

def test_params_per_algorithm():
    want = {
        "l2sgd": {"c2": 1.0, "max_iterations": 1000, "period": 10, "delta": 1e-6, "calibration.eta": 0.1,
                  "calibration.rate": 2.0, "calibration.samples": 1000, "calibration.candidates": 10,
                  "calibration.max_trials": 20},
        "ap": {"max_iterations": 100, "epsilon": 0.0},
        "pa": {"type": 1, "c": 1.0, "error_sensitive": True, "averaging": True, "max_iterations": 100, "epsilon": 0.0},
        "arow": {"variance": 1.0, "gamma": 1.0, "max_iterations": 100, "epsilon": 0.0},
    }
    for algo, own in want.items():
        for name in ([algo] + {"ap": ["averaged-perceptron"], "pa": ["passive-aggressive"]}.get(algo, [])):
            tr = Trainer(name)
            params = tr.get_params()
            assert {k: params[k] for k in own} == own, name
            assert tr.params()[:3] == ["feature.minfreq", "feature.possible_states", "feature.possible_transitions"]
            assert set(tr.params()) == set(own) | {"feature.minfreq", "feature.possible_states",
                                                   "feature.possible_transitions", "threads", "template", "seed"}
            assert tr.help("max_iterations")
            with pytest.raises(ValueError):
                tr.set("c1", 0.1)  # lbfgs's, not this one's
    tr = Trainer("pa")
    tr.set("error_sensitive", False)
    assert tr.get("error_sensitive") is False
    tr.select("lbfgs")  # select starts from the new algorithm's defaults
    assert tr.get("c2") == 1.0 and "type" not in tr.params()


@pytest.mark.parametrize("algo, name, value", [("pa", "type", 3), ("pa", "c", 0), ("arow", "gamma", -1),
                                               ("l2sgd", "calibration.rate", 1), ("ap", "max_iterations", 0)])
def test_out_of_range_at_train(tmpdir, xseq, yseq, algo, name, value):
    tr = Trainer(algo, verbose=False)
    tr.append(xseq, yseq)
    tr.set(name, value)  # CRFsuite's set checks the type only
    with pytest.raises(ValueError) as e:
        tr.train(str(tmpdir.join("m")))
    assert name in str(e.value)
    assert not os.path.exists(str(tmpdir.join("m")))


class _Hooks(Trainer):
    def __init__(self, algorithm, **kw):
        Trainer.__init__(self, algorithm, verbose=True, **kw)
        self.events = []

    def on_start(self, log):
        self.events.append("start")

    def on_featgen_progress(self, log, percent):
        pass

    def on_featgen_end(self, log):
        self.events.append("featgen_end")

    def on_prepared(self, log):
        self.events.append("prepared")

    def on_iteration(self, log, info):
        self.events.append(("iteration", info["num"]))

    def on_optimization_end(self, log):
        self.events.append("optimization_end")

    def on_end(self, log):
        self.events.append("end")


@pytest.mark.parametrize("algorithm", ONLINE)
def test_training_log_and_hooks(tmpdir, xseq, yseq, algorithm):
    tr = _Hooks(algorithm, params={"max_iterations": 4})
    tr.append(xseq, yseq)
    tr.append(xseq, yseq, group=1)
    tr.train(str(tmpdir.join("m.crfsuite")), holdout=1)
    n = tr.last_run["iterations"]
    assert 1 <= n <= 4
    assert tr.events == ["start", "featgen_end", "prepared"] + [("iteration", i) for i in range(1, n + 1)] + \
        ["optimization_end", "end"]
    its = tr.logparser.iterations
    assert [it["num"] for it in its] == list(range(1, n + 1))
    for it in its:
        assert "loss" in it and "feature_norm" in it and "time" in it
        assert 0 <= it["avg_f1"] <= 1 and 0 <= it["item_accuracy_float"] <= 1
    if algorithm == "l2sgd":
        assert all("learning_rate" in it for it in its)
    header = {"l2sgd": "Stochastic Gradient Descent (SGD)", "ap": "Averaged perceptron",
              "pa": "Passive Aggressive", "arow": "Adaptive Regularization of Weights (AROW)"}[algorithm]
    assert header + "\n" in tr.logparser.log


def test_seed_fixes_the_model(tmpdir):
    X, y = _chunk_data(60)

    def train(seed):
        params = {"max_iterations": 2}
        if seed is not None:
            params["seed"] = seed
        tr = Trainer("pa", verbose=False, params=params)
        for xs, ys in zip(X, y):
            tr.append(xs, ys)
        path = str(tmpdir.join("m%s" % seed))
        tr.train(path)
        return open(path, "rb").read()

    assert train(7) == train(7)
    assert train(7) != train(8)  # the order of the sequences matters to PA
    # The default order is CRFsuite's, seed 0; a seed chooses another.
    assert train(None) == train(0)
    assert train(None) != train(7)


# --- Sequence weights -------------------------------------------------------

def test_sequence_weights(tmpdir, xseq, yseq):
    X, y = [xseq, xseq[:4]], [yseq, ["rainy"] * 4]
    plain = CRF(algorithm="pa").fit(X, y)
    same = CRF(algorithm="pa").fit(X, y, sample_weight=[1, 1])
    heavy = CRF(algorithm="pa").fit(X, y, sample_weight=[1, 50])
    assert same.state_features_ == plain.state_features_
    assert heavy.state_features_ != plain.state_features_
    with pytest.raises(ValueError):
        CRF(algorithm="pa").fit(X, y, sample_weight=[1])
    with pytest.raises(ValueError):
        CRF(algorithm="pa").fit(X, y, sample_weight=[1, 0])
    with pytest.raises(ValueError):
        CRF(algorithm="pa").fit(X, y, sample_weight=[1, float("nan")])
    with pytest.raises(TypeError):
        Trainer("ap").append(xseq, yseq, weight="2")
    # lbfgs does not take weights yet: a clear error, no model.
    with pytest.raises(ValueError) as e:
        CRF(algorithm="lbfgs").fit(X, y, sample_weight=[1, 2])
    assert "weight" in str(e.value)
    CRF(algorithm="lbfgs").fit(X, y, sample_weight=[1, 1])


# --- KeyboardInterrupt during an online algorithm ---------------------------

def _chunk_data(n):
    sents = read_conll("train", n)
    return [sent2features(s) for s in sents], [sent2labels(s) for s in sents]


class _StopAtEpoch(Trainer):
    def __init__(self, algorithm, at):
        Trainer.__init__(self, algorithm, verbose=True, params={"max_iterations": 50})
        self.at = at

    def on_iteration(self, log, info):
        if info["num"] == self.at:
            raise KeyboardInterrupt()

    on_start = on_featgen_progress = on_featgen_end = on_prepared = on_optimization_end = on_end = \
        lambda self, *a: None


@pytest.mark.parametrize("algorithm", ONLINE)
def test_interrupt_keeps_last_epoch(tmpdir, algorithm):
    X, y = _chunk_data(300)
    path = str(tmpdir.join("m.crfsuite"))
    tr = _StopAtEpoch(algorithm, 2)
    for xs, ys in zip(X, y):
        tr.append(xs, ys)
    with pytest.raises(KeyboardInterrupt):
        tr.train(path)
    run = tr.last_run
    assert run["interrupted"] and run["written"] == path and run["iterations"] >= 2
    # The model written is the one of the last finished epoch: a run of
    # exactly that many epochs (same seed) writes the same bytes.
    full = Trainer(algorithm, verbose=False, params={"max_iterations": run["iterations"]})
    for xs, ys in zip(X, y):
        full.append(xs, ys)
    ref = str(tmpdir.join("ref.crfsuite"))
    full.train(ref)
    if full.last_run["iterations"] == run["iterations"]:
        assert open(path, "rb").read() == open(ref, "rb").read()
    assert sparsetag.load(path).tag(X[0])
    # CRF.fit keeps that model as its state, then raises.
    crf = CRF(algorithm=algorithm, max_iterations=50, trainer_cls=lambda **kw: _StopAtEpoch(kw["algorithm"], 2))
    with pytest.raises(KeyboardInterrupt):
        crf.fit(X, y)
    assert crf.tagger_ is not None and len(crf.predict_single(X[0])) == len(X[0])
    assert len(crf.training_log_.iterations) >= 2


# --- CRF++ templates over token columns -------------------------------------

TEMPLATE = """U00:%x[-1,0]
U01:%x[0,0]
U02:%x[1,0]
U03:%x[0,1]
U04:%x[-1,1]/%x[0,1]
U05:%x[1,1]
B
"""


@pytest.mark.parametrize("algorithm", ["lbfgs", "ap"])
def test_template_columns(tmpdir, algorithm):
    # CoNLL rows (word, POS) straight from the file, no feature dicts.
    train, test = read_conll("train", 300), read_conll("test", 100)
    X = [[list(tok[:2]) for tok in s] for s in train]
    y = [sent2labels(s) for s in train]
    Xt, yt = [[list(tok[:2]) for tok in s] for s in test], [sent2labels(s) for s in test]
    crf = CRF(algorithm=algorithm, template=TEMPLATE, max_iterations=30, c2=0.1 if algorithm == "lbfgs" else None)
    crf.fit(X, y)
    pred = crf.predict(Xt)
    acc = sum(a == b for p, t in zip(pred, yt) for a, b in zip(p, t)) / sum(map(len, yt))
    assert acc > 0.8
    marg = crf.predict_marginals_single(Xt[0])
    assert len(marg) == len(Xt[0]) and abs(sum(marg[0].values()) - 1) < 1e-9
    back = pickle.loads(pickle.dumps(crf))
    assert back.predict(Xt[:5]) == pred[:5]
    # The Trainer and the model file: sparsetag's format, read by load().
    tr = Trainer(algorithm, verbose=False, params={"template": TEMPLATE, "max_iterations": 30})
    for xs, ys in zip(X, y):
        tr.append_columns(xs, ys)
    path = str(tmpdir.join("m"))
    tr.train(path)
    m = sparsetag.load(path)
    assert m.reads == "columns" and m.tag(Xt[0]) == m.tag_columns(Xt[0])
    best = m.nbest(Xt[0], 3)
    assert len(best) == 3 and best[0][0] == m.tag(Xt[0]) and best[0][1] >= best[1][1] >= best[2][1]
    # Errors: columns without a template, a bad template, both kinds.
    tr = Trainer(algorithm, verbose=False)
    tr.append_columns(X[0], y[0])
    with pytest.raises(ValueError):
        tr.train(str(tmpdir.join("x")))
    tr.set("template", "U00:%x[0")
    with pytest.raises(ValueError):
        tr.train(str(tmpdir.join("x")))
    tr.set("template", TEMPLATE)
    tr.append({"w": 1.0}, ["O"])
    with pytest.raises(ValueError):
        tr.train(str(tmpdir.join("x")))
    assert not os.path.exists(str(tmpdir.join("x")))


# --- The elastic-net path with model selection ------------------------------

def test_path_selection():
    train, dev = read_conll("train", 300), read_conll("test", 100)
    X, y = [sent2features(s) for s in train], [sent2labels(s) for s in train]
    Xd, yd = [sent2features(s) for s in dev], [sent2labels(s) for s in dev]
    crf = CRF(c1=1.0, c2=0.1, path=8, path_min_ratio=0.01, threads=1)
    crf.fit(X, y, X_dev=Xd, y_dev=yd)
    path, best = crf.path_, crf.path_selected_
    assert 1 <= len(path) <= 8 and 0 <= best < len(path)
    assert all(a["c1"] > b["c1"] for a, b in zip(path, path[1:]))
    assert all(abs(p["c2"] / p["c1"] - 0.1) < 1e-6 for p in path)
    assert path[best]["score"] == max(p["score"] for p in path)
    assert path[0]["active_features"] <= path[-1]["active_features"]
    # The model kept is the selected point's: its score on the dev set.
    from sparsetag.sklearn_crfsuite import metrics
    labels = [l for l in crf.classes_ if l != "O"]
    assert metrics.flat_f1_score(yd, crf.predict(Xd), average="micro", labels=labels) > 0.5
    its = crf.training_log_.iterations
    assert [it["num"] for it in its] == list(range(1, len(path) + 1))
    assert its[best]["score"] == pytest.approx(path[best]["score"], abs=1e-6)
    # Without a dev set: no selection, the last point.
    crf2 = CRF(c1=1.0, c2=0.1, path=3, threads=1).fit(X, y)
    assert crf2.path_selected_ == len(crf2.path_) - 1 == 2 and "score" not in crf2.path_[0]
    with pytest.raises(ValueError):
        CRF(c1=0.0, path=3).fit(X[:5], y[:5])


def test_path_folds_selection():
    # path_folds=K: the penalty chosen by K-fold cross-validation (tagger
    # train --select-folds K). Each fold's scores are recomputed here by
    # another route of the library, a path scored on a holdout (fitPath,
    # not selection.CrossValidate): the fold's training part with its
    # held-out part as X_dev; the chosen point is the best mean of those.
    train = read_conll("train", 240)
    X, y = [sent2features(s) for s in train], [sent2labels(s) for s in train]
    K, kw = 3, dict(c1=0.5, c2=0.05, path=6, path_min_ratio=0.01, threads=1)
    crf = CRF(path_folds=K, **kw).fit(X, y)
    cv = crf.cv_
    ratios, scores = cv["ratios"], cv["scores"]
    assert cv["folds"] == K and len(ratios) == len(scores) >= 2 and cv["metric"] == "chunk f1"
    for f in range(K):
        held = [i for i in range(len(X)) if i % K == f]
        part = [i for i in range(len(X)) if i % K != f]
        ref = CRF(**kw).fit([X[i] for i in part], [y[i] for i in part],
                            X_dev=[X[i] for i in held], y_dev=[y[i] for i in held]).path_
        n = min(len(ref), len(ratios))
        assert n >= 2
        for k in range(n):
            assert ref[k]["c1"] / ref[0]["c1"] == pytest.approx(ratios[k], rel=1e-9)
            assert ref[k]["score"] == pytest.approx(scores[k][f], abs=1e-12)
    mean = [sum(s) / K for s in scores]
    chosen = mean.index(max(mean))
    assert cv["chosen"] == chosen and cv["mean"] == pytest.approx(mean, abs=1e-12)
    # The refit: a path on every sequence from c1_max down to the ratio
    # chosen, whose last model is the one kept.
    path = crf.path_
    assert len(path) == chosen + 1 and crf.path_selected_ == chosen
    assert path[-1]["c1"] / path[0]["c1"] == pytest.approx(ratios[chosen], rel=1e-9)
    assert cv["c1"] == path[-1]["c1"] and cv["c2"] == pytest.approx(0.1 * cv["c1"], rel=1e-9)
    assert len(crf.predict(X[:3])) == 3 and crf.training_log_.iterations[-1]["num"] == chosen + 1
    # Without path_folds nothing changes: no cross-validation.
    assert CRF().get_params()["path_folds"] is None and CRF(**kw).fit(X[:30], y[:30]).cv_ is None


@pytest.mark.parametrize("bad", [dict(path_folds=1), dict(path_folds=-2), dict(path_folds=3, path=0),
                                 dict(path_folds=31), dict(path_folds=3, c1=0.0), dict(path_folds="x")])
def test_path_folds_bad_arguments(bad):
    train = read_conll("train", 30)
    X, y = [sent2features(s) for s in train], [sent2labels(s) for s in train]
    kw = dict(c1=0.5, c2=0.05, path=4, threads=1)
    kw.update(bad)
    with pytest.raises(ValueError):
        CRF(**kw).fit(X, y)


def test_path_folds_refused_with_holdout_and_other_algorithms():
    train = read_conll("train", 30)
    X, y = [sent2features(s) for s in train], [sent2labels(s) for s in train]
    with pytest.raises(ValueError, match="not both"):
        CRF(c1=0.5, c2=0.05, path=4, path_folds=3).fit(X[:20], y[:20], X_dev=X[20:], y_dev=y[20:])
    with pytest.raises(ValueError):
        CRF(algorithm="ap", path_folds=3).fit(X, y)
    tr = Trainer(verbose=False)
    with pytest.raises(ValueError):
        tr.set("path.folds", "three")
    tr.set_params({"c1": 0.5, "path": 4, "path.folds": 2})
    for xseq, yseq in zip(X, y):
        tr.append(xseq, yseq)
    tr.train("")
    assert tr.last_run["cv"]["folds"] == 2 and tr.get("path.folds") == 2


def test_fit_same_model_any_threads_and_encoding_route(tmpdir):
    # lbfgs encodes the sequences of group 0 while they are appended (a
    # guess of the run: libsparsetag/pre.go) and otherwise when training
    # starts: both routes, and 1 or 2 threads, write the same bytes.
    train = read_conll("train", 200)
    X, y = [sent2features(s) for s in train], [sent2labels(s) for s in train]
    params = {"c1": 0.1, "c2": 0.1, "max_iterations": 30}
    out = []
    for threads in (1, 2):
        tr = Trainer(verbose=False, params=dict(params, threads=threads))
        for xseq, yseq in zip(X, y):
            tr.append(xseq, yseq)
        for run in range(2):  # the first run takes the guess, the second encodes again
            path = str(tmpdir.join("m%d%d" % (threads, run)))
            tr.train(path)
            with open(path, "rb") as f:
                out.append(f.read())
    # Held out: group 1 (the guess holds), and a group 2 that trains too
    # (the guess is dropped); the same data for training either way.
    for extra_group in (0, 2):
        tr = Trainer(verbose=False, params=dict(params, threads=2))
        for i, (xseq, yseq) in enumerate(zip(X, y)):
            tr.append(xseq, yseq, extra_group if i == 5 else 0)
        for xseq, yseq in zip(X[:20], y[:20]):
            tr.append(xseq, yseq, 1)
        path = str(tmpdir.join("h%d" % extra_group))
        tr.train(path, 1)
        with open(path, "rb") as f:
            out.append(f.read())
    assert len(out[0]) > 1000 and all(b == out[0] for b in out), [len(b) for b in out]
