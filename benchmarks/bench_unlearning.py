"""Unlearning m points with one Newton step against refitting from scratch.

Logistic ridge regression in the paper's regime (n = p, x_i ~ N(0, I_p / n),
lambda = 0.5). For each size and m in {1, 10, 100} this times, in one run:

* ``unlearn``: :meth:`NewtonUnlearner.unlearn` with the stored-Hessian Woodbury
  downdate, the verification gradient pass and the Gaussian noise (default
  settings), and the same with ``store_hessian=False`` (assembles and factorises
  the retained Hessian);
* ``sklearn``: ``LogisticRegression(C=1/lambda, fit_intercept=False)`` refitted on
  the retained data with its defaults (lbfgs, tol 1e-4), and with
  ``solver="newton-cholesky", tol=1e-10`` (the accuracy our exact solver reaches);
* ``exact``: our own exact Newton solver refitted from scratch.

Ratios are refit time / unlearn time (higher means unlearning is faster). The
fit-time cost of storing the Hessian factor is printed separately, and so are
the accuracies: the certified bound on the Newton error against the distance of
scikit-learn's default (loose-tolerance) refit to the exact retrain.

``--noise-cost`` prints instead what the certifying noise costs in accuracy at
several m/n (defaults: epsilon = 0.75, C1 = C2 = 1, intercept on), on shuffled
75/25 splits of two scikit-learn data sets (features standardised): the score of
the noise-free unlearned model against the mean score over 50 noise draws.

``--fit`` prints instead what fitting costs (the model that will later forget
rows), side by side with scikit-learn to the same tolerance: ``fit`` (best of 3)
against ``LogisticRegression(C=1/lambda, fit_intercept=False, tol=1e-10)`` plus
the one Hessian and Cholesky factorisation that unlearning stores, reported as
parts and as the ratio fit / (scikit-learn + Hessian + factor); target <= 1.3.
scikit-learn's lbfgs stops on its relative-decrease rule before the gradient rule
(``|sk - exact|`` shows how far), so two fits to the same accuracy stand beside it:
``sk-nc`` (``solver="newton-cholesky"``) and ``sp-lbfgs`` (SciPy's L-BFGS-B on the
same objective with ``gtol = 1e-10 * lambda`` and the relative-decrease rule off),
with ``ratio-same = fit / (sp-lbfgs + Hessian + factor)``.

``--requests`` times one request (logistic, lambda = 0.5, m = 10, no intercept)
at n = 1e5, p = 200 and n = p = 2000, with the verification on (the default) and
off, against a refit to the same accuracy on the retained rows:
``LogisticRegression(C=1/lambda, fit_intercept=False, tol=1e-10)`` (lbfgs; with
its default tolerance it stops at its first gradient check at n = 1e5, p = 200 and
returns zero, so that is no baseline); ``|refit - exact|`` is its distance to the exact
retrain. ``same`` is a refit certified to the Newton output's accuracy: SciPy's
L-BFGS-B from zero stopped only by ``||grad||_2 <= lambda * cert`` (``gtol`` on the
max-norm divided by sqrt(p), ``ftol = 0``). A second line per size gives the same request with
``store_influence=True`` (the rows ``H^{-1} x_i`` kept at fit: no ``p x p``
solve per request) and the fit times with and without them. ``--grid`` prints the same ratios on
n in {1e3, 1e4, 1e5} and p in {20, 200, 2000} (n p <= 2e7). ``--cpu-time`` times
these two with the CPU time of the process instead of wall time (on a loaded
machine, with one BLAS thread, ``OPENBLAS_NUM_THREADS=1``, it counts the work and
not the waiting). ``--rounds N`` prints either table N times in one process and
then, per size, the smallest, median and largest ratio and time over the rounds
(on a shared machine one round's ratio can differ from the next one's by a
third or more).

``--solve`` times the request's forward solve ``L^{-1} [U^T, v]`` alone on p in
{100, ..., 4000} and k in {2, ..., 101} right-hand sides, with ``L`` out of cache:
LAPACK's ``trtrs`` on one BLAS thread (what the request would run) against the
threaded Numba kernel ``forward_solve_rows``, as the ratio of their times.

Usage: ``python benchmarks/bench_unlearning.py [--quick] [--noise-cost | --fit | --requests
| --grid | --solve] [--cpu-time] [--rounds N]``
"""

