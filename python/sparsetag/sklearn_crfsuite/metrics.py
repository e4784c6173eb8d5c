"""Metrics over label sequences: scikit-learn's metrics on the flattened
items, and the accuracy of whole sequences."""

from functools import wraps

from .utils import flatten


def _flat(func):
    @wraps(func)
    def wrapper(y_true, y_pred, *args, **kwargs):
        return func(flatten(y_true), flatten(y_pred), *args, **kwargs)
    return wrapper


@_flat
def flat_accuracy_score(y_true, y_pred):
    """Accuracy over all items of all sequences."""
    from sklearn import metrics
    return metrics.accuracy_score(y_true, y_pred)


@_flat
def flat_precision_score(y_true, y_pred, **kwargs):
    """sklearn.metrics.precision_score over all items."""
    from sklearn import metrics
    return metrics.precision_score(y_true, y_pred, **kwargs)


@_flat
def flat_recall_score(y_true, y_pred, **kwargs):
    """sklearn.metrics.recall_score over all items."""
    from sklearn import metrics
    return metrics.recall_score(y_true, y_pred, **kwargs)


@_flat
def flat_f1_score(y_true, y_pred, **kwargs):
    """sklearn.metrics.f1_score over all items."""
    from sklearn import metrics
    return metrics.f1_score(y_true, y_pred, **kwargs)


@_flat
def flat_fbeta_score(y_true, y_pred, beta, **kwargs):
    """sklearn.metrics.fbeta_score over all items."""
    from sklearn import metrics
    return metrics.fbeta_score(y_true, y_pred, beta=beta, **kwargs)


@_flat
def flat_classification_report(y_true, y_pred, labels=None, **kwargs):
    """sklearn.metrics.classification_report over all items."""
    from sklearn import metrics
    return metrics.classification_report(y_true, y_pred, labels=labels, **kwargs)


def sequence_accuracy_score(y_true, y_pred):
    """The fraction of sequences whose labels are all right."""
    pairs = list(zip(y_true, y_pred))
    if not pairs:
        return 0.0
    return sum(1 for t, p in pairs if list(t) == list(p)) / float(len(pairs))
