"""Fast-mode queries: fixed walks, or the sequential rule that certifies each label.

Given the built ``D``, a query walk ending at ``v`` yields the score vector
``h(v)`` (``k`` values, its contribution to every cluster's mean dot product;
see :mod:`._landmark_index`); the walks are i.i.d., so cluster scores are
means of i.i.d. bounded samples, with ranges known from ``D``. With
``error_rate`` each vertex starts with ``n_walks_`` walks and doubles them
until its label is certified or ``max_query_walks_`` is reached (all pending
vertices in one call, sharing the walk engine and the index look-ups). After
each doubling round ``r``, the best cluster is certified when, for every other
cluster, the empirical Bernstein lower bound (Maurer and Pontil 2009) on the
mean score difference is positive, and (unless ``force``) the best score is
certified above or below ``threshold_``; every comparison gets error budget
``6 delta / (pi**2 r**2 (k (k - 1) + 2))``. By the union bound over rounds
and comparisons, *with probability at least 1 - error_rate a certified label
equals the label the oracle gives with infinitely many query walks* (the exact
mean scores). The guarantee covers the query's Monte Carlo error only, not
whether ``D`` itself separates the clusters (that is the construction's job).
This rule is ours: the paper's queries (``WhichCluster``) use a fixed number
of walks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from statlearn.utils._validation import _scalar

from ._landmark_index import add_query_moments

__all__ = ["OracleQueryResult", "answer_queries", "certify_look", "certify_moments",
           "empirical_bernstein_radius", "round_delta", "sequential_argmax"]


def empirical_bernstein_radius(variance, n, value_range, delta):
    """One-sided empirical Bernstein radius (Maurer and Pontil 2009, Theorem 4).

    For ``n >= 2`` i.i.d. values in an interval of length ``value_range`` with
    sample variance ``variance`` (``ddof=1``), the true mean is at least the
    sample mean minus this radius with probability at least ``1 - delta``
    (and at most the sample mean plus it, with the same probability).

    Parameters
    ----------
    variance : float or ndarray
    n : int
    value_range : float or ndarray
    delta : float

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> from statlearn.cluster._certified_queries import empirical_bernstein_radius
    >>> round(float(empirical_bernstein_radius(0.25, 1000, 1.0, 0.05)), 4)
    0.0516
    """
    log_term = math.log(2.0 / delta)
    return (np.sqrt(2.0 * np.maximum(variance, 0.0) * log_term / n)
            + 7.0 * np.asarray(value_range) * log_term / (3.0 * (n - 1)))


def round_delta(delta, n_tests, round_index):
    """Error budget of one test in round ``r = 1, 2, ...``: ``6 delta / (pi^2 r^2 n_tests)``.

    Summed over all rounds and tests this is ``delta`` (union bound), so the
    sequential rule may look at the data after every doubling.
    """
    return 6.0 * delta / (math.pi ** 2 * round_index ** 2 * n_tests)


def sequential_argmax(draw, n_options, delta, first, maximum, *, value_range,
                      threshold=None):
    """Anytime-valid arg-max of the means of ``n_options`` streams, with doubling.

    ``draw(m)`` returns an ``(m, n_options)`` array of fresh i.i.d. rows
    (option scores of one sample). Rounds use ``first, 2 first, 4 first, ...``
    samples in total, up to ``maximum``. After each round, the option with the
    best mean is *certified* when, for every other option, the empirical
    Bernstein lower bound on the mean difference is positive (and, with a
    ``threshold``, when the best mean is certified above or below it). Each
    of the ``n_options (n_options - 1)`` ordered comparisons (plus the two
    threshold sides) gets error ``6 delta / (pi^2 r^2 n_tests)`` in round
    ``r``, so the probability that a certified answer is wrong, over all
    rounds, is at most ``delta``.

    Parameters
    ----------
    draw : callable
    n_options : int
    delta : float
        Error probability of a certified answer.
    first, maximum : int
        Samples in the first round and the cap.
    value_range : ndarray of shape (n_options, n_options)
        ``value_range[a, b]`` bounds the range of ``score_a - score_b`` of one
        sample; it must hold for every possible sample.
    threshold : float or None
        If set, also decide whether the best mean is at least ``threshold``.

    Returns
    -------
    best : int
        Option with the largest mean at the last round.
    certified : bool
        Whether the decision was certified before reaching ``maximum``.
    above : bool
        Best mean at least ``threshold`` (``True`` without threshold); certified
        with ``certified``.
    n_used : int
        Samples drawn.
    means : ndarray of shape (n_options,)
    """
    data = draw(first)
    r = 1
    while True:
        best, ok, above, n, means = certify_look(data, n_options, delta, value_range,
                                                 threshold, r)
        if ok or n >= maximum:
            return best, ok, above, n, means
        data = np.concatenate([data, draw(min(n, maximum - n))])
        r += 1


def certify_look(data, n_options, delta, value_range, threshold, round_index):
    """One look of :func:`sequential_argmax` at the ``(n, n_options)`` samples of round ``r``.

    Returns ``(best, certified, above, n, means)`` as :func:`sequential_argmax`.
    """
    data = np.asarray(data, dtype=np.float64)
    n = data.shape[0]
    best, ok, above, means = certify_moments(n, data.sum(axis=0), data.T @ data, delta,
                                             value_range, threshold, round_index)
    return best, ok, above, n, means


def certify_moments(n, s1, s2, delta, value_range, threshold, round_index):
    """The test of :func:`certify_look` from running sums (no samples kept).

    ``s1[c]`` is the sum of option ``c``'s scores over ``n`` samples and
    ``s2[c, d]`` the sum of products of options ``c`` and ``d``; the sample
    variance of a difference ``c - d`` follows from them. ``threshold`` is a
    float, or one value per option (the best option's is tested).

    Returns ``(best, certified, above, means)``.
    """
    n_options = s1.shape[0]
    means = s1 / n
    best = int(np.argmax(means))
    if threshold is not None:
        threshold = float(np.broadcast_to(threshold, (n_options,))[best])
    above = True if threshold is None else bool(means[best] >= threshold)
    if n < 2:
        return best, False, above, means
    n_tests = max(1, n_options * (n_options - 1) + (2 if threshold is not None else 0))
    d_r = round_delta(delta, n_tests, round_index)
    for o in range(n_options):
        if o == best:
            continue
        ss = s2[best, best] + s2[o, o] - 2.0 * s2[best, o]
        mean = means[best] - means[o]
        var = max(ss - n * mean * mean, 0.0) / (n - 1)
        if mean - empirical_bernstein_radius(var, n, value_range[best, o], d_r) <= 0:
            return best, False, above, means
    if threshold is not None:
        var = max(s2[best, best] - n * means[best] ** 2, 0.0) / (n - 1)
        rad = empirical_bernstein_radius(var, n, value_range[best, best], d_r)
        if not (means[best] - rad >= threshold or means[best] + rad < threshold):
            return best, False, above, means
    return best, True, above, means


@dataclass(frozen=True, repr=False)
class OracleQueryResult:
    """Answers of :meth:`SpectralClusteringOracle.query` (fast mode).

    Attributes
    ----------
    labels : ndarray of int64, shape (q,)
        Cluster of each vertex (``outlier_label`` when below the threshold).
    certified : ndarray of bool, shape (q,)
        Whether the sequential test certified the label (all ``False`` when
        ``error_rate`` is None: fixed number of walks, no certificate).
    n_walks : ndarray of int64, shape (q,)
        Query walks drawn per vertex.
    scores : ndarray of shape (q, k)
        Mean estimated dot product with each cluster's landmarks (with
        ``landmark_clustering="kmeans"`` the label maximises these divided by
        the norms of the clusters' mean landmark embeddings).
    error_rate : float or None
        Bound on the probability that a certified label differs from the
        label the same oracle would give with infinitely many query walks.

    Examples
    --------
    >>> from statlearn.cluster import SpectralClusteringOracle
    >>> from statlearn.datasets import make_planted_expanders
    >>> A, _ = make_planted_expanders([300, 300], 10, n_bridges=10, random_state=0)
    >>> res = SpectralClusteringOracle(2, mode="fast", random_state=0).fit(A).query([0, 400])
    >>> res.labels.shape, bool(res.certified.any()), res.error_rate
    ((2,), False, None)
    """

    labels: np.ndarray
    certified: np.ndarray
    n_walks: np.ndarray
    scores: np.ndarray
    error_rate: float | None

    def __repr__(self):
        return (f"OracleQueryResult(q={self.labels.size}, certified={int(self.certified.sum())}, "
                f"mean_walks={float(self.n_walks.mean()) if self.n_walks.size else 0:.1f})")

    def summary(self) -> str:
        """Counts of labels, certified answers and walks used."""
        q = self.labels.size
        lines = [f"queries: {q}", f"error_rate: {self.error_rate}",
                 f"certified: {int(self.certified.sum())} of {q}"]
        if q:
            lines.append(f"walks per query: mean {self.n_walks.mean():.1f}, "
                         f"max {int(self.n_walks.max())}")
            vals, cnt = np.unique(self.labels, return_counts=True)
            lines.append("labels: " + ", ".join(f"{a}: {b}" for a, b in zip(vals, cnt)))
        return "\n".join(lines)

    def plot(self, ax=None):
        """Histogram of query walks used, certified and not; returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        for mask, name in ((self.certified, "certified"), (~self.certified, "not certified")):
            if mask.any():
                ax.hist(self.n_walks[mask], bins=20, alpha=0.6, label=name)
        ax.set_xlabel("query walks")
        ax.set_ylabel("vertices")
        ax.legend()
        return ax


def answer_queries(o, v, force):
    """Labels of the vertices ``v`` with their certificates (see the module docstring).

    ``v`` are checked vertex ids of a fitted fast-mode oracle ``o``; ``force``
    skips the threshold test (no outlier label).
    """
    p = o._p
    if p.k == 1:
        z = np.zeros(v.size, dtype=np.int64)
        return OracleQueryResult(z, np.ones(v.size, bool), z, np.zeros((v.size, 1)),
                                 None if o.error_rate is None
                                 else float(_scalar(o.error_rate)))
    er = None if o.error_rate is None else float(_scalar(o.error_rate))
    r0 = p.n_walks
    q = v.size
    labels = np.zeros(q, dtype=np.int64)
    certified = np.zeros(q, dtype=bool)
    used = np.zeros(q, dtype=np.int64)
    means = np.zeros((q, p.k))
    if q == 0:
        return OracleQueryResult(labels, certified, used, means, er)
    k = p.k
    s1 = np.zeros((q, k))
    s2 = np.zeros((q, k, k))
    add_query_moments(o, v, np.arange(q), 0, r0, s1, s2)
    used[:] = r0
    # the scores are divided by o._score_scale (k-means: the centroid norms; otherwise 1),
    # so the threshold on the raw mean dot product is one value per cluster
    scale = o._score_scale
    if er is None:
        means = s1 / r0
        labels = np.argmax(means, axis=1).astype(np.int64)
        above = means[np.arange(q), labels] >= o.threshold_ / scale[labels]
    else:
        thr = None if force else o.threshold_ / scale
        above = np.ones(q, dtype=bool)
        pending = np.arange(q)
        r = 1
        while pending.size:
            still = []
            for i in pending:
                best, ok, ab, m = certify_moments(used[i], s1[i], s2[i], er,
                                                  o._score_range, thr, r)
                labels[i], above[i], means[i] = best, ab, m
                if ok:
                    certified[i] = True
                elif used[i] < o.max_query_walks_:
                    still.append(i)
            pending = np.array(still, dtype=np.int64)
            if pending.size:
                # doubling: every pending vertex (all have the same count) draws as many
                # new walks as it has, continuing its walk ids
                n_have = int(used[pending[0]])
                extra = min(n_have, o.max_query_walks_ - n_have)
                add_query_moments(o, v, pending, n_have, extra, s1, s2)
                used[pending] += extra
                r += 1
    if not force:
        labels[~above] = o.outlier_label_
    return OracleQueryResult(labels, certified, used, means * scale, er)