from __future__ import annotations

import copy
import time
import warnings

import numpy as np
from _cli import parser
from scipy.optimize import minimize
from sklearn.linear_model import LogisticRegression

from statlearn.unlearning import NewtonUnlearner, UnlearningWarning, make_glm_data

LAM = 0.5
#: the clock of the timings: wall time, or with ``--cpu-time`` the CPU time of this
#: process (on a loaded machine with one BLAS thread, the work itself)
CLOCK = time.perf_counter


def _time(f, repeat):
    best = np.inf
    for _ in range(repeat):
        t0 = CLOCK()
        f()
        best = min(best, CLOCK() - t0)
    return best


def _timed_unlearn(fitted, idx, repeat):
    best = np.inf
    for _ in range(repeat):
        est = copy.deepcopy(fitted)
        t0 = CLOCK()
        est.unlearn(idx)
        best = min(best, CLOCK() - t0)
    return best, est.unlearn_report_


def main(quick: bool) -> None:
    sizes = [500, 1000, 2000] if quick else [500, 1000, 2000, 3000, 5000]
    ms = [1, 10, 100]
    warnings.simplefilter("ignore", UnlearningWarning)
    rows = []
    header = (f"{'n=p':>5} {'m':>4} {'unlearn':>9} {'direct':>9} {'sk-lbfgs':>9} "
              f"{'sk-newton':>9} {'exact':>9} {'x lbfgs':>8} {'x sk-nc':>8} {'x exact':>8} "
              f"{'newt-err':>9} {'lbfgs-err':>9} {'sigma':>8} {'fallback':>8}")
    print("times in seconds (best of repeats); 'x ...' = refit time / unlearn time;\n"
          "newt-err = certified bound on ||Newton output - exact retrain|| (before noise),\n"
          "lbfgs-err = ||sklearn lbfgs (default tol) - exact retrain||, sigma = noise scale")
    print(header)
    for n in sizes:
        X, y, _ = make_glm_data(n, n, random_state=n)
        repeat = 3 if n <= 500 else 1
        t0 = time.perf_counter()
        fast = NewtonUnlearner(fit_intercept=False, alpha=LAM, random_state=0).fit(X, y)
        t_fit = time.perf_counter() - t0
        slow = NewtonUnlearner(fit_intercept=False,
                               alpha=LAM, store_hessian=False, random_state=0).fit(X, y)
        for m in ms:
            idx = np.random.default_rng(m).choice(n, m, replace=False)
            keep = np.setdiff1d(np.arange(n), idx)
            Xk, yk = X[keep], y[keep]
            t_un, rep = _timed_unlearn(fast, idx, repeat)
            t_direct, _ = _timed_unlearn(slow, idx, repeat)
            t_lbfgs = _time(lambda Xk=Xk, yk=yk: LogisticRegression(
                C=1 / LAM, fit_intercept=False).fit(Xk, yk), repeat)
            t_sknc = _time(lambda Xk=Xk, yk=yk: LogisticRegression(
                C=1 / LAM, fit_intercept=False, solver="newton-cholesky", tol=1e-10,
                max_iter=1000).fit(Xk, yk), repeat)
            t_exact = _time(lambda Xk=Xk, yk=yk: NewtonUnlearner(fit_intercept=False,
                                                                 alpha=LAM, store_hessian=False)
                            .fit(Xk, yk), repeat)
            exact = NewtonUnlearner(fit_intercept=False,
                                    alpha=LAM, store_hessian=False).fit(Xk, yk).coef_
            lbfgs = LogisticRegression(C=1 / LAM, fit_intercept=False).fit(Xk, yk).coef_[0]
            err_lbfgs = np.linalg.norm(lbfgs - exact)
            rows.append((n, m, t_un, t_direct, t_lbfgs, t_sknc, t_exact))
            print(f"{n:>5} {m:>4} {t_un:>9.4f} {t_direct:>9.4f} {t_lbfgs:>9.4f} "
                  f"{t_sknc:>9.4f} {t_exact:>9.4f} {t_lbfgs / t_un:>8.1f} "
                  f"{t_sknc / t_un:>8.1f} {t_exact / t_un:>8.1f} {rep.delta_cert:>9.1e} "
                  f"{err_lbfgs:>9.1e} {rep.sigma:>8.3f} {rep.fallback!s:>8}", flush=True)
        print(f"      (fit with stored Hessian factor at n=p={n}: {t_fit:.3f} s)")
    arr = np.array(rows, dtype=float)
    print("\ncost growth with n = p (log-log slope of time, m = 10):")
    sel = arr[arr[:, 1] == 10]
    for j, name in [(2, "unlearn (Woodbury)"), (3, "unlearn (direct)"), (4, "sklearn lbfgs"),
                    (5, "sklearn newton-cholesky"), (6, "exact refit")]:
        slope = np.polyfit(np.log(sel[:, 0]), np.log(sel[:, j]), 1)[0]
        print(f"  {name:<25} {slope:5.2f}")


