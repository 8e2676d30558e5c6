"""The measured serial/parallel choice of the classification row kernels.

Whichever twin the timing picks, the output must be the serial kernel's (the
twins compute rows independently); the choice is made once per size class.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from statlearn.conformal import SplitConformalClassifier
from statlearn.conformal._classification import _parallel


def _problem(n, K, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(K, 0.3), size=n)
    y = np.array([rng.choice(K, p=row) for row in p])
    return p, y


class _Passthrough(ClassifierMixin, BaseEstimator):
    """A fitted "model" whose input is already the probability matrix."""

    def __init__(self, n_classes=12):
        self.n_classes = n_classes

    def fit(self, X=None, y=None):
        self.classes_ = np.arange(self.n_classes)
        self.n_features_in_ = self.n_classes
        return self

    def predict_proba(self, X):
        return np.asarray(X, dtype=np.float64)


@pytest.mark.parametrize("score, kw", [("lac", {}), ("aps", {}),
                                       ("aps", {"randomized_score": False}),
                                       ("socop", {"lam": 0.05}), ("raps", {"lam": 0.1,
                                                                           "k_reg": 2})])
def test_sets_and_scores_do_not_depend_on_the_chosen_twin(score, kw, monkeypatch):
    p, y = _problem(3000, 12)
    outs = []
    for forced in (False, True):
        monkeypatch.setattr(_parallel, "CHOICE", _ForcedChoice(forced))
        monkeypatch.setattr(_parallel, "MIN_PARALLEL_SIZE", 1)
        clf = SplitConformalClassifier(_Passthrough(12).fit(), prefit=True, conformity_score=score,
                                       random_state=0, **kw).fit(p, y)
        outs.append((clf.calib_scores_, clf.threshold_, clf.predict_set(p),
                     clf.label_scores(p[:50])))
    for a, b in zip(*outs, strict=True):
        np.testing.assert_array_equal(a, b)


class _ForcedChoice(dict):
    """A choice table that answers ``forced`` for every key."""

    def __init__(self, forced):
        super().__init__()
        self.forced = forced

    def get(self, key, default=None):
        return self.forced


def test_the_choice_is_measured_once_per_size_class(monkeypatch):
    calls = []

    def serial(x, c):
        calls.append(("serial", x.shape[0]))
        return x * c

    def parallel(x, c):
        calls.append(("parallel", x.shape[0]))
        return x * c

    monkeypatch.setattr(_parallel, "CHOICE", {})
    monkeypatch.setattr(_parallel, "_threads", lambda: 2)
    monkeypatch.setattr(_parallel, "MEASURE_MAX_SIZE", 1 << 10)
    small = np.ones((2, 3))
    np.testing.assert_array_equal(_parallel.run_rows("k", serial, parallel, (small,), (2.0,)),
                                  2 * small)
    assert calls == [("serial", 2)]  # below MIN_PARALLEL_SIZE: serial, nothing measured
    calls.clear()
    big = np.ones((4096, 2))  # 8192 entries: measured on the first 512 rows
    out = _parallel.run_rows("k", serial, parallel, (big,), (3.0,))
    np.testing.assert_array_equal(out, 3 * big)
    assert calls[:2] == [("serial", 1), ("parallel", 1)]  # compiled outside the timings
    assert {c[1] for c in calls[2:-1]} == {512} and calls[-1][1] == 4096
    assert len(_parallel.CHOICE) == 1
    calls.clear()
    _parallel.run_rows("k", serial, parallel, (big,), (3.0,))
    assert len(calls) == 1  # reused
    monkeypatch.setattr(_parallel, "_threads", lambda: 1)
    calls.clear()
    _parallel.run_rows("k", serial, parallel, (big,), (3.0,))
    assert calls == [("serial", 4096)]  # one thread: never the parallel twin
