"""sparsetag: linear-chain CRFs with a certified elastic net, from Python.

The engine is the Go toolkit sparsetag, built as a C shared library and
loaded with ctypes (one build serves every Python 3 version).

- sparsetag.pycrfsuite: a drop-in for python-crfsuite (Trainer, Tagger,
  ItemSequence; CRFsuite model files).
- sparsetag.sklearn_crfsuite: a drop-in for sklearn-crfsuite (CRF,
  metrics, scorers).
- sparsetag.load(path): any model file the toolkit reads (CRFsuite,
  sparsetag, Wapiti, CRF++), with n-best lists and marginals.
"""

from ._model import Model, load

__all__ = ["Model", "load", "__version__"]
__version__ = "0.1.0"
