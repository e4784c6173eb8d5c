"""sparsetag.pycrfsuite: python-crfsuite 0.9.12's documented behaviour."""

import math
import os
import signal
import threading
import time

import pytest

import sparsetag
from sparsetag.pycrfsuite import ItemSequence, Tagger, Trainer

from conftest import PEER, read_conll, sent2features, sent2labels


# --- ItemSequence: items read as python-crfsuite reads them ----------------

def test_items_formats():
    seq = ItemSequence([
        {"a": 1, "b": 0.5, "t": True, "f": False},
        {"s": "x", "by": b"y"},
        ["w1", "w2"],
        {"n": {"k": "v", "x": 2.0, "l": ["p", "q"], "d": {"z": -1}, "st": {"m"}}},
        {},
    ])
    assert len(seq) == 5
    assert seq.items() == [
        {"a": 1.0, "b": 0.5, "t": 1.0, "f": 0.0},
        {"s:x": 1.0, "by:y": 1.0},
        {"w1": 1.0, "w2": 1.0},
        {"n:k:v": 1.0, "n:x": 2.0, "n:l:p": 1.0, "n:l:q": 1.0, "n:d:z": -1.0, "n:st:m": 1.0},
        {},
    ]
    assert repr(seq) == "<ItemSequence of size 5>"
    assert ItemSequence(seq).items() == seq.items()


def test_items_dicts_fast_path(model_filename):
    # Dict items of str, numbers and bools take a shortcut (seq.go's
    # seqDicts: keys and str(value) joined by C-level builtins); it reads
    # them exactly as the general path, attribute by attribute, does.
    from sparsetag import _lib
    xseq = [{"walk": 1, "shop": 0.5, "t": True, "f": False, "w": "the", "": "", "big": 12345678901234567890,
             "tiny": 1e-300, "third": 1 / 3, "neg": -0.1, "colon:key": "a:b", "ü": "ñ", "clean": -7},
            {}, {"walk": 0.25, "x": "y"}]
    fast, general = _lib.encode_items(xseq), _lib.encode_items_general(xseq)
    assert fast.kind == _lib.DICTS and general.kind == _lib.ATTRIBUTES
    assert fast.attributes() == general.attributes() and list(fast.counts) == list(general.counts)
    names, values = fast.attributes()
    assert values[names.index("third")] == 1 / 3 and values[names.index("big")] == float(12345678901234567890)
    assert "w:the" in names and ":" in names and "colon:key:a:b" in names and values[names.index("f")] == 0
    m = sparsetag.load(model_filename)
    assert m.tag(fast) == m.tag(general)
    assert m.marginals(fast) == m.marginals(general)  # the same values, to the last bit
    assert m.tag([]) == [] and len(m.tag([{}])) == 1 and len(m.tag([{}, {"walk": 1}])) == 2
    tg = Tagger()
    tg.open(model_filename)
    for _ in range(3):  # the library reuses its memory from call to call
        assert tg.tag([]) == [] and tg.tag(xseq) == m.tag(general) and tg.tag([{}]) == m.tag([{}])
    # Anything else takes the general path: bytes values, nested dicts,
    # lists, a str subclass, a non-str key.

    class S(str):
        pass

    for other in ([{"a": b"x"}], [{"a": {"b": 1}}], [["a", "b"]], [{"a": S("x")}], [{b"k": 1}]):
        assert _lib.encode_items(other).kind == _lib.ATTRIBUTES


def test_items_bad_values():
    with pytest.raises(TypeError):
        ItemSequence([{"a": None}])
    with pytest.raises(TypeError):
        ItemSequence([[{"a": 1}]])  # a list item holds names, not dicts


# --- Trainer ----------------------------------------------------------------

def test_trainer(tmpdir, xseq, yseq):
    trainer = Trainer("lbfgs", verbose=False)
    trainer.append(xseq, yseq)
    path = str(tmpdir.join("model.crfsuite"))
    assert not os.path.isfile(path)
    trainer.train(path)
    with open(path, "rb") as f:
        assert f.read(4) == b"lCRF"


