"""Readers of the training log and of the model dump, in CRFsuite's words.

They expose what python-crfsuite's TrainLogParser and ParsedDump expose
(attributes, per-iteration dicts, events), so code written against them
keeps working; the training log of sparsetag adds its certified duality
gap to every iteration that has one ("gap").
"""

import fractions
import re
from collections import namedtuple

LabelScore = namedtuple("LabelScore", "match model ref precision recall f1")

_ITER = re.compile(r"\*{5} (?:Iteration|Epoch|Path point) #(\d+) \*{5}\n")
_SECONDS = re.compile(r"Seconds required: (\d+\.\d+)")
_FIELDS = [
    ("loss", re.compile(r"Loss: (-?\d+\.\d+)"), float),
    ("feature_norm", re.compile(r"Feature norm: (\d+\.\d+)"), float),
    ("error_norm", re.compile(r"Error norm: (\d+\.\d+)"), float),
    ("active_features", re.compile(r"Active features: (\d+)"), int),
    ("linesearch_trials", re.compile(r"Line search trials: (\d+)"), int),
    ("linesearch_step", re.compile(r"Line search step: (\d+\.\d+)"), float),
    ("time", re.compile(r"Seconds required for this iteration: (\d+\.\d+)"), float),
    ("gap", re.compile(r"Duality gap \(certified, average form\): (\S+)"), float),
    # l2sgd's epoch block.
    ("feature_norm", re.compile(r"Feature L2-norm: (\d+\.\d+)"), float),
    ("improvement_ratio", re.compile(r"Improvement ratio: (-?\d+\.\d+)"), float),
    ("learning_rate", re.compile(r"Learning rate \(eta\): (\d+\.\d+)"), float),
    # A point of lbfgs's elastic-net path (the parameter path).
    ("c1", re.compile(r"c1: (\d+\.\d+)"), float),
    ("c2", re.compile(r"c2: (\d+\.\d+)"), float),
    ("score", re.compile(r"Score \(holdout, [^)]*\): (\d+\.\d+)"), float),
]
_MACRO = re.compile(r"Macro-average precision, recall, F1: \((\d\.\d+), (\d\.\d+), (\d\.\d+)\)")
_ACC = re.compile(r"(Item|Instance) accuracy: (\d+) / (\d+)")
_LABEL = re.compile(r"\s{4}(.+): \((\d+), (\d+), (\d+)\) \((\d\.\d+), (\d\.\d+), (\d\.\d+)\)")
_LABEL0 = re.compile(r"\s{4}(.+): \(0, 0, 0\) \(\*{6}, \*{6}, \*{6}\)")


