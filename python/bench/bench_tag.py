"""Per-call cost of Tagger.tag on a 10-token sentence (docs/python.md,
"Benchmark"): a model trained on the first 1000 CoNLL-2000 sentences with
sklearn-crfsuite's tutorial features, then timeit of

- tag(xseq): what a user calls, the item dicts converted on every call;
- the conversion alone (items -> the buffers the library reads), and the
  general conversion (attribute by attribute) that dict items of str,
  numbers and bools skip;
- tag(ItemSequence): an already converted sequence;
- tag([]): the fixed cost of a call through the boundary.

With --out DIR it also writes the model (DIR/model.crfsuite) and the
sentence's attributes (DIR/sentence.json) and the buffers Python passes
(DIR/sentence.buffers) for the Go benchmarks of the same decoding
(BenchmarkTagSentence: decoding alone; BenchmarkTagSentenceBuffers: the
library's reading of the buffers too) in python/libsparsetag:

    python3 python/bench/bench_tag.py --out /tmp/tagbench
    cd python && SPARSETAG_BENCH_DIR=/tmp/tagbench go test ./libsparsetag -run '^$' -bench TagSentence -benchmem
"""

import argparse
import json
import os
import sys
import time
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from conftest import read_conll, sent2features, sent2labels  # noqa: E402


def best(stmt, number, repeat=7):
    """Microseconds per call, wall and CPU (of this process): the best of
    repeat runs of number calls each (CPU time is the better guide on a
    shared machine)."""
    wall = min(timeit.repeat(stmt, number=number, repeat=repeat)) / number * 1e6
    cpu = min(timeit.repeat(stmt, number=number, repeat=repeat, timer=time.process_time)) / number * 1e6
    return wall, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="")
    ap.add_argument("--number", type=int, default=20000)
    args = ap.parse_args()
    from sparsetag import _lib
    from sparsetag.pycrfsuite import ItemSequence, Tagger, Trainer

    out = args.out or "/tmp"
    os.makedirs(out, exist_ok=True)
    model = os.path.join(out, "model.crfsuite")
    sents = read_conll("train", 1000)
    tr = Trainer(verbose=False, params={"c1": 0.1, "c2": 0.1, "max_iterations": 50})
    for s in sents:
        tr.append(sent2features(s), sent2labels(s))
    tr.train(model)
    sent = next(s for s in read_conll("test") if len(s) == 10)
    xseq = sent2features(sent)
    tg = Tagger()
    tg.open(model)
    enc = ItemSequence(xseq)
    n = args.number
    rows = [
        ("tag(xseq)", best(lambda: tg.tag(xseq), n)),
        ("conversion alone", best(lambda: _lib.encode_items(xseq), n)),
        ("general conversion", best(lambda: _lib.encode_items_general(xseq), n)),
        ("tag(ItemSequence)", best(lambda: tg.tag(enc), n)),
        ("tag([])", best(lambda: tg.tag([]), n)),
    ]
    print("10-token sentence, %d attributes; microseconds per call, the best of 7 runs of %d calls"
          % (sum(len(x) for x in enc.items()), n))
    print("%-20s %8s %8s" % ("", "wall", "CPU"))
    for name, (wall, cpu) in rows:
        print("%-20s %8.2f %8.2f" % (name, wall, cpu))
    if args.out:
        with open(os.path.join(out, "sentence.json"), "w") as f:
            json.dump(enc.items(), f)
        # The buffers a tag(xseq) call hands the library (seq.go's kinds).
        fast = _lib.encode_items(xseq)
        with open(os.path.join(out, "sentence.buffers"), "w") as f:
            json.dump({"kind": fast.kind, "buf": list(fast.buf), "counts": list(fast.counts), "flags": list(fast.values)}, f)


if __name__ == "__main__":
    main()
