"""CRF.fit's time with a number of threads, and its Python heap
(docs/python.md, "Benchmark").

    python3 python/bench/bench_fit.py --threads 1 --sentences 2000 --max-iterations 60
    python3 python/bench/bench_fit.py --threads 2 --sentences 2000 --max-iterations 60
    python3 python/bench/bench_fit.py --tracemalloc --sentences 8936

Featurizes the first --sentences sentences of the embedded CoNLL-2000
training set with sklearn-crfsuite's tutorial features, then fits
CRF(c1=0.1, c2=0.1, threads=...) and prints one line: fit's wall and CPU
seconds (CPU of the whole process: Go's threads included), its iterations
and the process's peak RSS. The model does not depend on the number of
threads (the line prints a digest of its bytes), so the two runs do the
same work. With --tracemalloc, the peak of the Python heap during fit
(tracemalloc, started after X and y exist, so they are excluded) is
printed beside the peak RSS.
"""

import argparse
import hashlib
import os
import resource
import sys
import time
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from conftest import read_conll, sent2features, sent2labels  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--sentences", type=int, default=2000)
    ap.add_argument("--max-iterations", type=int, default=60)
    ap.add_argument("--tracemalloc", action="store_true")
    args = ap.parse_args()
    from sparsetag.sklearn_crfsuite import CRF

    sents = read_conll("train", args.sentences)
    X = [sent2features(s) for s in sents]
    y = [sent2labels(s) for s in sents]
    crf = CRF(c1=0.1, c2=0.1, max_iterations=args.max_iterations, threads=args.threads)
    if args.tracemalloc:
        tracemalloc.start()
    w0, c0 = time.perf_counter(), time.process_time()
    crf.fit(X, y)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    peak_py = tracemalloc.get_traced_memory()[1] if args.tracemalloc else None
    if args.tracemalloc:
        tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    digest = hashlib.sha256(crf._model.to_bytes("crfsuite")).hexdigest()[:12]
    line = "threads %d: fit %.2f s wall, %.2f s CPU, %d iterations, model %s, peak RSS %.0f MB" % (
        args.threads, wall, cpu, len(crf.training_log_.iterations), digest, rss)
    if peak_py is not None:
        line += ", Python heap peak during fit %.2f MB (%.2f%% of the peak RSS)" % (
            peak_py / 2**20, 100.0 * peak_py / 2**20 / rss)
    print(line)


if __name__ == "__main__":
    main()
