import gzip
import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONLL = os.path.join(REPO, "corpora", "data", "conll2000")
PEER = os.path.join(REPO, "peer", "testdata")


@pytest.fixture
def xseq():
    # Items of every kind python-crfsuite accepts: numbers, a bytes value
    # (name:value), an empty item, non-ASCII names.
    return [
        {"walk": 1, "shop": 0.5},
        {"walk": 1},
        {"walk": 1, "clean": 0.5},
        {"shop": 0.5, "clean": 0.5},
        {"walk": 0.5, "clean": 1},
        {"clean": 1, "shop": 0.1},
        {"walk": 1, "shop": 0.5},
        {},
        {"clean": 1},
        {"солнце": "не светит".encode(), "clean": 1},
        {"world": 2},
    ]


@pytest.fixture
def yseq():
    return ["sunny", "sunny", "sunny", "rainy", "rainy", "rainy", "sunny", "sunny", "rainy", "rainy", "好"]


@pytest.fixture
def model_filename(tmpdir, xseq, yseq):
    from sparsetag.pycrfsuite import Trainer
    trainer = Trainer("lbfgs", verbose=False)
    trainer.append(xseq, yseq)
    path = str(tmpdir.join("model.crfsuite"))
    trainer.train(path)
    return path


@pytest.fixture
def model_bytes(model_filename):
    with open(model_filename, "rb") as f:
        return f.read()


def read_conll(split, limit=None):
    """The embedded CoNLL-2000 split: sentences of (word, POS, chunk)."""
    sents, cur = [], []
    with gzip.open(os.path.join(CONLL, split + ".txt.gz"), "rt", encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                if cur:
                    sents.append(cur)
                    cur = []
                    if limit and len(sents) >= limit:
                        break
                continue
            cur.append(tuple(line.split(" ")))
    if cur and not (limit and len(sents) >= limit):
        sents.append(cur)
    return sents


# sklearn-crfsuite's tutorial features (word identity, suffixes, shape, POS
# in a +-1 window), written for (word, POS, label) sentences.
def word2features(sent, i):
    word, postag = sent[i][0], sent[i][1]
    features = {
        "bias": 1.0,
        "word.lower()": word.lower(),
        "word[-3:]": word[-3:],
        "word[-2:]": word[-2:],
        "word.isupper()": word.isupper(),
        "word.istitle()": word.istitle(),
        "word.isdigit()": word.isdigit(),
        "postag": postag,
        "postag[:2]": postag[:2],
    }
    if i > 0:
        w, p = sent[i - 1][0], sent[i - 1][1]
        features.update({"-1:word.lower()": w.lower(), "-1:word.istitle()": w.istitle(),
                         "-1:word.isupper()": w.isupper(), "-1:postag": p, "-1:postag[:2]": p[:2]})
    else:
        features["BOS"] = True
    if i < len(sent) - 1:
        w, p = sent[i + 1][0], sent[i + 1][1]
        features.update({"+1:word.lower()": w.lower(), "+1:word.istitle()": w.istitle(),
                         "+1:word.isupper()": w.isupper(), "+1:postag": p, "+1:postag[:2]": p[:2]})
    else:
        features["EOS"] = True
    return features


def sent2features(sent):
    return [word2features(sent, i) for i in range(len(sent))]


def sent2labels(sent):
    return [t[-1] for t in sent]
