"""Hypothesis strategies for statlearn's inputs (hypothesis is an optional dependency).

Each function returns a hypothesis search strategy, to use with ``@given``:
probability matrices with ties, near-zero and one-hot rows; score vectors
with ties and infinities; causal diagrams (acyclic, with bidirected edges);
clusterable graphs; GLM problems with a known optimum; calibration forecast
sets. Arguments are checked when the strategy is built, so a bad one fails at
once with an error naming it.

Importing this module without hypothesis raises an ``ImportError`` that says
how to install it.
"""

from __future__ import annotations

import numpy as np

from ..utils import check_int, import_optional

_hyp = import_optional("hypothesis", extra="test", purpose="statlearn.testing.strategies")
st = import_optional("hypothesis.strategies", extra="test",
                     purpose="statlearn.testing.strategies")

__all__ = [
    "calibration_problems",
    "causal_diagrams",
    "clusterable_graphs",
    "glm_problems",
    "probability_matrices",
    "score_vectors",
]


def _bool(value, name):
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__} {value!r}.")
    return bool(value)


def _range(low, high, name_low, name_high, floor):
    low = check_int(low, name_low, low=floor)
    high = check_int(high, name_high, low=floor)
    if high < low:
        raise ValueError(f"{name_high} must be >= {name_low} = {low}, got {high}.")
    return low, high


def probability_matrices(*, min_rows=1, max_rows=20, min_classes=2, max_classes=6,
                         ties=True, near_zero=True, one_hot=True):
    """Row-stochastic matrices (predicted class probabilities), with the hard cases.

    Rows are drawn on a coarse grid (so equal probabilities within and
    across rows, ties, are common when ``ties``), some with entries of about
    ``1e-12`` (``near_zero``) and some one-hot (``one_hot``). Every row sums
    to 1 up to rounding and has no negative entry.

    Parameters
    ----------
    min_rows, max_rows : int, default=1, 20
        Number of rows.
    min_classes, max_classes : int, default=2, 6
        Number of columns (>= 2).
    ties, near_zero, one_hot : bool, default=True
        Which hard cases to mix in.

    Returns
    -------
    hypothesis.strategies.SearchStrategy of ndarray of shape (n, K)

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from statlearn.testing.strategies import probability_matrices
    >>> @settings(max_examples=20)
    ... @given(probability_matrices(max_classes=4))
    ... def test_rows_sum_to_one(P):
    ...     assert np.allclose(P.sum(axis=1), 1.0) and (P >= 0).all()
    >>> test_rows_sum_to_one()
    """
    min_rows, max_rows = _range(min_rows, max_rows, "min_rows", "max_rows", 1)
    min_classes, max_classes = _range(min_classes, max_classes, "min_classes", "max_classes", 2)
    ties, near_zero, one_hot = (_bool(ties, "ties"), _bool(near_zero, "near_zero"),
                                _bool(one_hot, "one_hot"))
    kinds = ["generic"] + ["grid"] * ties + ["near_zero"] * near_zero + ["one_hot"] * one_hot

    @st.composite
    def build(draw):
        n = draw(st.integers(min_rows, max_rows))
        k = draw(st.integers(min_classes, max_classes))
        rows = []
        for _ in range(n):
            kind = draw(st.sampled_from(kinds))
            if kind == "one_hot":
                row = np.zeros(k)
                row[draw(st.integers(0, k - 1))] = 1.0
            elif kind == "grid":
                w = np.array(draw(st.lists(st.integers(0, 4), min_size=k, max_size=k)), float)
                if w.sum() == 0:
                    w[draw(st.integers(0, k - 1))] = 1.0
                row = w / w.sum()
            else:
                w = np.array(draw(st.lists(st.floats(0.01, 1.0), min_size=k, max_size=k)))
                if kind == "near_zero":
                    tiny = draw(st.lists(st.booleans(), min_size=k, max_size=k))
                    tiny[draw(st.integers(0, k - 1))] = False
                    w[np.array(tiny)] = 1e-12
                row = w / w.sum()
            rows.append(row)
        return np.array(rows)

    return build()


def score_vectors(*, min_size=1, max_size=50, ties=True, infinities=True, negative=True):
    """Conformity-score vectors with ties and infinite values.

    Values come from a small grid (ties) or a continuous range; with
    ``infinities`` some are ``+inf`` (a score that can never be beaten, as
    the clip score's ``M = inf``) and, with ``negative``, ``-inf``. Never NaN.

    Parameters
    ----------
    min_size, max_size : int, default=1, 50
        Length of the vector.
    ties, infinities, negative : bool, default=True
        Mix in tied values, infinite values, negative values.

    Returns
    -------
    hypothesis.strategies.SearchStrategy of ndarray of shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from statlearn.testing.strategies import score_vectors
    >>> @settings(max_examples=20)
    ... @given(score_vectors(negative=False))
    ... def test_not_nan(s):
    ...     assert not np.isnan(s).any() and (s >= 0).all()
    >>> test_not_nan()
    """
    min_size, max_size = _range(min_size, max_size, "min_size", "max_size", 0)
    ties, infinities, negative = (_bool(ties, "ties"), _bool(infinities, "infinities"),
                                  _bool(negative, "negative"))
    low = -10.0 if negative else 0.0
    parts = [st.floats(low, 10.0, allow_nan=False, allow_infinity=False)]
    if ties:
        parts.append(st.sampled_from([v for v in (-1.0, 0.0, 0.5, 1.0, 2.0) if v >= low]))
    if infinities:
        parts.append(st.sampled_from([np.inf, -np.inf] if negative else [np.inf]))
    return st.lists(st.one_of(*parts), min_size=min_size, max_size=max_size).map(
        lambda v: np.array(v, dtype=float))