class TrainLogParser(object):
    """Follows a training log message by message.

    feed(message) returns the event the message completes, or None:
    "start", "featgen_progress", "featgen_end", "prepared",
    "prepare_error", "iteration", "optimization_end" or "end";
    last_log is the text of the last event, iterations the list of
    per-iteration dicts ("num", "loss", "time", "scores"; lbfgs:
    "active_features", "gap"; ap, pa, arow: "feature_norm"; l2sgd:
    "feature_norm", "improvement_ratio", "learning_rate"; a point of
    lbfgs's path: "c1", "c2", "active_features", "gap", "score"; with a holdout set, "avg_precision",
    "avg_recall", "avg_f1", "item_accuracy", "instance_accuracy" and
    their _float values).
    """

    def __init__(self):
        self.state = None
        self.featgen_percent = -2
        self.featgen_num_features = None
        self.featgen_seconds = None
        self.training_seconds = None
        self.storing_seconds = None
        self.iterations = []
        self.last_iteration = None
        self.log = []
        self.events = []

    @property
    def last_log(self):
        _, start, end = self.events[-1]
        return "".join(self.log[start:end])

    def feed(self, line):
        self.log.append(line)
        if self.state is None:
            self.state = "starting"
            event = "start"
            self._starting(line)
        else:
            event = getattr(self, "_" + self.state)(line)
        if event is not None:
            start = self.events[-1][2] if self.events else 0
            end = len(self.log)
            if event in ("prepared", "optimization_end"):
                end -= 1  # the line that told belongs to the next event
            if event == "start":
                start = 0
            self.events.append((event, start, end))
        return event

    def _starting(self, line):
        if line.startswith("Feature generation"):
            self.state = "featgen"

    def _featgen(self, line):
        if line and line in "0123456789.10":
            self.featgen_percent += 2
            return "featgen_progress"
        m = re.match(r"Number of features: (\d+)", line)
        if m:
            self.featgen_num_features = int(m.group(1))
            return None
        m = _SECONDS.match(line)
        if m:
            self.featgen_seconds = float(m.group(1))
            self.state = "after_featgen"
            return "featgen_end"
        if line.startswith("No training data"):
            self.state = "after_iteration"
        return None

    def _after_featgen(self, line):
        if _ITER.match(line):
            self.state = "iteration"
            self._iteration(line)
            return "prepared"
        if "terminated with error" in line:
            self.state = "after_iteration"
            return "prepare_error"
        return None

    def _iteration(self, line):
        m = _ITER.match(line)
        if m:
            self.last_iteration = {"num": int(m.group(1)), "scores": {}}
            self.iterations.append(self.last_iteration)
            return None
        if line == "\n":
            self.state = "after_iteration"
            return "iteration"
        it = self.last_iteration
        for key, rx, typ in _FIELDS:
            m = rx.match(line)
            if m:
                it[key] = typ(m.group(1))
                return None
        m = _MACRO.match(line)
        if m:
            it["avg_precision"], it["avg_recall"], it["avg_f1"] = (float(g) for g in m.groups())
            return None
        m = _ACC.match(line)
        if m:
            key = m.group(1).lower() + "_accuracy"
            it[key] = fractions.Fraction(int(m.group(2)), int(m.group(3))) if int(m.group(3)) else fractions.Fraction(0)
            it[key + "_float"] = float(it[key])
            return None
        m = _LABEL.match(line)
        if m:
            g = m.groups()
            it["scores"][g[0]] = LabelScore(int(g[1]), int(g[2]), int(g[3]), float(g[4]), float(g[5]), float(g[6]))
            return None
        m = _LABEL0.match(line)
        if m:
            it["scores"][m.group(1)] = LabelScore(0, 0, 0, None, None, None)
        return None

    def _after_iteration(self, line):
        if _ITER.match(line):
            self.state = "iteration"
            return self._iteration(line)
        m = re.match(r"Total seconds required for training: (\d+\.\d+)", line)
        if m:
            self.training_seconds = float(m.group(1))
        if line.startswith("Storing the model"):
            self.state = "storing"
            return "optimization_end"
        return None

    def _storing(self, line):
        if line == "\n":
            return "end"
        m = _SECONDS.match(line)
        if m:
            self.storing_seconds = float(m.group(1))
        return None


class ParsedDump(object):
    """A model's weights as crfsuite dump prints them: header (str
    values), labels and attributes ({name: id as str}), transitions
    ({(from, to): weight}) and state_features ({(attribute, label):
    weight}); weights have the dump's six decimals."""

    def __init__(self):
        self.header = {}
        self.labels = {}
        self.attributes = {}
        self.transitions = {}
        self.state_features = {}


_SECTION = re.compile(r"(FILEHEADER|LABELS|ATTRIBUTES|TRANSITIONS|STATE_FEATURES) = \{$")
_FEATURE = re.compile(r"\(\d+\) (.+) --> (.+): ([+-]?\d+\.\d+)$")


def parse_dump(text):
    d = ParsedDump()
    section = None
    for raw in text.split("\n"):
        line = raw.lstrip().rstrip("\r")
        if not line:
            continue
        m = _SECTION.match(line)
        if m:
            section = m.group(1)
            continue
        if line == "}":
            section = None
            continue
        if section == "FILEHEADER":
            k, _, v = line.partition(": ")
            d.header[k] = v
        elif section in ("LABELS", "ATTRIBUTES"):
            k, _, v = line.partition(": ")
            (d.labels if section == "LABELS" else d.attributes)[v] = k
        elif section in ("TRANSITIONS", "STATE_FEATURES"):
            m = _FEATURE.match(line)
            if m:
                target = d.transitions if section == "TRANSITIONS" else d.state_features
                target[(m.group(1), m.group(2))] = float(m.group(3))
    return d