def test_trainer_no_select_no_append(tmpdir):
    Trainer(verbose=False).train(str(tmpdir.join("m")))  # no crash, no model
    assert not os.path.exists(str(tmpdir.join("m")))


def test_training_messages(tmpdir, xseq, yseq):
    class Capturing(Trainer):
        def __init__(self):
            Trainer.__init__(self)
            self.messages = []

        def message(self, message):
            Trainer.message(self, message)
            self.messages.append(message)

    trainer = Capturing()
    trainer.verbose = False
    trainer.append(xseq, yseq)
    assert not trainer.messages
    trainer.train(str(tmpdir.join("model.crfsuite")))
    assert "type: CRF1d\n" in trainer.messages
    log = trainer.logparser
    assert log.featgen_num_features > 0 and log.featgen_percent == 100
    assert log.iterations and log.iterations[-1]["num"] == len(log.iterations)
    last = log.iterations[-1]
    assert last["loss"] > 0 and last["active_features"] > 0
    assert 0 <= last["gap"] < 1e-3  # the certified gap, sparsetag's addition
    assert log.training_seconds is not None and log.storing_seconds is not None
    assert [e[0] for e in log.events][:2] == ["start", "featgen_progress"]
    assert log.events[-1][0] == "end"


def test_training_message_exception(tmpdir, xseq, yseq):
    class Boom(Exception):
        pass

    class Bad(Trainer):
        def message(self, message):
            raise Boom()

    trainer = Bad()
    trainer.append(xseq, yseq)
    with pytest.raises(Boom):
        trainer.train(str(tmpdir.join("model.crfsuite")))


def test_select_and_params():
    trainer = Trainer()
    with pytest.raises(ValueError):
        trainer.select("foo")
    trainer.select("lbfgs")
    params = trainer.get_params()
    assert params["c1"] == 0.0 and params["c2"] == 1.0 and params["num_memories"] == 6
    assert params["feature.possible_states"] is False
    trainer.set_params(params)
    assert trainer.get_params() == params
    trainer.set("feature.possible_states", True)
    assert trainer.get_params()["feature.possible_states"] is True
    assert "L1" in trainer.help("c1")
    with pytest.raises(ValueError):
        trainer.help("foo")
    params["foo"] = 5
    with pytest.raises(ValueError):
        trainer.set_params(params)
    with pytest.raises(ValueError):
        trainer.set("c2", "not a number")
    assert abs(Trainer(params={"c2": 100}).get("c2") - 100) < 1e-9
    assert "threads" in trainer.params()


def test_append_length_mismatch(xseq, yseq):
    with pytest.raises(ValueError):
        Trainer().append(xseq, yseq[:-1])


def test_bad_parameter_value_at_train(tmpdir, xseq, yseq):
    trainer = Trainer(verbose=False)
    trainer.append(xseq, yseq)
    trainer.set("c2", -1)
    with pytest.raises(ValueError):
        trainer.train(str(tmpdir.join("m")))


def test_append_strstr_and_nested(tmpdir):
    trainer = Trainer(verbose=False)
    trainer.append([{"foo": "bar"}, {"baz": False}, {"foo": "bar", "baz": True}, {"baz": 0.2}],
                   ["spam", "egg", "spam", "spam"])
    path = str(tmpdir.join("m"))
    trainer.train(path)
    with Tagger().open(path) as tagger:
        info = tagger.info()
        assert set(info.attributes) == {"foo:bar", "baz"}
        assert info.state_features[("foo:bar", "spam")] > 0


# --- Tagger -----------------------------------------------------------------

def test_open_close_labels(model_filename, yseq):
    tagger = Tagger()
    with pytest.raises(ValueError):
        tagger.labels()
    with tagger.open(model_filename):
        assert set(tagger.labels()) == set(yseq)
    with pytest.raises(ValueError):
        tagger.labels()
    with pytest.raises(ValueError):
        tagger.tag([{"walk": 1}])