def causal_diagrams(*, min_nodes=2, max_nodes=7, max_bidirected=3):
    """Causal diagrams: acyclic directed edges, bidirected (confounding) edges, reward ``Y``.

    Nodes ``V0, ..., Y``; ``Y`` has at least one parent; the node list is
    shuffled so that its order is not the causal order.

    Parameters
    ----------
    min_nodes, max_nodes : int, default=2, 7
        Number of nodes (>= 2), ``Y`` included.
    max_bidirected : int, default=3
        Largest number of bidirected edges.

    Returns
    -------
    hypothesis.strategies.SearchStrategy of statlearn.bandits.causal.CausalDiagram

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from statlearn.testing.strategies import causal_diagrams
    >>> @settings(max_examples=10)
    ... @given(causal_diagrams(max_nodes=4))
    ... def test_reward_node(G):
    ...     assert "Y" in G.nodes
    >>> test_reward_node()
    """
    from ..bandits.causal import CausalDiagram

    min_nodes, max_nodes = _range(min_nodes, max_nodes, "min_nodes", "max_nodes", 2)
    max_bidirected = check_int(max_bidirected, "max_bidirected", low=0)

    @st.composite
    def build(draw):
        n = draw(st.integers(min_nodes, max_nodes))
        names = [f"V{i}" for i in range(n - 1)] + ["Y"]
        pairs = [(i, j) for j in range(n) for i in range(j)]  # i < j: acyclic
        directed = [(names[i], names[j]) for i, j in pairs if draw(st.booleans())]
        if not any(b == "Y" for _, b in directed):
            directed.append((names[draw(st.integers(0, n - 2))], "Y"))
        k = draw(st.integers(0, min(max_bidirected, len(pairs))))
        chosen = draw(st.lists(st.sampled_from(pairs), min_size=k, max_size=k, unique=True))
        bidirected = [(names[i], names[j]) for i, j in chosen]
        order = draw(st.permutations(names))
        return CausalDiagram(order, directed, bidirected)

    return build()


def clusterable_graphs(*, min_clusters=1, max_clusters=3, min_size=20, max_size=40,
                       degrees=(4, 6), max_bridges=2):
    """Clusterable graphs: planted random-regular expanders joined by a few bridges.

    Built by :func:`statlearn.datasets.make_planted_expanders` with drawn
    cluster sizes, degree, number of bridges and seed; returns
    ``(adjacency, labels)`` (a CSR adjacency and each vertex's cluster).

    Parameters
    ----------
    min_clusters, max_clusters : int, default=1, 3
        Number of clusters.
    min_size, max_size : int, default=20, 40
        Cluster sizes.
    degrees : sequence of int, default=(4, 6)
        Degrees to draw from (each even or with even cluster sizes).
    max_bridges : int, default=2
        Largest number of edges between two clusters.

    Returns
    -------
    hypothesis.strategies.SearchStrategy of (scipy.sparse.csr_array, ndarray)

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from statlearn.testing.strategies import clusterable_graphs
    >>> @settings(max_examples=5, deadline=None)
    ... @given(clusterable_graphs(max_clusters=2))
    ... def test_symmetric(graph):
    ...     A, labels = graph
    ...     assert (A != A.T).nnz == 0 and A.shape[0] == labels.size
    >>> test_symmetric()
    """
    from ..datasets import make_planted_expanders

    min_clusters, max_clusters = _range(min_clusters, max_clusters, "min_clusters",
                                        "max_clusters", 1)
    min_size, max_size = _range(min_size, max_size, "min_size", "max_size", 2)
    degrees = [check_int(d, "degrees", low=2) for d in degrees]
    if not degrees:
        raise ValueError("degrees must hold at least one degree, got [].")
    if max(degrees) >= min_size:
        raise ValueError(f"degrees must be below min_size = {min_size}, got {degrees}.")
    max_bridges = check_int(max_bridges, "max_bridges", low=0)

    @st.composite
    def build(draw):
        k = draw(st.integers(min_clusters, max_clusters))
        degree = draw(st.sampled_from(degrees))
        sizes = [draw(st.integers(min_size, max_size)) for _ in range(k)]
        if degree % 2:
            sizes = [s + s % 2 for s in sizes]  # n * d must be even
        bridges = draw(st.integers(0, max_bridges)) if k > 1 else 0
        seed = draw(st.integers(0, 2**31 - 1))
        return make_planted_expanders(sizes, degree, n_bridges=bridges, random_state=seed)

    return build()


