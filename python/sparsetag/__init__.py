"""sparsetag: linear-chain CRFs with a certified elastic net, from Python.

The engine is the Go toolkit sparsetag, built as a C shared library and
loaded with ctypes (one build serves every Python 3 version).

- sparsetag.pycrfsuite: a drop-in for python-crfsuite (Trainer, Tagger,
  ItemSequence; CRFsuite model files).
- sparsetag.sklearn_crfsuite: a drop-in for sklearn-crfsuite (CRF,
  metrics, scorers).
- sparsetag.load(path): any model file the toolkit reads (CRFsuite,
  sparsetag, Wapiti, CRF++), with n-best lists and marginals.
- Extras on both drop-ins: every CRFsuite algorithm (lbfgs is the
  certified elastic net), threads, sequence weights, CRF++ templates over
  token columns (Trainer.append_columns, CRF(template=...)), the
  elastic-net path with model selection (path, CRF(path=...)).
"""

from ._model import Model, load

__all__ = ["Model", "load", "__version__"]
__version__ = "0.1.0"
