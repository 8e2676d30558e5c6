"""NewtonUnlearner's parameter, data and index errors: the argument, the value, the rule."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from statlearn.unlearning import NewtonUnlearner, make_glm_data
from tests.helpers import raises

# one parameter alone: the constraint check names the class and the parameter, and shows
# what is allowed and the value
_CONSTRAINT_CASES = [
    ({"alpha": -1.0}, ValueError, "[0, inf]", "-1.0"),
    ({"loss": "hinge"}, ValueError, "['squared', 'logistic', 'poisson']", "'hinge'"),
    ({"penalty": "l1"}, ValueError, "['l2']", "'l1'"),
    ({"epsilon": 0.0}, ValueError, "(0, inf)", "0.0"),
    ({"noise": "cauchy"}, ValueError, "['gaussian', 'laplace_l2', None]", "'cauchy'"),
    ({"noise_scale": "auto"}, ValueError, "one of ['paper'] or a real in [0, inf]", "'auto'"),
    ({"noise_scale": -1.0}, ValueError, "a real in [0, inf]", "-1"),
    ({"polylog_c1": 0.0}, ValueError, "(0, inf)", "0.0"),
    ({"polylog_c2": 0.0}, ValueError, "(0, inf)", "0.0"),
    ({"n_newton_steps": 0}, ValueError, "[1, inf]", "got 0."),
    ({"mechanism": "foo"}, ValueError, "['newton', 'guo', 'sekhari']", "'foo'"),
    ({"feature_bound": 0.0}, ValueError, "(0, inf)", "0.0"),
    ({"delta": 1.0}, ValueError, "(0, 1)", "1.0"),
    ({"delta": 0.0}, ValueError, "(0, 1)", "0.0"),
    ({"tol": 0.0}, ValueError, "(0, inf)", "0.0"),
    ({"max_iter": 0}, ValueError, "[1, inf]", "got 0."),
    ({"verify": "yes"}, TypeError, "a bool", "str 'yes'"),
    ({"store_hessian": 1}, TypeError, "a bool", "int 1"),
    ({"assume_optimal": None}, TypeError, "a bool", "NoneType None"),
    ({"add_noise_on_empty": 0}, TypeError, "a bool", "int 0"),
    ({"allow_singular": "no"}, TypeError, "a bool", "str 'no'"),
    ({"fit_intercept": 1}, TypeError, "a bool", "int 1"),
]


@pytest.mark.parametrize("params, exc, allowed, value", _CONSTRAINT_CASES)
def test_parameter_errors_name_the_parameter_and_value(params, exc, allowed, value):
    X, y, _ = make_glm_data(30, 3, random_state=0)
    (name,) = params
    raises(lambda: NewtonUnlearner(**params).fit(X, y), exc,
           names=["NewtonUnlearner", name], shows=[allowed, value])


# across parameters: checked in fit, each with the rule it breaks
_CROSS_CASES = [
    ({"alpha": 0.0}, ["alpha", "allow_singular"], "> 0",
     r"alpha must be > 0: the certificate needs an alpha-strongly convex objective "
     r"\(pass allow_singular=True to accept alpha=0 without any certificate\)\.$"),
    ({"mechanism": "guo", "loss": "poisson"}, ["mechanism", "loss"], ["'guo'", "'poisson'"],
     r"needs bounded loss derivatives and supports loss in \['logistic', 'squared'\], got "),
    ({"mechanism": "sekhari", "loss": "poisson", "feature_bound": 9.0}, ["mechanism", "loss"],
     ["'sekhari'", "'poisson'"], r"needs bounded loss derivatives"),
    ({"mechanism": "guo", "noise": "laplace_l2"}, ["mechanism", "noise"], "'guo'",
     r"uses Gaussian noise; noise must be 'gaussian' or None\.$"),
    ({"mechanism": "sekhari"}, ["mechanism", "feature_bound"], "'sekhari'",
     r"needs feature_bound, an a-priori bound on the norm of every design row: its noise "
     r"scale depends on the loss's Lipschitz constants, which must not be computed from the "
     r"data\.$"),
]


@pytest.mark.parametrize("params, names, shows, match", _CROSS_CASES)
def test_parameter_combinations_are_refused_with_their_rule(params, names, shows, match):
    X, y, _ = make_glm_data(30, 3, random_state=0)
    raises(lambda: NewtonUnlearner(**params).fit(X, y), ValueError, names=names, shows=shows,
           match=match)


def test_boundary_parameters_are_accepted():
    X, y, _ = make_glm_data(30, 3, random_state=0)
    for params in ({"alpha": 0.0, "allow_singular": True, "loss": "squared"},
                   {"epsilon": 1e-3}, {"noise_scale": 0.0}, {"noise": None},
                   {"noise": "laplace_l2"}, {"polylog_c1": 1e-3, "polylog_c2": 1e-3},
                   {"n_newton_steps": 1}, {"delta": 0.5, "mechanism": "guo"}, {"tol": 1e-3},
                   {"max_iter": 1},
                   {"feature_bound": 1e-3, "mechanism": "sekhari", "fit_intercept": False},
                   {"mechanism": "guo", "noise": None}, {"verify": np.bool_(True)}):
        y_fit = y.astype(float) if params.get("loss") == "squared" else y
        # rows within the a-priori bound of the sekhari case
        X_fit = X * 1e-3 if "feature_bound" in params else X
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            NewtonUnlearner(**params).fit(X_fit, y_fit)


@pytest.mark.parametrize("params, message", [
    ({"delta": 0.5}, r"delta=0.5 has no effect with mechanism='newton'"),
    ({"feature_bound": 2.0}, r"feature_bound=2.0 has no effect with mechanism='newton'"),
    ({"mechanism": "guo", "n_newton_steps": 3},
     r"n_newton_steps=3 has no effect with mechanism='guo'"),
    ({"mechanism": "guo", "feature_bound": 2.0},
     r"feature_bound=2.0 has no effect with mechanism='guo'"),
])
def test_a_parameter_the_mechanism_never_reads_is_refused(params, message):
    # accepted and silently ignored before: mechanism='guo' with n_newton_steps=3 took
    # one step (and reported one)
    X, y, _ = make_glm_data(30, 3, random_state=0)
    with pytest.raises(ValueError, match=message):
        NewtonUnlearner(**params).fit(X, y)


def test_data_errors_name_the_target():
    X, y, _ = make_glm_data(30, 3, random_state=0)
    raises(lambda: NewtonUnlearner().fit(X, np.arange(30) % 3), ValueError,
           names=["loss", "y"], shows=["'logistic'", "got 3 class(es): [0, 1, 2]."],
           match=r"^Only binary classification is supported: loss=.* needs exactly 2 classes in ")
    raises(lambda: NewtonUnlearner(loss="squared").fit(X, np.r_[np.inf, np.ones(29)]),
           ValueError, names="y", match=r"^y must be finite\.$|infinity")
    raises(lambda: NewtonUnlearner(loss="poisson").fit(X, -np.ones(30)), ValueError,
           names=["loss", "y"], shows="'poisson'", match=r"needs non-negative y\.$")


def test_index_errors_name_the_argument():
    X, y, _ = make_glm_data(30, 3, random_state=0)
    est = NewtonUnlearner(fit_intercept=False, noise=None).fit(X, y)
    raises(lambda: est.unlearn([30]), ValueError, names="indices", shows=["[0, 29]", "[30]"],
           match=r"must lie in .* \(rows seen by fit\)")
    raises(lambda: est.retrain_reference([0, 0]), ValueError, names="indices", shows="[0]",
           match=r"must not repeat a row; ")


def test_index_errors_list_the_offending_rows():
    # the rows out of range in the order given, each repeated row once (sorted), the rows
    # removed before in the order given: a check that misread any of them would list others
    X, y, _ = make_glm_data(30, 3, random_state=0)
    est = NewtonUnlearner(fit_intercept=False, noise=None).fit(X, y)
    raises(lambda: est.unlearn([31, 2, -1, 30]), ValueError, names="indices",
           shows="got [31, -1, 30].")
    raises(lambda: est.unlearn([9, 4, 9, 4, 4, 1]), ValueError, names="indices",
           shows="duplicated: [4, 9].")
    est.unlearn([8, 3])
    raises(lambda: est.unlearn([5, 8, 0, 3]), ValueError, names="indices",
           shows="earlier request: [8, 3].")
    assert est.removed_.sum() == 2  # the refused requests removed nothing
