"""The ten mistakes a new user is most likely to make, and what statlearn says.

Each message must name the problem (the argument and what was wrong) and the
fix; each test below checks both halves of one message.
"""

import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

from statlearn.conformal import ConformalSelector, SplitConformalClassifier, lac_scores
from statlearn.datasets import make_softmax_classification
from statlearn.hte import RelativeErrorEvaluator
from statlearn.simulation import run_study
from statlearn.studies import get_study
from statlearn.unlearning import NewtonUnlearner, make_glm_data
from statlearn.utils import import_optional


@pytest.fixture(scope="module")
def clf_data():
    X, y = make_softmax_classification(400, n_classes=4, random_state=0)
    return X, y


# 1. wrong shapes: one label per row
def test_wrong_shape_names_both_shapes(clf_data):
    X, y = clf_data
    clf = SplitConformalClassifier(alpha=0.1, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"y must have shape \(10,\), got \(9,\)"):
        clf.evaluate(X[:10], y[:9])


# 2. prediction before fit
def test_unfitted_estimator_says_call_fit(clf_data):
    X, _ = clf_data
    with pytest.raises(NotFittedError, match=r"not fitted yet.*Call 'fit'"):
        SplitConformalClassifier().predict_set(X)


# 3. probabilities that do not sum to one
def test_unnormalised_probabilities_name_the_row_and_the_fix():
    proba = np.full((3, 4), 0.3)
    with pytest.raises(ValueError, match=r"row 0 sums to 1\.2.*renormalise with proba / "
                                         r"proba\.sum\(axis=-1, keepdims=True\)"):
        lac_scores(proba, [0, 1, 2])


# 4. probabilities rounded for display; the advised fix then works
def test_rounded_probabilities_are_refused_and_the_advised_fix_works():
    proba = np.round(np.random.default_rng(0).dirichlet(np.ones(4), 5), 2)
    assert not np.allclose(proba.sum(1), 1, atol=1e-6)  # the mistake is really there
    with pytest.raises(ValueError, match=r"sums to 0\.99.*Rounded"):
        lac_scores(proba, np.zeros(5, dtype=int))
    fixed = proba / proba.sum(axis=-1, keepdims=True)
    assert lac_scores(fixed, np.zeros(5, dtype=int)).shape == (5,)


# 5. alpha out of range, including a percentage given for a fraction
def test_alpha_out_of_range(clf_data):
    X, y = clf_data
    with pytest.raises(ValueError, match=r"alpha must be in \(0, 1\), got 0\b"):
        SplitConformalClassifier(alpha=0).fit(X, y)
    with pytest.raises(ValueError, match=r"got 90\. alpha is a fraction, not a percentage "
                                         r"\(90% is alpha=0\.9\); the coverage is 1 - alpha "
                                         r"\(alpha=0\.1 for 90% coverage\)"):
        SplitConformalClassifier(alpha=90).fit(X, y)


# 6. an FDR level given in percent
def test_fdr_level_in_percent(clf_data):
    X, y = clf_data
    with pytest.raises(ValueError, match=r"q must be in \(0, 1\), got 20\. q is a fraction.*"
                                         r"q=0\.2"):
        ConformalSelector(threshold=0.0, q=20).fit(X, y.astype(float))


# 7. an optional dependency that is not installed
def test_missing_optional_dependency_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # makes the import fail

    def rep(setting, rng):
        return {"x": 0.0}

    with pytest.raises(ImportError, match=r"distributed is required for backend='dask'.*"
                                          r"pip install 'dask\[distributed\]'.*"
                                          r"pip install '\.\[dask\]'"):
        run_study(rep, {"a": [1]}, n_reps=2, backend="dask")
    with pytest.raises(ImportError) as info:
        import_optional("cupy_not_installed_here", extra="gpu")
    assert "statlearn[" not in str(info.value)  # that index name is another project


# 8. a misspelt study name
def test_unknown_study_suggests_the_close_name():
    with pytest.raises(ValueError, match=r"study must be one of \[.*'socop'.*\], got "
                                         r"'socopp'; did you mean 'socop'\?"):
        get_study("socopp")
    with pytest.raises(ValueError, match=r"did you mean 'unlearning'\?"):
        get_study("Unlearning")


# 9. pandas labels where row positions are expected
def test_pandas_labels_where_positions_are_expected():
    X, y, _ = make_glm_data(100, 20, random_state=0)
    df = pd.DataFrame(X, index=np.arange(1000, 1100))
    est = NewtonUnlearner(alpha=0.5, epsilon=1.0, random_state=0).fit(df, pd.Series(y, df.index))
    with pytest.raises(TypeError, match=r"pandas Index: its values are labels.*"
                                        r"get_indexer\(labels\)"):
        est.unlearn(df.index[:2])
    # the advised fix works
    est.unlearn(df.index.get_indexer(df.index[:2]))
    assert est.unlearn_report_.m == 2


# 10. class names where label indices (columns of proba) are expected
def test_class_names_where_label_indices_are_expected():
    proba = np.full((3, 2), 0.5)
    with pytest.raises(TypeError, match=r"integer label indices.*np\.unique\(y, "
                                        r"return_inverse=True\)\[1\]"):
        lac_scores(proba, ["cat", "dog", "cat"])
    with pytest.raises(ValueError, match=r"label indices in \[0, 1\].*encode class names"):
        lac_scores(proba, [1, 2, 1])  # 1-based labels


# 11. a treatment coded other than 0/1
def test_treatment_not_coded_zero_one():
    X = np.random.default_rng(0).normal(size=(40, 2))
    a = np.r_[np.ones(20), 2 * np.ones(20)]  # arms coded 1 and 2
    with pytest.raises(ValueError, match=r"treatment must contain only 0 and 1, got 2\.0; "
                                         r"code the treated arm as 1"):
        RelativeErrorEvaluator().fit(X, a, X[:, 0], tau1=np.zeros(40), tau2=np.ones(40))
