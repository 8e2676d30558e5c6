"""What a removal request accepts: positions or masks (never labels), and only the fitted state.

Also the seed argument of the noise sampler, spelled ``random_state``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from statlearn.base import StaleFitError
from statlearn.unlearning import NewtonUnlearner, make_glm_data


def test_pandas_labels_are_refused_with_a_conversion_hint():
    X, y, _ = make_glm_data(300, 10, random_state=0)
    df = pd.DataFrame(X).iloc[100:]
    est = NewtonUnlearner(random_state=0).fit(df, y[100:])
    for labels in (pd.Index([100, 101]), pd.Series([100, 101]), pd.Series([True] * 200)):
        with pytest.raises(TypeError, match="get_indexer"):
            est.unlearn(labels)
    assert not est.removed_.any() and est.history_ == []
    # the documented conversion forgets exactly the labelled rows
    pos = df.index.get_indexer([100, 101])
    np.testing.assert_array_equal(pos, [0, 1])
    est.unlearn(pos)
    np.testing.assert_array_equal(np.flatnonzero(est.removed_), [0, 1])


def test_boolean_mask_equals_positions():
    X, y, _ = make_glm_data(120, 8, random_state=1)
    mask = np.zeros(120, dtype=bool)
    mask[[3, 50, 77]] = True
    a = NewtonUnlearner(random_state=0).fit(X, y).unlearn(mask)
    b = NewtonUnlearner(random_state=0).fit(X, y).unlearn([3, 50, 77])
    np.testing.assert_array_equal(a.removed_, b.removed_)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    with pytest.raises(ValueError, match="boolean mask"):
        NewtonUnlearner().fit(X, y).unlearn(mask[:-1])


def test_predictions_and_requests_refuse_parameters_changed_after_fit():
    # set_params after fit used to be ignored silently (the fitted parameters were used);
    # now every output and request refuses until the next fit or until it is set back
    X, y, _ = make_glm_data(150, 10, random_state=6)
    est = NewtonUnlearner(epsilon=0.5, random_state=0).fit(X, y)
    before = est.predict(X)
    proba = est.predict_proba(X)
    est.set_params(loss="squared", fit_intercept=False, epsilon=5.0, noise=None)
    outputs = [lambda: est.predict(X), lambda: est.predict_proba(X),
               lambda: est.decision_function(X), lambda: est.score(X, y),
               lambda: est.unlearn([0]), lambda: est.retrain_reference([0]),
               lambda: est.sigma_, lambda: est.r_, lambda: est.delta_cert_,
               lambda: est.mu_effective_]
    for output in outputs:
        with pytest.raises(StaleFitError, match=r"NewtonUnlearner parameter \w+ changed "
                                                r"since fit"):
            output()
    assert est.removed_.sum() == 0 and est.history_ == []  # nothing was released
    est.set_params(loss="logistic", fit_intercept=True, epsilon=0.5, noise="gaussian")
    np.testing.assert_array_equal(est.predict(X), before)
    np.testing.assert_array_equal(est.predict_proba(X), proba)
    rep = est.unlearn([0]).unlearn_report_
    assert rep.epsilon == 0.5 and rep.noise == "gaussian"
    assert rep.sigma == pytest.approx(math.sqrt(1 / (2 * 1.0 * 150)) / 0.5)
    # a new fit takes the new parameters
    est.set_params(loss="squared", fit_intercept=False).fit(X, y)
    assert est.loss_ == "squared" and est.intercept_ == 0.0


def test_draw_noise_spells_its_seed_random_state():
    from statlearn.unlearning import draw_noise

    a = draw_noise("gaussian", 1.0, 1.0, 4, random_state=3)
    np.testing.assert_array_equal(a, draw_noise("gaussian", 1.0, 1.0, 4, random_state=3))
    with pytest.raises(TypeError, match="rng"):
        draw_noise("gaussian", 1.0, 1.0, 4, rng=3)
