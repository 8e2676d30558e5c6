"""Speed of the contextual queueing bandit simulator.

The alternative a user would write is a Python loop that steps the
environment and calls the policy's ``select``/``update`` each round
(``engine="python"``: NumPy-vectorised over the queue, the same decisions).
This measures, in one run:

1. rounds per second of the Numba loop and of that Python loop for the
   oracle, CQB-eps and CQB-Opt on the paper's instance (K = d = 5), and their
   ratio;
2. the cost of the exact MLE at every round (``refit_growth=0``) against the
   default geometric refit schedule;
3. how the Numba loop's time grows with the horizon T, and with the queue
   length (per-round work of CQB-Opt is O(Q K d^2));
4. one ``simulate`` run end to end (T = 5000, CQB-Opt and the coupled
   oracle) against its round loops alone, and the cost of drawing a run's
   randomness (rejection sampling of contexts, acceptance about 0.2).

Usage: ``python benchmarks/bench_queueing_bandits.py [--quick]``
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from _cli import quick_flag

from statlearn.bandits.queueing import (
    ContextualQueueEnv,
    CQBEpsilon,
    CQBOpt,
    OraclePolicy,
    make_queueing_instance,
    run_policy,
    simulate,
)


def _best(f, repeat):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main(quick: bool) -> None:
    warnings.simplefilter("ignore")
    env = make_queueing_instance(random_state=0)
    T = 5000
    T_py = 1000 if quick else 5000
    rand = env.sample_randomness(T, random_state=1)
    rand_py = env.sample_randomness(T_py, random_state=1)
    # compile (or load the cache) before timing
    for pol in (OraclePolicy(env.thetas), CQBOpt(), CQBEpsilon()):
        run_policy(pol, env, horizon=50, random_state=0)

    print(f"1. Numba loop vs Python step loop, K = d = 5, same {T_py} rounds for the ratio;")
    print(f"   last column: Numba seconds for the paper's T = {T}")
    print(f"{'policy':10s} {'numba s':>9s} {'rounds/s':>11s} {'python s':>9s} {'rounds/s':>9s}"
          f" {'ratio':>7s} {'numba s, T=' + str(T):>16s}")
    for name, pol in [("oracle", OraclePolicy(env.thetas)), ("CQB-eps", CQBEpsilon()),
                      ("CQB-Opt", CQBOpt())]:
        tn, _ = _best(lambda pol=pol: run_policy(pol, env, randomness=rand_py, random_state=2),
                      5)
        tp, _ = _best(lambda pol=pol: run_policy(pol, env, randomness=rand_py, random_state=2,
                                         engine="python"), 1)
        t5, _ = _best(lambda pol=pol: run_policy(pol, env, randomness=rand, random_state=2), 5)
        rn, rp = T_py / tn, T_py / tp
        print(f"{name:10s} {tn:9.4f} {rn:11.0f} {tp:9.3f} {rp:9.0f} {rn / rp:7.0f} {t5:16.4f}")

    print("\n2. Exact MLE refit at every round vs geometric refits (CQB-Opt, Numba)")
    tg, _ = _best(lambda: run_policy(CQBOpt(), env, randomness=rand, random_state=2), 3)
    te, _ = _best(lambda: run_policy(CQBOpt(refit_growth=0.0), env, randomness=rand,
                                     random_state=2), 1)
    print(f"refit_growth=0.1 (default): {tg:.4f} s   refit_growth=0: {te:.3f} s   "
          f"ratio {te / tg:.0f}")

    print("\n3a. Growth with the horizon (CQB-Opt, Numba)")
    print(f"{'T':>7s} {'seconds':>9s} {'us/round':>9s}")
    for TT in [1000, 4000, 16000] + ([] if quick else [64000]):
        r = env.sample_randomness(TT, random_state=3)
        t, _ = _best(lambda r=r: run_policy(CQBOpt(), env, randomness=r, random_state=2), 3)
        print(f"{TT:7d} {t:9.4f} {1e6 * t / TT:9.2f}")

    print("\n3b. Growth with the queue length (CQB-Opt, Numba, T = 4000; rates ~ 0.5,")
    print("    arrival rate raised until the queue is long)")
    print(f"{'lambda':>7s} {'mean Q':>9s} {'us/round':>9s} {'us/round/job':>13s}")
    slow = ContextualQueueEnv(0.3 * env.thetas, arrival_rate=0.3)
    for lam in [0.3, 0.45, 0.55, 0.7, 0.9]:
        e = ContextualQueueEnv(slow.thetas, arrival_rate=lam)
        r = e.sample_randomness(4000, random_state=4)
        t, run = _best(lambda e=e, r=r: run_policy(CQBOpt(), e, randomness=r, random_state=2),
                       2)
        q = run.queue_length.mean()
        print(f"{lam:7.2f} {q:9.1f} {1e6 * t / 4000:9.2f} {1e6 * t / 4000 / max(q, 1):13.3f}")

    print("\n4. One simulate() run end to end vs its two round loops (T = 5000, CQB-Opt)")
    simulate(CQBOpt(), env, horizon=T, n_reps=1, random_state=0)
    ts, _ = _best(lambda: simulate(CQBOpt(), env, horizon=T, n_reps=1, random_state=0), 7)
    tl, _ = _best(lambda: (run_policy(CQBOpt(), env, randomness=rand, random_state=2),
                           run_policy(OraclePolicy(env.thetas), env, randomness=rand,
                                      random_state=2)), 7)
    tr, _ = _best(lambda: env.sample_randomness(T, random_state=1), 7)
    print(f"simulate, 1 run: {ts:.4f} s   round loops: {tl:.4f} s   ratio {ts / tl:.1f}   "
          f"drawing the randomness: {tr:.4f} s (acceptance {rand.acceptance_rate:.3f})")


if __name__ == "__main__":
    main(quick_flag(__doc__))