def glm_problems(*, min_samples=5, max_samples=40, min_features=1, max_features=5):
    """Ridge (squared-loss GLM) problems whose optimum is known in closed form.

    The objective is ``sum_i (y_i - x_i^T beta)^2 / 2 + alpha ||beta||^2 / 2``
    (the sum-of-losses convention of :class:`statlearn.unlearning.NewtonUnlearner`
    with ``loss="squared"``); its minimiser ``(X^T X + alpha I)^{-1} X^T y`` is
    returned as ``coef``, with ``X``, ``y`` and ``alpha`` in a dict.

    Parameters
    ----------
    min_samples, max_samples : int, default=5, 40
        Number of rows.
    min_features, max_features : int, default=1, 5
        Number of columns.

    Returns
    -------
    hypothesis.strategies.SearchStrategy of dict

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from statlearn.testing.strategies import glm_problems
    >>> @settings(max_examples=10)
    ... @given(glm_problems())
    ... def test_gradient_vanishes(p):
    ...     X, y, a, b = p["X"], p["y"], p["alpha"], p["coef"]
    ...     assert np.allclose(X.T @ (X @ b - y) + a * b, 0.0, atol=1e-8)
    >>> test_gradient_vanishes()
    """
    min_samples, max_samples = _range(min_samples, max_samples, "min_samples",
                                      "max_samples", 1)
    min_features, max_features = _range(min_features, max_features, "min_features",
                                        "max_features", 1)

    @st.composite
    def build(draw):
        n = draw(st.integers(min_samples, max_samples))
        p = draw(st.integers(min_features, max_features))
        seed = draw(st.integers(0, 2**31 - 1))
        alpha = draw(st.sampled_from([0.1, 1.0, 10.0]))
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(n, p))
        y = X @ rng.normal(size=p) + rng.normal(size=n)
        coef = np.linalg.solve(X.T @ X + alpha * np.eye(p), X.T @ y)
        return {"X": X, "y": y, "alpha": alpha, "coef": coef}

    return build()


def calibration_problems(*, dims=(1, 2, 3), max_forecasts=6, max_tests=3, simplex=None):
    """Decision problems over forecasts for :mod:`statlearn.calibration`, on grid values.

    A dict with ``U`` (utility slopes, ``(m, d)``), ``c`` (intercepts,
    ``(m,)``), ``V`` (distinct forecasts, ``(n, d)``, on the simplex when
    ``simplex``), ``A``, ``b`` (linear tests ``h(v) = A v + b``) and
    ``simplex``. Grid values keep the problems' LPs exact enough to compare.

    Parameters
    ----------
    dims : sequence of int, default=(1, 2, 3)
        Forecast dimensions to draw from.
    max_forecasts : int, default=6
        Largest number of forecasts.
    max_tests : int, default=3
        Largest number of linear tests.
    simplex : bool or None, default=None
        Forecasts on the probability simplex (``None``: drawn, for ``d >= 2``).

    Returns
    -------
    hypothesis.strategies.SearchStrategy of dict

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from statlearn.testing.strategies import calibration_problems
    >>> @settings(max_examples=10)
    ... @given(calibration_problems())
    ... def test_shapes(p):
    ...     assert p["U"].shape[1] == p["V"].shape[1] == p["A"].shape[1]
    >>> test_shapes()
    """
    dims = [check_int(d, "dims", low=1) for d in dims]
    if not dims:
        raise ValueError("dims must hold at least one dimension, got [].")
    max_forecasts = check_int(max_forecasts, "max_forecasts", low=1)
    max_tests = check_int(max_tests, "max_tests", low=0)
    if simplex is not None:
        simplex = _bool(simplex, "simplex")

    @st.composite
    def build(draw):
        d = draw(st.sampled_from(dims))
        m = draw(st.integers(2, 4))
        n = draw(st.integers(1, max_forecasts))
        ints = lambda lo, hi, size: np.array(  # noqa: E731
            draw(st.lists(st.integers(lo, hi), min_size=size, max_size=size)), dtype=float)
        U = ints(-10, 10, m * d).reshape(m, d) / 10
        c = ints(-5, 5, m) / 10
        on_simplex = (d >= 2 and draw(st.booleans())) if simplex is None else simplex
        if on_simplex:
            raw = ints(0, 5, n * d).reshape(n, d) + np.eye(d)[np.arange(n) % d]
            V = raw / raw.sum(axis=1, keepdims=True)
        else:
            V = ints(0, 20, n * d).reshape(n, d) / 20
        V = np.unique(V, axis=0)
        k = draw(st.integers(0, max_tests))
        A = ints(-2, 2, k * d).reshape(k, d)
        b = ints(-2, 2, k)
        return {"U": U, "c": c, "V": V, "A": A, "b": b, "simplex": on_simplex}

    return build()


