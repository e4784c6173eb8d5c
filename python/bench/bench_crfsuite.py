"""Side by side: sparsetag's CRF.fit against the crfsuite CLI on CoNLL-2000
with sklearn-crfsuite's tutorial features (docs/python.md, "Benchmark").

    python3 python/bench/bench_crfsuite.py --crfsuite ~/peers/bin/crfsuite --out /tmp/bench

Writes the features as CRFsuite attribute files, trains with
`crfsuite learn` and with CRF(...).fit (1 and 2 threads), tags the test set
with `crfsuite tag` and with predict, and prints one table row per run:
wall time, iterations, chunk F1 (the toolkit's `tagger eval` on the model
file each wrote, or flat F1 when --tagger is not given), peak RSS, and for
fit the tracemalloc peak of the Python heap (X and y excluded). The two
tools run one after the other, never together.
"""

import argparse
import os
import resource
import subprocess
import sys
import time
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from conftest import read_conll, sent2features, sent2labels  # noqa: E402


def escape(s):
    return s.replace("\\", "\\\\").replace(":", "\\:")


def write_attrs(path, X, y):
    with open(path, "w", encoding="utf-8") as f:
        for xs, ys in zip(X, y):
            for x, lab in zip(xs, ys):
                fields = [lab]
                for k, v in x.items():
                    if isinstance(v, str):
                        fields.append(escape(k + ":" + v))
                    else:
                        fields.append("%s:%r" % (escape(k), float(v)))
                f.write("\t".join(fields) + "\n")
            f.write("\n")


def run(cmd, **kw):
    t0 = time.time()
    r = subprocess.run(["/usr/bin/time", "-f", "%M %U"] + cmd, stderr=subprocess.PIPE, **kw)
    wall = time.time() - t0
    if r.returncode != 0:
        sys.exit("%s failed: %s" % (cmd[0], r.stderr.decode()[-2000:]))
    rss_kb, user = r.stderr.decode().strip().splitlines()[-1].split()
    r.user = float(user)
    return wall, int(rss_kb) / 1024.0, r


def f1(tagger, model, test):
    if not tagger:
        return float("nan")
    out = subprocess.run([tagger, "eval", "--model", model, test], check=True, stdout=subprocess.PIPE).stdout.decode()
    for line in out.splitlines():
        if "FB1:" in line:
            return float(line.rsplit("FB1:", 1)[1])
    return float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crfsuite", required=True)
    ap.add_argument("--tagger", help="the toolkit's tagger binary, for chunk F1 (tagger eval)")
    ap.add_argument("--out", default="/tmp/sparsetag-bench")
    ap.add_argument("--c1", type=float, default=0.1)
    ap.add_argument("--c2", type=float, default=0.1)
    ap.add_argument("--skip-crfsuite", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    train, test = read_conll("train"), read_conll("test")
    X, y = [sent2features(s) for s in train], [sent2labels(s) for s in train]
    Xt, yt = [sent2features(s) for s in test], [sent2labels(s) for s in test]
    trf, tef = os.path.join(a.out, "train.crfsuite"), os.path.join(a.out, "test.crfsuite")
    write_attrs(trf, X, y)
    write_attrs(tef, Xt, yt)
    ntok = sum(len(s) for s in test)
    print("| run | train s (CPU s) | iterations | test F1 | peak RSS MB | Python heap peak MB | tag tokens/s |")
    print("|---|---|---|---|---|---|---|")
    if not a.skip_crfsuite:
        m = os.path.join(a.out, "crfsuite.model")
        wall, rss, r = run([a.crfsuite, "learn", "-a", "lbfgs", "-p", "c1=%g" % a.c1, "-p", "c2=%g" % a.c2, "-m", m, trf],
                           stdout=subprocess.PIPE)
        iters = r.stdout.decode().count("***** Iteration #")
        twall, _, _ = run([a.crfsuite, "tag", "-m", m, tef], stdout=subprocess.DEVNULL)
        print("| crfsuite learn (CLI, 1 thread) | %.1f (%.1f) | %d | %.2f | %.0f | - | %.0f |" % (
            wall, r.user, iters, f1(a.tagger, m, tef), rss, ntok / twall))
    from sparsetag.sklearn_crfsuite import CRF
    for threads in (1, 2):
        m = os.path.join(a.out, "sparsetag-%d.crfsuite" % threads)
        crf = CRF(algorithm="lbfgs", c1=a.c1, c2=a.c2, threads=threads, model_filename=m)
        t0, c0 = time.time(), resource.getrusage(resource.RUSAGE_SELF).ru_utime
        crf.fit(X, y)
        wall, cpu = time.time() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_utime - c0
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        t0 = time.time()
        crf.predict(Xt)
        tw = time.time() - t0
        print("| CRF.fit, threads=%d | %.1f (%.1f) | %d | %.2f | %.0f (process) | | %.0f (predict) |" % (
            threads, wall, cpu, len(crf.training_log_.iterations), f1(a.tagger, m, tef), rss, ntok / tw))
    # The Python heap during fit (tracemalloc's peak beyond X and y, which
    # exist before): measured apart, since tracing slows Python down. The
    # appends and the first iterations hold the peak.
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    CRF(c1=a.c1, c2=a.c2, max_iterations=3).fit(X, y)
    heap = (tracemalloc.get_traced_memory()[1] - base) / 2**20
    tracemalloc.stop()
    print("\nPython heap peak during fit (tracemalloc, X and y excluded): %.1f MB; process peak RSS %.0f MB" % (
        heap, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0))
    # Per-call overhead of Tagger.tag on a 10-token sentence.
    t = crf.tagger_
    sent = next(s for s in Xt if len(s) == 10)
    for _ in range(200):
        t.tag(sent)
    n = 5000
    t0 = time.perf_counter()
    for _ in range(n):
        t.tag(sent)
    print("\nTagger.tag, 10-token sentence: %.1f us per call" % ((time.perf_counter() - t0) / n * 1e6))


if __name__ == "__main__":
    main()
