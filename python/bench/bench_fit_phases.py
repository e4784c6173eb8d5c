"""CPU seconds of Trainer.train's phases with lbfgs (docs/python.md,
"Benchmark"): what fit does on one thread and what it does on several.

    python3 python/bench/bench_fit_phases.py --threads 1 --max-iterations 60
    SPARSETAG_CPUPROFILE=/tmp/fit.prof python3 python/bench/bench_fit_phases.py --threads 1 --max-iterations 60
    go tool pprof -top -cum PATH/TO/libsparsetag.so /tmp/fit.prof

Featurizes the first --sentences sentences of the embedded CoNLL-2000
training set with sklearn-crfsuite's tutorial features, appends them to a
Trainer (c1 = c2 = 0.1) and trains. One line: the CPU seconds of the
phases, from the training log's first lines:

- append: the main thread's CPU (time.thread_time: Python's conversion of
  the items and the library's reading of them in the call; the critical
  path of appending), and the process's (other threads included: Go's
  garbage collector and the library's encoding of the sequences while
  they are appended);
- gen: from train() to the end of feature generation (its log's
  "Seconds required"), the process's CPU;
- warm: from there to the end of the first iteration (the solver's setup,
  its SGD warm start, the evaluation of its starting point and the first
  iteration; the profile splits them);
- iters: the rest (the other iterations, storing the model);

then the same phases' wall seconds, the peak RSS and a digest of the model
file (the same at any --threads).
"""

import argparse
import hashlib
import os
import resource
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from conftest import read_conll, sent2features, sent2labels  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--sentences", type=int, default=8936)
    ap.add_argument("--max-iterations", type=int, default=60)
    args = ap.parse_args()
    from sparsetag import pycrfsuite

    sents = read_conll("train", args.sentences)
    X = [sent2features(s) for s in sents]
    y = [sent2labels(s) for s in sents]
    tr = pycrfsuite.Trainer(verbose=False)
    tr.set_params({"c1": 0.1, "c2": 0.1, "max_iterations": args.max_iterations, "threads": args.threads})
    t0, c0, w0 = time.thread_time(), time.process_time(), time.perf_counter()
    for xseq, yseq in zip(X, y):
        tr.append(xseq, yseq)
    t1, c1, w1 = time.thread_time(), time.process_time(), time.perf_counter()
    marks = {}

    def message(m):
        if "gen" not in marks and "Seconds required: " in m:
            marks["gen"] = (time.process_time() - c1, time.perf_counter() - w1)
        if "***** Iteration #1 " in m:
            marks["it1"] = (time.process_time() - c1, time.perf_counter() - w1)

    tr.message = message
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model.crfsuite")
        tr.train(path)
        c2, w2 = time.process_time(), time.perf_counter()
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:12]
    g, i1 = marks["gen"], marks.get("it1", (c2 - c1, w2 - w1))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print("threads %d: CPU s: append %.2f main thread (%.2f process), gen %.2f, warm %.2f, iters %.2f | "
          "wall s: append %.2f, gen %.2f, warm %.2f, iters %.2f | peak RSS %d MB | model %s" % (
              args.threads, t1 - t0, c1 - c0, g[0], i1[0] - g[0], c2 - c1 - i1[0],
              w1 - w0, g[1], i1[1] - g[1], w2 - w1 - i1[1], rss, digest))


if __name__ == "__main__":
    main()
