"""sparsetag.sklearn_crfsuite: sklearn-crfsuite 0.3.6's documented behaviour,
and the tutorial end to end on the embedded CoNLL-2000."""

import os
import pickle

import pytest

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402

from sparsetag.sklearn_crfsuite import CRF, metrics, scorers  # noqa: E402

from conftest import read_conll, sent2features, sent2labels  # noqa: E402


@pytest.fixture(scope="module")
def chunks():
    train = read_conll("train", 600)
    test = read_conll("test", 200)
    return ([sent2features(s) for s in train], [sent2labels(s) for s in train],
            [sent2features(s) for s in test], [sent2labels(s) for s in test])


def test_fit_predict(xseq, yseq):
    crf = CRF(c1=0.0, c2=0.001)
    assert crf.tagger_ is None and crf.classes_ is None
    with pytest.raises(ValueError):
        crf.predict([xseq])
    crf.fit([xseq, xseq], [yseq, yseq])
    assert crf.predict([xseq]) == [yseq]
    assert crf.predict_single(xseq) == yseq
    assert crf.score([xseq], [yseq]) == 1.0
    assert set(crf.classes_) == set(yseq)
    marg = crf.predict_marginals_single(xseq)
    assert len(marg) == len(xseq) and abs(sum(marg[0].values()) - 1) < 1e-9
    assert crf.predict_marginals([xseq]) == [marg]
    assert crf.size_ > 48 and crf.num_attributes_ == len(crf.attributes_)
    assert set(crf.attributes_) == {"walk", "shop", "clean", "солнце:не светит", "world"}
    assert ("walk", "sunny") in crf.state_features_
    assert ("sunny", "sunny") in crf.transition_features_
    assert crf.training_log_.iterations


def test_dev_set(chunks):
    X, y, Xt, yt = chunks
    crf = CRF(c1=0.1, c2=0.01, max_iterations=20)
    crf.fit(X[:200], y[:200], X_dev=Xt[:50], y_dev=yt[:50])
    last = crf.training_log_.iterations[-1]
    assert 0 < last["avg_f1"] <= 1 and 0 < last["item_accuracy_float"] <= 1
    assert "B-NP" in last["scores"]
    with pytest.raises(ValueError):
        crf.fit(X, y, X_dev=Xt)


def test_params_clone_pickle(tmpdir, xseq, yseq):
    crf = CRF(c1=0.1, c2=0.02, all_possible_transitions=True, threads=1)
    params = crf.get_params()
    assert params["c1"] == 0.1 and params["algorithm"] is None and params["threads"] == 1
    crf2 = clone(crf)
    assert crf2.get_params() == params
    crf2.set_params(c2=0.5)
    assert crf2.c2 == 0.5 and crf.c2 == 0.02
    crf.fit([xseq], [yseq])
    data = pickle.dumps(crf)
    back = pickle.loads(data)
    assert back.predict([xseq]) == crf.predict([xseq])
    assert back.state_features_ == crf.state_features_
    # An unfitted CRF pickles too.
    assert pickle.loads(pickle.dumps(CRF())).tagger_ is None
    # model_filename: fit writes the CRFsuite file, a new CRF reads it.
    path = str(tmpdir.join("m.crfsuite"))
    CRF(model_filename=path).fit([xseq], [yseq])
    assert CRF(model_filename=path).predict([xseq]) == crf.predict([xseq])


def test_unknown_algorithm_and_foreign_parameters(xseq, yseq):
    with pytest.raises(ValueError):
        CRF(algorithm="foo").fit([xseq], [yseq])
    # An argument of another algorithm: CRFsuite's "parameter not found".
    for algo, kw in (("ap", {"c1": 0.1}), ("arow", {"c2": 1.0}), ("pa", {"variance": 1.0}), ("l2sgd", {"pa_type": 1})):
        with pytest.raises(ValueError):
            CRF(algorithm=algo, **kw).fit([xseq], [yseq])


def test_metrics():
    y_true = [["A", "B"], ["B"]]
    y_pred = [["A", "A"], ["B"]]
    assert metrics.flat_accuracy_score(y_true, y_pred) == pytest.approx(2 / 3)
    assert metrics.sequence_accuracy_score(y_true, y_pred) == 0.5
    assert metrics.flat_f1_score(y_true, y_pred, average="macro") == pytest.approx(
        sklearn.metrics.f1_score(["A", "B", "B"], ["A", "A", "B"], average="macro"))
    assert metrics.flat_precision_score(y_true, y_pred, average="micro") == pytest.approx(2 / 3)
    assert metrics.flat_recall_score(y_true, y_pred, average="micro") == pytest.approx(2 / 3)
    assert metrics.flat_fbeta_score(y_true, y_pred, beta=2, average="micro") == pytest.approx(2 / 3)
    assert "A" in metrics.flat_classification_report(y_true, y_pred)


def test_grid_search_parallel(chunks):
    X, y, _, _ = chunks
    gs = GridSearchCV(CRF(max_iterations=15, threads=1), {"c1": [0.05, 0.5], "c2": [0.01]},
                      cv=2, n_jobs=2, scoring=scorers.flat_accuracy)
    gs.fit(X[:200], y[:200])
    assert gs.best_params_["c1"] in (0.05, 0.5)
    assert 0.5 < gs.best_score_ <= 1
    assert gs.best_estimator_.predict(X[:2])


def test_tutorial_conll2000(chunks):
    # sklearn-crfsuite's tutorial on the embedded CoNLL-2000: its feature
    # functions, CRF(c1=0.1, c2=0.1, all_possible_transitions=True),
    # cross_val_score, then the held-out flat F1.
    X, y, Xt, yt = chunks
    crf = CRF(algorithm="lbfgs", c1=0.1, c2=0.1, max_iterations=100, all_possible_transitions=True)
    scores = cross_val_score(crf, X, y, cv=3, scoring=scorers.flat_accuracy)
    assert len(scores) == 3 and min(scores) > 0.85
    crf.fit(X, y)
    labels = [l for l in crf.classes_ if l != "O"]
    f1 = metrics.flat_f1_score(yt, crf.predict(Xt), average="weighted", labels=labels)
    assert f1 > 0.85
    assert metrics.sequence_accuracy_score(yt, crf.predict(Xt)) > 0.3