def test_open_errors(tmpdir):
    with pytest.raises(IOError):
        Tagger().open(str(tmpdir.join("missing")))
    with pytest.raises(ValueError):
        Tagger().open(__file__)
    for content in (b"foo", b"lCRFfoo", b"lCRFfoo" * 100, b"lCRF" + b"\xff" * 60):
        p = tmpdir.join("bad")
        p.write(content, mode="wb")
        with pytest.raises(ValueError):
            Tagger().open(str(p))
    with pytest.raises(ValueError):
        Tagger().open_inmemory(b"")
    with pytest.raises(ValueError):
        Tagger().open_inmemory(b"lCRFabc")


def test_truncated_models(model_bytes):
    # Every prefix of a valid model is refused with ValueError, never a crash.
    for n in range(0, len(model_bytes), max(1, len(model_bytes) // 97)):
        with pytest.raises(ValueError):
            Tagger().open_inmemory(model_bytes[:n])


def test_tag(model_filename, model_bytes, xseq, yseq):
    with Tagger().open(model_filename) as tagger:
        assert tagger.tag(xseq) == yseq
        assert tagger.tag(ItemSequence(xseq)) == yseq
        assert tagger.tag([]) == []
        # Bools are 1 and 0.
        bools = [{k: bool(v) if v in (0, 1) else v for k, v in x.items()} for x in xseq]
        assert tagger.tag(bools) == yseq
        # Lists of names drop the values: other labels here.
        assert tagger.tag([list(x.keys()) for x in xseq]) != yseq
    with Tagger().open_inmemory(model_bytes) as tagger:
        assert tagger.tag(xseq) == yseq


def test_probability_marginal(model_filename, xseq, yseq):
    with Tagger().open(model_filename) as tagger:
        best = tagger.tag(xseq)
        p = tagger.probability(best)
        p2 = tagger.probability([yseq[0]] * len(yseq))
        assert 0 < p2 < p < 1
        for t in range(len(xseq)):
            s = sum(tagger.marginal(y, t) for y in tagger.labels())
            assert abs(s - 1) < 1e-9
        with pytest.raises(ValueError):
            tagger.marginal("sunny", len(xseq))
        with pytest.raises(ValueError):
            tagger.probability(best[:-1])
        with pytest.raises(ValueError):
            tagger.probability(["nope"] * len(xseq))
        # The n best paths: the best first, probabilities decreasing, the
        # first equal to probability(best).
        nb = tagger.nbest(3)
        assert nb[0][0] == best and abs(nb[0][1] - p) < 1e-12
        assert nb[0][1] >= nb[1][1] >= nb[2][1]
        rows = tagger.marginals()
        assert len(rows) == len(xseq) and abs(rows[0]["sunny"] - tagger.marginal("sunny", 0)) < 1e-15


def test_dump_info(tmpdir, model_filename):
    with Tagger().open(model_filename) as tagger:
        path = str(tmpdir.join("dump.txt"))
        tagger.dump(path)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        assert "LABELS = {" in text and "солнце:не светит --> rainy:" in text
        info = tagger.info()
        assert info.transitions[("sunny", "sunny")] > info.transitions[("sunny", "rainy")]
        assert info.state_features[("walk", "sunny")] > info.state_features[("walk", "rainy")]
        assert info.header["num_labels"] == "3"
        assert set(info.labels) == {"sunny", "rainy", "好"}
        assert set(info.attributes) == {"shop", "walk", "clean", "солнце:не светит", "world"}
    with pytest.raises(RuntimeError):
        tagger.dump(path)
    with pytest.raises(RuntimeError):
        tagger.info()


def test_peer_models():
    # CRFsuite, Wapiti and CRF++ files written by the tools themselves.
    seqs = read_conll("test", 5)
    crf = sparsetag.load(os.path.join(PEER, "conll.crfsuite.gz"))
    assert crf.summary()["format"] == "CRFsuite"
    for name in ("conll.wapiti.gz", "conll.crfpp.gz", "conll.crfpp.txt.gz"):
        m = sparsetag.load(os.path.join(PEER, name))
        assert m.summary()["reads"] == "columns"
        for s in seqs:
            # The tools saw the gold chunk column as a third column.
            tags = m.tag_columns([list(t) for t in s])
            assert len(tags) == len(s) and set(tags) <= set(m.labels())
        with pytest.raises(ValueError):
            m.tag([{"a": 1}])
        m.close()


def test_concurrent_tagging(model_filename, xseq, yseq):
    # One model serves many threads (the GIL is released while Go tags).
    m = sparsetag.load(model_filename)
    errors = []

    def work():
        try:
            for _ in range(200):
                assert m.tag(xseq) == yseq
        except Exception as e:  # pragma: no cover
            errors.append(e)

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    m.close()
    with pytest.raises(ValueError):
        m.tag(xseq)


def test_write_back_formats(tmpdir, model_filename, xseq, yseq):
    m = sparsetag.load(model_filename)
    ours = str(tmpdir.join("m.sparsetag"))
    m.save(ours, "ours")
    m2 = sparsetag.load(ours)
    assert m2.tag(xseq) == yseq
    assert m2.to_bytes("crfsuite") == m.to_bytes("crfsuite")
    with open(model_filename, "rb") as f:
        assert f.read() == m.to_bytes("crfsuite")


# --- Interrupts -------------------------------------------------------------

def _chunk_data(n):
    sents = read_conll("train", n)
    return [sent2features(s) for s in sents], [sent2labels(s) for s in sents]


class _StopAt(Trainer):
    def __init__(self, at):
        Trainer.__init__(self, verbose=True, params={"c1": 0.1, "c2": 0.01, "epsilon": 1e-12, "delta": 0, "threads": 1})
        self.at = at

    def on_iteration(self, log, info):
        if info["num"] == self.at:
            raise KeyboardInterrupt()

    def on_start(self, log):
        pass

    on_featgen_progress = on_featgen_end = on_prepared = on_optimization_end = on_end = \
        lambda self, *a: None


def test_interrupt_writes_model(tmpdir):
    X, y = _chunk_data(200)
    path = str(tmpdir.join("m.crfsuite"))
    trainer = _StopAt(3)
    for xs, ys in zip(X, y):
        trainer.append(xs, ys)
    with pytest.raises(KeyboardInterrupt):
        trainer.train(path)
    assert trainer.last_run["interrupted"] and trainer.last_run["written"] == path
    assert sparsetag.load(path).tag(X[0])
    # An existing model is never replaced by an interrupted run.
    before = open(path, "rb").read()
    trainer = _StopAt(2)
    for xs, ys in zip(X, y):
        trainer.append(xs, ys)
    with pytest.raises(KeyboardInterrupt):
        trainer.train(path)
    assert open(path, "rb").read() == before
    assert trainer.last_run["written"] == path + ".interrupted"
    assert os.path.exists(path + ".interrupted")


def test_sigint(tmpdir):
    # A real Ctrl-C (SIGINT to the process) while Go trains.
    X, y = _chunk_data(1000)
    trainer = Trainer(verbose=False, params={"c1": 0.1, "c2": 0.01, "epsilon": 1e-12, "delta": 0, "threads": 1})
    for xs, ys in zip(X, y):
        trainer.append(xs, ys)
    path = str(tmpdir.join("m.crfsuite"))
    timer = threading.Timer(1.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.time()
    with pytest.raises(KeyboardInterrupt):
        trainer.train(path)
    timer.cancel()
    assert time.time() - t0 < 60
    assert trainer.last_run["interrupted"]
    if trainer.last_run["iterations"] > 0:
        assert sparsetag.load(path).tag(X[0])
    else:
        assert not os.path.exists(path)
