"""Cost of the minimax decision rule: the generic LP against the fast paths.

The peer a user would otherwise pick for this problem is a generic LP solver;
statlearn's generic path is exactly that (the joint LP with HiGHS through
``scipy.optimize.linprog``). This times, in one run:

* ``lp`` vs ``d1``: fitting :class:`MinimaxDecisionRule` for self-orthogonal
  scalar forecasts with the joint LP and with the exact search over the
  breakpoints of the one-dimensional dual, for growing numbers ``n`` of distinct
  forecasts (3 actions) and growing numbers of actions ``m`` (n fixed);
* ``lp`` vs ``closed_form`` for decision calibration and bin-wise calibration;
* multiclass forecasts on the simplex (``d = 3``, 3 actions): the joint LP for
  growing ``n`` and the out-of-sample pointwise solves.

Ratios are LP time / fast-path time (higher means the fast path is faster); the
robust values of both paths are compared (they must agree to 1e-7). The growth
of each path is summarised by the log-log slope of time against ``n``.

Usage: ``python benchmarks/bench_calibration.py [--quick]``
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from _cli import quick_flag

from statlearn.calibration import CalibrationWarning, MinimaxDecisionRule, affine_utility


def _time(f, repeat, *args):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f(*args)
        best = min(best, time.perf_counter() - t0)
    return best, out


def _fit(repeat, X, U, c=None, **kw):
    """Best-of-``repeat`` time of fitting a MinimaxDecisionRule, and the fitted rule."""
    return _time(lambda: MinimaxDecisionRule(U, c, **kw).fit(X), repeat)


def _slope(ns, ts):
    return float(np.polyfit(np.log(ns), np.log(ts), 1)[0])


def main(quick: bool) -> None:
    warnings.simplefilter("ignore", CalibrationWarning)
    rng = np.random.default_rng(0)
    rep = 1 if quick else 3
    U, c = affine_utility([0.8, 1.0, 1.2], cost_scale=0.5)

    print("1) self-orthogonal scalar forecasts, 3 actions: joint LP vs 1-D dual search")
    ns = [250, 1000, 4000] if quick else [250, 1000, 4000, 16000, 64000]
    print(f"{'n':>7} {'lp [s]':>9} {'d1 [s]':>9} {'lp/d1':>8} {'|value diff|':>13}")
    t_lp, t_d1 = [], []
    for n in ns:
        v = rng.beta(2, 3, size=n)
        a, ra = _fit(rep, v, U, c, method="lp")
        b, rb = _fit(rep, v, U, c, method="d1")
        t_lp.append(a)
        t_d1.append(b)
        print(f"{n:>7} {a:>9.4f} {b:>9.4f} {a / b:>8.1f} "
              f"{abs(ra.robust_value_ - rb.robust_value_):>13.1e}")
    print(f"   log-log slope in n: lp {_slope(ns, t_lp):.2f}, d1 {_slope(ns, t_d1):.2f}")

    print("\n2) number of actions m (n = 2000 scalar forecasts, self-orthogonal)")
    ms = [2, 5, 10, 20] if quick else [2, 5, 10, 20, 50]
    v = rng.beta(2, 3, size=2000)
    print(f"{'m':>7} {'lp [s]':>9} {'d1 [s]':>9} {'lp/d1':>8}")
    t_m = []
    for m in ms:
        Um, cm = affine_utility(np.linspace(0.5, 1.5, m), cost_scale=0.5)
        a, ra = _fit(rep, v, Um, cm, method="lp")
        b, rb = _fit(rep, v, Um, cm, method="d1")
        assert abs(ra.robust_value_ - rb.robust_value_) < 1e-7
        t_m.append(a)
        print(f"{m:>7} {a:>9.4f} {b:>9.4f} {a / b:>8.1f}")
    print(f"   log-log slope of the LP time in m: {_slope(ms, t_m):.2f}")

    print("\n3) closed forms vs the joint LP (3 actions, scalar forecasts)")
    print(f"{'n':>7} {'tests':>9} {'lp [s]':>9} {'closed [s]':>11} {'lp/closed':>10}")
    for n in ns:
        v = rng.beta(2, 3, size=n)
        for tests in ("decision", "binwise"):
            a, ra = _fit(rep, v, U, c, tests=tests, method="lp")
            b, rb = _fit(rep, v, U, c, tests=tests)
            assert rb.method_ == "closed_form"
            assert abs(ra.robust_value_ - rb.robust_value_) < 1e-7
            print(f"{n:>7} {tests:>9} {a:>9.4f} {b:>11.5f} {a / b:>10.0f}")

    print("\n4) multiclass on the simplex (d = 3, accuracy utility): joint LP and "
          "out-of-sample pointwise LPs")
    nd = [100, 400, 1600] if quick else [100, 400, 1600, 6400]
    print(f"{'n':>7} {'fit lp [s]':>11} {'predict 100 new [s]':>20}")
    t_fit = []
    for n in nd:
        V = rng.dirichlet(np.ones(3), size=n)
        a, rule = _fit(rep, V, np.eye(3))
        new = rng.dirichlet(np.ones(3), size=100)
        b, _ = _time(rule.predict_proba, rep, new)
        t_fit.append(a)
        print(f"{n:>7} {a:>11.4f} {b:>20.4f}")
    print(f"   log-log slope of the simplex LP fit in n: {_slope(nd, t_fit):.2f}")


if __name__ == "__main__":
    main(quick_flag(__doc__))