def fit_cost(quick: bool) -> None:
    """``fit`` against a scikit-learn fit to the same tolerance plus one Hessian + factor."""
    sizes = [(20_000, 200), (1000, 1000)] if quick else [(100_000, 200), (2000, 2000)]
    print("times in seconds (best of 3, one process). sk-lbfgs: LogisticRegression(C=2,\n"
          "fit_intercept=False, tol=1e-10) (it stops on its relative-decrease rule, see\n"
          "|sk - exact|); sk-nc: the same with solver='newton-cholesky' (same accuracy);\n"
          "H: the plain X^T (w X) Hessian, H-syrk: ours; ratio = fit / (sk-lbfgs + H + chol),\n"
          "ratio-nc = fit / sk-nc; 'old' = the Newton solver (solver='newton')")
    print(f"{'n':>7} {'p':>5} {'fit':>7} {'old':>7} {'sk-lbfgs':>8} {'sk-nc':>7} "
          f"{'sp-lbfgs':>8} {'H':>7} {'H-syrk':>7} {'chol':>7} {'ratio':>6} {'ratio-nc':>8} "
          f"{'ratio-same':>10} {'|sk - exact|':>12} {'|sp - exact|':>12}")
    for n, p in sizes:
        _fit_row(n, p)


def _fit_row(n, p):
    """One row of the fit-cost table (a function, so the timed lambdas bind its locals)."""
    from statlearn.unlearning._glm import objective_hessian

    X, y, _ = make_glm_data(n, p, random_state=0)
    est = NewtonUnlearner(alpha=LAM, fit_intercept=False, random_state=0)
    t_fit = _time(lambda: est.fit(X, y), 3)
    old = NewtonUnlearner(alpha=LAM, fit_intercept=False, solver="newton", random_state=0)
    t_old = _time(lambda: old.fit(X, y), 3)
    sk = LogisticRegression(C=1 / LAM, fit_intercept=False, tol=1e-10, max_iter=10_000)
    t_sk = _time(lambda: sk.fit(X, y), 3)
    nc = LogisticRegression(C=1 / LAM, fit_intercept=False, tol=1e-10, max_iter=10_000,
                            solver="newton-cholesky")
    t_nc = _time(lambda: nc.fit(X, y), 3)
    beta = est.coef_

    def scipy_fit():
        def fg(b):
            z = X @ b
            val = np.logaddexp(0.0, z).sum() - y @ z + 0.5 * LAM * (b @ b)
            return val, X.T @ (1.0 / (1.0 + np.exp(-z)) - y) + LAM * b
        return minimize(fg, np.zeros(p), jac=True, method="L-BFGS-B",
                        options={"gtol": 1e-10 * LAM, "ftol": 0.0, "maxiter": 10_000}).x

    t_sp = _time(scipy_fit, 3)
    sp = scipy_fit()
    w = 1.0 / (1.0 + np.exp(-(X @ beta)))
    w = w * (1.0 - w)
    t_h = _time(lambda: X.T @ (w[:, None] * X) + LAM * np.eye(p), 3)
    t_hs = _time(lambda: objective_hessian(beta, X, y, "logistic", LAM, np), 3)
    H = objective_hessian(beta, X, y, "logistic", LAM, np)
    t_c = _time(lambda: np.linalg.cholesky(H), 3)
    print(f"{n:>7} {p:>5} {t_fit:>7.3f} {t_old:>7.3f} {t_sk:>8.3f} {t_nc:>7.3f} "
          f"{t_sp:>8.3f} {t_h:>7.3f} {t_hs:>7.3f} {t_c:>7.3f} "
          f"{t_fit / (t_sk + t_h + t_c):>6.2f} {t_fit / t_nc:>8.2f} "
          f"{t_fit / (t_sp + t_h + t_c):>10.2f} {np.linalg.norm(beta - sk.coef_[0]):>12.1e} "
          f"{np.linalg.norm(beta - sp):>12.1e}", flush=True)


