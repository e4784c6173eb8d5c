"""A drop-in for sklearn-crfsuite (0.3.6) on sparsetag's engine:

    from sparsetag.sklearn_crfsuite import CRF, metrics, scorers

CRF is a scikit-learn estimator (get_params/set_params/clone, pickling,
cross_val_score, GridSearchCV with n_jobs > 1) whose fit trains with
CRFsuite's defaults (lbfgs: c1 = 0, c2 = 1) on sparsetag's engine.
"""

from .estimator import CRF

__all__ = ["CRF"]
