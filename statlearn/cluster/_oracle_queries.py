"""The queries of a built spectral clustering oracle: labels, dot products, certificates.

The methods of :class:`OracleQueries` answer ``WhichCluster`` and ``QueryDot`` from the built
data structure of :class:`~statlearn.cluster.SpectralClusteringOracle` (``psi_``, the
cluster landmarks' ``alpha`` rows and the threshold), in every mode; fast-mode
certified labels come from :mod:`._certified_queries`.
"""

from __future__ import annotations

import numbers

import numpy as np

from statlearn.utils._validation import _scalar

from ._batched_build import alpha_from_estimates
from ._certified_queries import answer_queries
from ._landmark_index import alpha_from_index
from ._walks import _vertices

__all__ = ["OracleQueries"]


class OracleQueries:
    """The query methods of the oracle, bound in the body of
    :class:`~statlearn.cluster.SpectralClusteringOracle` (which provides ``_check_fitted``,
    ``_p`` and the built attributes); not a base class."""

    def query(self, vertices, *, force=False):
        """Labels with their certificates (``mode="fast"``; sequential if ``error_rate``).

        Every vertex draws ``n_walks_`` walks; with ``error_rate`` set, vertices
        whose decision is not yet certain double their walks (all such vertices
        in one call, sharing the walk engine and the index look-ups) until the
        empirical Bernstein test certifies the label or ``max_query_walks_`` is
        reached (see Notes of the class).

        Parameters
        ----------
        vertices : array-like of int, shape (q,)
        force : bool, default=False
            No outlier label (the threshold test is skipped).

        Returns
        -------
        OracleQueryResult

        Examples
        --------
        >>> from statlearn.cluster import SpectralClusteringOracle
        >>> from statlearn.datasets import make_planted_expanders
        >>> A, y = make_planted_expanders([300, 300], 10, n_bridges=10, random_state=0)
        >>> o = SpectralClusteringOracle(2, mode="fast", error_rate=0.05, random_state=0)
        >>> res = o.fit(A).query([3, 500])
        >>> bool(res.labels[0] != res.labels[1]), bool(res.certified.all())
        (True, True)
        """
        self._check_fitted()
        v = self._check_vertices(vertices)
        p = self._p
        if not p.fast:
            raise ValueError("query needs mode='fast'.")
        return answer_queries(self, v, force)

    def _alpha(self, vertices):
        """Estimated collision probabilities ``alpha_x`` of each vertex with the landmarks."""
        if vertices.size == 0:
            return np.zeros((0, self._p.s))
        return (alpha_from_index if self._p.fast else alpha_from_estimates)(self, vertices)

    def _check_vertices(self, vertices, name="vertices"):
        arr = np.asarray(vertices)
        if arr.ndim != 1:
            raise ValueError(f"{name} must be a 1-D array of vertex ids, got shape {arr.shape}.")
        return _vertices(arr, name, self.n_vertices_)

    def embedding_dots(self, vertices):
        """Estimated ``<f_x, f_u>`` of each vertex with each cluster landmark.

        Parameters
        ----------
        vertices : array-like of int, shape (q,)

        Returns
        -------
        ndarray of shape (q, s')
        """
        self._check_fitted()
        v = self._check_vertices(vertices)
        if self._p.k == 1:
            raise ValueError("embedding_dots needs the Psi matrix, which is not built when "
                             "n_clusters=1.")
        return self._alpha(v) @ self.psi_ @ self._alpha_cluster.T

    def predict(self, vertices, *, force=False):
        """Cluster of each vertex (``WhichCluster``), ``outlier_label`` if none is close.

        Parameters
        ----------
        vertices : array-like of int, shape (q,)
            Vertex ids in ``[0, n)``.
        force : bool, default=False
            Return the best cluster even when its dot product is below
            ``threshold_`` (no outliers).

        Returns
        -------
        ndarray of int64, shape (q,)
        """
        self._check_fitted()
        v = self._check_vertices(vertices)
        if self._p.k == 1:
            return np.zeros(v.size, dtype=np.int64)
        if self._p.fast:
            return self.query(v, force=force).labels
        dots = self._alpha(v) @ self.psi_ @ self._alpha_cluster.T
        k = self._p.k
        best = np.full((v.size, k), -np.inf)
        for c in range(k):
            in_c = dots[:, self.landmark_labels_ == c]
            # threshold graph: the closest landmark (the paper's WhichCluster); k-means:
            # the centroid closest in angle (mean dot product over the centroid norm)
            best[:, c] = (in_c.max(axis=1) if self.landmark_clustering == "threshold"
                          else in_c.mean(axis=1) / self._score_scale[c])
        label = np.argmax(best, axis=1).astype(np.int64)
        if not force:
            label[dots.max(axis=1) < self.threshold_] = self.outlier_label_
        return label

    def which_cluster(self, v, *, force=False):
        """Cluster of one vertex (see :meth:`predict`).

        Parameters
        ----------
        v : int
            Vertex id.
        force : bool, default=False
            No outlier label.

        Returns
        -------
        int
        """
        self._check_fitted()
        v = _scalar(v)
        if isinstance(v, bool | np.bool_) or not isinstance(v, numbers.Integral):
            raise TypeError(f"v must be an integer vertex id, got {v!r}.")
        return int(self.predict(np.array([v]), force=force)[0])

    def dot(self, x, y):
        """Estimate of the spectral dot product ``<f_x, f_y>`` (``QueryDot``).

        Parameters
        ----------
        x, y : int
            Vertex ids.

        Returns
        -------
        float
        """
        self._check_fitted()
        x, y = _scalar(x), _scalar(y)
        for name, val in (("x", x), ("y", y)):
            if isinstance(val, bool | np.bool_) or not isinstance(val, numbers.Integral):
                raise TypeError(f"{name} must be an integer vertex id, got {val!r}.")
        v = self._check_vertices(np.array([x, y]))
        if self._p.k == 1:
            raise ValueError("dot needs the Psi matrix, which is not built when n_clusters=1.")
        a = self._alpha(v)
        return float(a[0] @ self.psi_ @ a[1])