def _request_row(n, p, m=10, repeat=9):
    """One row of the request table: unlearn (verify on / off) against a same-accuracy refit."""
    X, y, _ = make_glm_data(n, p, random_state=0)
    idx = np.random.default_rng(m).choice(n, m, replace=False)
    keep = np.setdiff1d(np.arange(n), idx)
    Xk, yk = X[keep], y[keep]
    fitted, t_fit = {}, {}
    for v in (True, False):
        for infl in (False, True):
            est = NewtonUnlearner(alpha=LAM, fit_intercept=False, verify=v,
                                  store_influence=infl, random_state=0)
            t_fit[v, infl] = _time(lambda est=est: est.fit(X, y), 1)
            fitted[v, infl] = est
    t_on, rep_on = _timed_unlearn(fitted[True, False], idx, repeat)
    t_off, _ = _timed_unlearn(fitted[False, False], idx, repeat)
    t_ion, rep_ion = _timed_unlearn(fitted[True, True], idx, repeat)
    t_ioff, _ = _timed_unlearn(fitted[False, True], idx, repeat)
    assert rep_ion.hessian == "influence" and rep_ion.certified == rep_on.certified
    refit = LogisticRegression(C=1 / LAM, fit_intercept=False, tol=1e-10, max_iter=10_000)
    t_ref = _time(lambda: refit.fit(Xk, yk), 3)
    exact = fitted[True, False].retrain_reference(idx)
    err = np.linalg.norm(refit.coef_[0] - exact)
    # a refit certified to the Newton output's accuracy: ||grad||_2 <= lambda * cert
    gtol = LAM * rep_on.delta_cert / np.sqrt(p)
    t_same = _time(lambda: _scipy_refit(Xk, yk, gtol), 3)
    err_same = np.linalg.norm(_scipy_refit(Xk, yk, gtol) - exact)
    print(f"{n:>7} {p:>5} {m:>3} {t_on * 1e3:>9.2f} {t_off * 1e3:>9.2f} {t_ref * 1e3:>9.1f} "
          f"{int(refit.n_iter_[0]):>6} {t_ref / t_on:>7.1f} {t_ref / t_off:>7.1f} "
          f"{rep_on.delta_cert:>9.1e} {err:>12.1e} {t_same * 1e3:>9.1f} "
          f"{t_same / t_on:>7.1f} {t_same / t_off:>7.1f} {err_same:>9.1e} "
          f"{rep_on.fallback!s:>8}", flush=True)
    print(f"{'':>17} store_influence=True: {t_ion * 1e3:>9.2f} {t_ioff * 1e3:>9.2f} "
          f"(x on {t_ref / t_ion:.1f}, x off {t_ref / t_ioff:.1f}, xs on "
          f"{t_same / t_ion:.1f}); fit {t_fit[True, True]:.2f} s against "
          f"{t_fit[True, False]:.2f} s without", flush=True)
    return {"verify": t_on, "refit": t_ref, "x on": t_ref / t_on, "x off": t_ref / t_off}


def _scipy_refit(X, y, gtol):
    """SciPy's L-BFGS-B from zero on the retained objective, stopped by the gradient only."""
    def fg(b):
        z = X @ b
        val = np.logaddexp(0.0, z).sum() - y @ z + 0.5 * LAM * (b @ b)
        return val, X.T @ (1.0 / (1.0 + np.exp(-z)) - y) + LAM * b
    return minimize(fg, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B",
                    options={"gtol": gtol, "ftol": 0.0, "maxiter": 10_000}).x


