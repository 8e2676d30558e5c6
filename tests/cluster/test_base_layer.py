"""SpectralClusteringOracle on the shared base layer: the fit record, stale answers,
parameters as NumPy scalars, array-likes of any dtype.

The tests before the last failed before the oracle moved to :mod:`statlearn.base`; the
last one (a changed ``outlier_label`` is refused, never answered from) guards the same
fit record.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

from statlearn.base import FitStateMixin, StaleFitError
from statlearn.cluster import (
    SpectralClusteringOracle,
    estimate_collision_probabilities,
    lazy_walk_distribution,
    test_one_vs_two_clusters,
)
from statlearn.datasets import make_planted_expanders, make_random_regular_graph


@pytest.fixture(scope="module")
def graph():
    return make_planted_expanders([150, 150], 8, n_bridges=3, random_state=0)[0]


def _fast(**kw):
    return SpectralClusteringOracle(2, mode="fast", walk_length=12, random_state=0, **kw)


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


def test_one_base_layer_and_every_parameter_constrained():
    import statlearn.cluster._params as params

    assert not hasattr(params, "ParamsMixin")
    assert SpectralClusteringOracle.__mro__[1] is FitStateMixin
    names = [p for p in inspect.signature(SpectralClusteringOracle.__init__).parameters
             if p != "self"]
    assert set(SpectralClusteringOracle._parameter_constraints) == set(names)
    assert set(SpectralClusteringOracle._output_free_params) == {"progress", "time_budget",
                                                                 "n_jobs"}


def test_a_parameter_changed_after_fit_is_never_answered_from_silently(graph):
    o = _quiet(lambda: _fast(error_rate=0.05).fit(graph))
    v = np.arange(0, 300, 13)
    ref = o.query(v)
    o.set_params(error_rate=0.3)  # would change the certificates, not the build
    for call in (lambda: o.query(v), lambda: o.predict(v), lambda: o.which_cluster(3),
                 lambda: o.dot(1, 2), lambda: o.embedding_dots([1])):
        with pytest.raises(StaleFitError, match=r"error_rate changed since fit \(fit with "
                                                r"0\.05, now 0\.3\)"):
            call()
    o.set_params(error_rate=0.05)
    np.testing.assert_array_equal(o.query(v).certified, ref.certified)
    # a bar, a time limit and threads change no answer
    o.set_params(progress=True, time_budget=100.0, n_jobs=1, backend="numba")
    np.testing.assert_array_equal(o.query(v).labels, ref.labels)


def test_resume_refuses_a_partial_build_whose_parameters_changed(graph):
    o = _fast(time_budget=0.0)
    with pytest.warns(UserWarning, match="time_budget=0 s spent"):
        o.fit(graph)
    assert o.build_state_ == "partial"
    o.set_params(landmark_clustering="kmeans")  # the stages done were built for "threshold"
    with pytest.raises(StaleFitError, match="landmark_clustering changed since fit"):
        o.resume()
    # the build-control parameters may change between calls
    o.set_params(landmark_clustering="threshold", time_budget=None, progress=False)
    full = _quiet(lambda: _fast().fit(graph))
    _quiet(o.resume)
    v = np.arange(0, 300, 7)
    np.testing.assert_array_equal(o.predict(v), full.predict(v))
    with pytest.raises(NotFittedError, match="no build to resume"):
        _fast().resume()


def test_numpy_bool_weighted_is_refused_outside_fast_mode(graph):
    # np.True_ is not the object True: the check was skipped and the walks ran unweighted
    with pytest.raises(ValueError, match="weighted=True needs mode='fast'"):
        SpectralClusteringOracle(2, weighted=np.True_, walk_length=8).fit(graph)


def test_parameters_and_vertices_as_numpy_scalars_and_arrays(graph):
    ref = _quiet(lambda: _fast().fit(graph))
    v = np.arange(0, 300, 11)
    got = _quiet(lambda: SpectralClusteringOracle(
        np.int64(2), mode="fast", walk_length=np.asarray(12), outlier_label=np.asarray(-1),
        balance=np.float64(1.0), random_state=np.asarray(0)).fit(graph))
    np.testing.assert_array_equal(got.predict(v), ref.predict(v))
    for alt in (v.astype(float), v.astype(np.int32), pd.Series(v, index=v + 1000), list(v)):
        np.testing.assert_array_equal(ref.predict(alt), ref.predict(v))
    assert ref.which_cluster(np.asarray(5)) == ref.which_cluster(5)
    assert ref.dot(np.int32(1), np.asarray(2)) == ref.dot(1, 2)
    with pytest.raises(ValueError, match="vertices must hold vertex ids, got NaN"):
        ref.predict([0.0, np.nan])


def test_functions_take_numpy_scalars_and_name_mismatched_pairs():
    A = make_random_regular_graph(60, 4, random_state=0)
    kw = dict(walk_length=5, n_walks=16, batch_size=4, random_state=0)
    ref = estimate_collision_probabilities(A, np.arange(4), np.arange(4), **kw)
    got = estimate_collision_probabilities(A, np.arange(4.0), pd.Series(np.arange(4)),
                                           walk_length=5, n_walks=16, batch_size=4,
                                           random_state=np.asarray(0), prior=np.asarray(False))
    np.testing.assert_array_equal(ref, got)
    with pytest.raises(ValueError, match=r"x and y must broadcast .*shapes \(4,\) and \(3,\)"):
        estimate_collision_probabilities(A, np.arange(4), np.arange(3), **kw)
    np.testing.assert_array_equal(lazy_walk_distribution(A, 3, 4, max_degree=np.asarray(4)),
                                  lazy_walk_distribution(A, 3, 4, max_degree=4))
    two = make_planted_expanders([60, 60], 6, n_bridges=0, random_state=0)[0]
    a = test_one_vs_two_clusters(two, walk_length=10, n_repeats=1, n_samples=8,
                                 random_state=np.asarray(1))
    b = test_one_vs_two_clusters(two, walk_length=10, n_repeats=1, n_samples=8, random_state=1)
    np.testing.assert_array_equal(a.eigenvalues, b.eigenvalues)


def test_predictions_never_use_an_outlier_label_set_after_fit():
    A, _ = make_planted_expanders([200, 200], 10, n_bridges=10, random_state=0)
    est = SpectralClusteringOracle(2, walk_length=8, n_repeats=1, random_state=0).fit(A)
    v = np.arange(0, 400, 7)
    # a threshold no dot product reaches makes every query an outlier
    est.threshold_ = np.inf
    before = est.predict(v)
    assert np.all(before == -1)
    est.set_params(outlier_label=99)
    # neither the old label (silently) nor the new one (not what fit built): refused
    with pytest.raises(StaleFitError, match="outlier_label changed since fit"):
        est.predict(v)
    assert est.outlier_label_ == -1
    est.set_params(outlier_label=-1)
    np.testing.assert_array_equal(est.predict(v), before)