def requests(grid: bool, rounds: int = 1) -> None:
    """One request against a refit to the same accuracy (times in ms, best of repeats).

    With ``rounds > 1`` the table is printed that many times in this process, and a
    summary gives each size's smallest, median and largest ratio over the rounds.
    """
    warnings.simplefilter("ignore", UnlearningWarning)
    if grid:
        sizes = [(n, p) for n in (1000, 10_000, 100_000) for p in (20, 200, 2000)
                 if n * p <= 20_000_000]
    else:
        sizes = [(100_000, 200), (2000, 2000)]
    clock = "CPU" if CLOCK is time.process_time else "wall"
    print(f"{clock} times in ms (unlearn: best of 9 on copies of one fit; refit: best of 3);\n"
          "refit = LogisticRegression(C=2, fit_intercept=False, tol=1e-10) on the kept rows;\n"
          "x on / x off = refit / unlearn with verify=True / False; cert = certified bound on\n"
          "||Newton output - exact retrain||, |refit - exact| = the refit's own error;\n"
          "same = SciPy L-BFGS-B refit stopped at ||grad|| <= lambda * cert (certified to the\n"
          "Newton output's accuracy), xs on / xs off its ratios, |same - exact| its error")
    print(f"{'n':>7} {'p':>5} {'m':>3} {'verify':>9} {'no-verify':>9} {'refit':>9} "
          f"{'iters':>6} {'x on':>7} {'x off':>7} {'cert':>9} {'|refit-exact|':>12} "
          f"{'same':>9} {'xs on':>7} {'xs off':>7} {'|same-exact|':>9} {'fallback':>8}")
    runs = {}
    for _ in range(rounds):
        for n, p in sizes:
            runs.setdefault((n, p), []).append(_request_row(n, p))
    if rounds > 1:
        print(_round_summary(runs))


def _round_summary(runs):
    """Per size, min / median / max over the rounds of each column of ``_request_row``."""
    keys = ("x on", "x off", "verify", "refit")
    lines = [f"over {len(next(iter(runs.values())))} rounds, min / median / max "
             "(times in ms):",
             f"{'n':>7} {'p':>5} " + " ".join(f"{k:>20}" for k in keys)]
    for (n, p), rows in runs.items():
        cells = []
        for k in keys:
            v = np.array([r[k] for r in rows]) * (1e3 if k in ("verify", "refit") else 1.0)
            cells.append(f"{v.min():.1f} / {np.median(v):.1f} / {v.max():.1f}")
        lines.append(f"{n:>7} {p:>5} " + " ".join(f"{c:>20}" for c in cells))
    return "\n".join(lines)


def _time_cold(f, evict, repeat=15):
    """Best time of ``f`` over repeats, each after reading ``evict`` (not timed)."""
    best = np.inf
    for _ in range(repeat):
        evict.sum()
        t0 = CLOCK()
        f()
        best = min(best, CLOCK() - t0)
    return best


def solve_cost() -> None:
    """The Woodbury forward solve ``L^{-1} B``: the threaded Numba kernel against ``trtrs``."""
    from scipy.linalg.lapack import dtrtrs
    from threadpoolctl import threadpool_limits

    from statlearn.unlearning._kernels import forward_solve_rows
    from statlearn.utils import _numba as nb

    threads = nb._numba.get_num_threads()
    evict = np.ones(8_000_000)  # 64 MB read between repeats: L starts out of cache
    rng = np.random.default_rng(0)
    print(f"L^-1 B, best of 15 with L out of cache: LAPACK trtrs on one BLAS thread (the "
          f"request's setting) / forward_solve_rows on {threads} Numba threads")
    ks = (2, 4, 11, 31, 101)
    print(f"{'p':>5} " + " ".join(f"{'k=' + str(k):>7}" for k in ks))
    with threadpool_limits(1):
        for p in (100, 200, 500, 1000, 2000, 4000):
            A = rng.standard_normal((p, p)) / np.sqrt(p)
            L = np.linalg.cholesky(A @ A.T + np.eye(p))
            row = []
            for k in ks:
                B = rng.standard_normal((p, k))
                Bf = np.asfortranarray(B)
                t_lapack = _time_cold(lambda L=L, Bf=Bf: dtrtrs(L.T, Bf, lower=0, trans=1), evict)
                t_kernel = _time_cold(lambda L=L, B=B: forward_solve_rows(L, B, threads), evict)
                row.append(t_lapack / t_kernel)
            print(f"{p:>5} " + " ".join(f"{r:>7.2f}" for r in row), flush=True)


def noise_cost(n_draws: int = 50) -> None:
    """Accuracy lost to the noise at several m/n (score without noise vs with noise)."""
    from sklearn.datasets import load_breast_cancer, load_diabetes
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    settings = []
    Xb, yb = load_breast_cancer(return_X_y=True)
    settings.append(("breast cancer, logistic, standardised", "logistic", Xb, yb, True, 1.0))
    Xd, yd = load_diabetes(return_X_y=True)
    settings.append(("diabetes, squared (R^2), standardised", "squared", Xd, yd, True, 1.0))
    print(f"{'setting':<40} {'m':>3} {'m/n':>7} {'sigma':>8} {'no noise':>9} "
          f"{'noise':>9} {'cost':>8}")
    for name, loss, X, y, scale, lam in settings:
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0,
                                              shuffle=True)
        if scale:
            sc = StandardScaler().fit(Xtr)
            Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
        n = Xtr.shape[0]
        for m in (1, 2, 4, 8, 16):
            idx = np.arange(m)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UnlearningWarning)
                clean = NewtonUnlearner(loss=loss, alpha=lam, noise=None).fit(Xtr, ytr)
                base = clean.unlearn(idx).score(Xte, yte)
                noisy = NewtonUnlearner(loss=loss, alpha=lam, random_state=0).fit(Xtr, ytr)
                scores = [copy.deepcopy(noisy).unlearn(idx, random_state=k).score(Xte, yte)
                          for k in range(n_draws)]
                sigma = noisy.unlearn(idx).unlearn_report_.sigma
            print(f"{name:<40} {m:>3} {m / n:>7.4f} {sigma:>8.4f} {base:>9.4f} "
                  f"{np.mean(scores):>9.4f} {base - np.mean(scores):>8.4f}")


def _parse(argv=None):
    p = parser(__doc__)
    what = p.add_mutually_exclusive_group()
    what.add_argument("--noise-cost", action="store_true",
                      help="accuracy lost to the certifying noise (instead of the main table)")
    what.add_argument("--fit", action="store_true", help="what fitting costs")
    what.add_argument("--requests", action="store_true",
                      help="one request against a same-accuracy refit")
    what.add_argument("--grid", action="store_true", help="the request table on an (n, p) grid")
    what.add_argument("--solve", action="store_true", help="the forward solve alone")
    p.add_argument("--quick", action="store_true", help="smaller sizes (main table, --fit, "
                   "--noise-cost)")
    p.add_argument("--cpu-time", action="store_true",
                   help="time --requests / --grid by the process's CPU time")
    p.add_argument("--rounds", type=int, default=1, metavar="N",
                   help="print --requests / --grid N times in one process, then each "
                   "ratio's min / median / max over the rounds")
    args = p.parse_args(argv)
    if args.cpu_time and not (args.requests or args.grid):
        p.error("--cpu-time times --requests or --grid only")
    if args.rounds != 1 and not (args.requests or args.grid):
        p.error("--rounds repeats --requests or --grid only")
    if args.rounds < 1:
        p.error(f"--rounds must be at least 1, got {args.rounds}")
    if args.quick and (args.requests or args.grid or args.solve):
        p.error("--quick has no smaller size for --requests, --grid or --solve")
    return args


if __name__ == "__main__":
    args = _parse()
    if args.noise_cost:
        noise_cost(20 if args.quick else 50)
    elif args.requests or args.grid:
        if args.cpu_time:
            CLOCK = time.process_time
        requests(args.grid, args.rounds)
    elif args.solve:
        solve_cost()
    elif args.fit:
        fit_cost(args.quick)
    else:
        main(args.quick)
