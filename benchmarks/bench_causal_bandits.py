"""Speed of the structural causal bandit solvers and arm-set algorithms.

Peers a user would pick: a Python loop calling the policy's
``select``/``update`` each round (``engine="python"``, the same decisions),
SciPy's Brent root finder for the KL-UCB index (what the reference SCB code
uses), and the brute-force definitions of POMIS and CTF-POMIS. Measured in
one run:

1. rounds per second of the Numba loop and of the Python loop for KL-UCB and
   Thompson sampling with 16 arms (POMIS of XYZWST) and 243 arms (all
   subsets), and their ratio;
2. one KL-UCB index: the Newton kernel against ``scipy.optimize.brentq``;
3. fast POMIS against brute force on random diagrams of growing size, and
   fast CTF-POMIS against the edge-subset enumerator;
   (the Python loop reuses the compiled index and Beta-draw kernels each round,
   so with many arms its overhead is small: the per-round work dominates);
4. how the Numba loop's time grows with the horizon.

Usage: ``python benchmarks/bench_causal_bandits.py [--quick]``
"""

from __future__ import annotations

import time

import numpy as np
from _cli import quick_flag

from statlearn.bandits.causal import (
    KLUCB,
    CausalBandit,
    CausalDiagram,
    ThompsonSampling,
    arm_set,
    ctf_pomis,
    ctf_pomis_bruteforce,
    make_task,
    pomis,
    pomis_bruteforce,
    run_bandit,
)
from statlearn.bandits.causal import _kernels as _k


def _best(f, repeat):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def _random_diagram(n, rng, p_edge=0.35, n_bi=None):
    names = [f"V{i}" for i in range(n - 1)] + ["Y"]
    directed = [(names[i], names[j]) for j in range(n) for i in range(j) if rng.random() < p_edge]
    directed.append((names[n - 2], "Y"))
    pairs = [(i, j) for j in range(n) for i in range(j)]
    n_bi = n // 2 if n_bi is None else n_bi
    chosen = rng.choice(len(pairs), size=min(n_bi, len(pairs)), replace=False)
    return CausalDiagram(names, set(directed), [(names[pairs[c][0]], names[pairs[c][1]])
                                                for c in chosen])


def main(quick: bool) -> None:
    scm, y = make_task("XYZWST", random_state=0)
    bandits = {s: CausalBandit(scm, y, arm_set(scm, y, s)) for s in ("POMIS", "all-subsets")}
    T = 10_000
    T_py = 1000 if quick else 5000
    for pol in (KLUCB(), ThompsonSampling()):          # compile / load cache
        run_bandit(pol, [0.4, 0.6], 50, random_state=0)

    print(f"1. Numba loop vs Python step loop (ratio on {T_py} rounds); last column: Numba "
          f"seconds for T = {T}")
    print(f"{'policy':18s} {'arms':>5s} {'numba s':>9s} {'python s':>9s} {'ratio':>7s} "
          f"{'numba s, T=' + str(T):>16s}")
    for bandit in bandits.values():
        for pol in (KLUCB(), ThompsonSampling()):
            tn = _best(lambda pol=pol, bandit=bandit: run_bandit(
                pol, bandit, T_py, random_state=1), 3)
            tp = _best(lambda pol=pol, bandit=bandit: run_bandit(
                pol, bandit, T_py, random_state=1, engine="python"), 1)
            tT = _best(lambda pol=pol, bandit=bandit: run_bandit(pol, bandit, T, random_state=1), 1)
            print(f"{type(pol).__name__:18s} {bandit.n_arms:5d} {tn:9.4f} {tp:9.3f} "
                  f"{tp / tn:7.0f} {tT:16.3f}")

    print("\n2. one KL-UCB index (mean 0.3, N = 50, level log(1e4) + 3 log log(1e4))")
    from scipy.optimize import brentq

    level = _k.exploration_level(10_000, 3.0)
    _k.klucb_index(0.3, 50.0, level)
    n_calls = 2000

    def newton():
        for _ in range(n_calls):
            _k.klucb_index(0.3, 50.0, level)

    def brent():
        for _ in range(n_calls):
            brentq(lambda q: 50 * _k.bernoulli_kl(0.3, q) - level, 0.3, 1 - 1e-12, xtol=1e-12)

    tn, tb = _best(newton, 3) / n_calls, _best(brent, 3) / n_calls
    print(f"   Newton kernel {tn * 1e6:.2f} us, scipy brentq {tb * 1e6:.2f} us, ratio "
          f"{tb / tn:.0f}")

    print("\n3. arm-set algorithms on random diagrams (n nodes, n/2 bidirected edges)")
    rng = np.random.default_rng(0)
    sizes = [6, 8, 10] if quick else [6, 8, 10, 12, 14]
    print(f"{'n':>3s} {'POMIS fast s':>13s} {'brute s':>9s} {'ratio':>7s}")
    for n in sizes:
        gs = [_random_diagram(n, rng) for _ in range(5)]
        tf = _best(lambda gs=gs: [pomis(g, "Y") for g in gs], 1) / 5
        tb = _best(lambda gs=gs: [pomis_bruteforce(g, "Y") for g in gs], 1) / 5
        print(f"{n:3d} {tf:13.4f} {tb:9.4f} {tb / tf:7.1f}")
    print(f"{'n':>3s} {'|E|':>4s} {'CTF fast s':>11s} {'brute s':>9s} {'ratio':>7s}")
    for n in ([4, 5, 6] if quick else [4, 5, 6, 7]):
        gs = [_random_diagram(n, rng, p_edge=0.5, n_bi=2) for _ in range(3)]
        edges = np.mean([len(g.subgraph(g.ancestors("Y")).directed) for g in gs])
        tf = _best(lambda gs=gs: [ctf_pomis(g, "Y") for g in gs], 1) / 3
        tb = _best(lambda gs=gs: [ctf_pomis_bruteforce(g, "Y") for g in gs], 1) / 3
        print(f"{n:3d} {edges:4.1f} {tf:11.4f} {tb:9.4f} {tb / tf:7.1f}")

    print("\n4. Numba loop time against the horizon (KL-UCB, 243 arms)")
    for horizon in ([2000, 8000, 32000] if quick else [2000, 8000, 32000, 128000]):
        t = _best(lambda horizon=horizon: run_bandit(KLUCB(), bandits["all-subsets"], horizon,
                                                     random_state=1), 1)
        print(f"   T = {horizon:6d}: {t:.3f} s ({horizon / t:,.0f} rounds/s)")


if __name__ == "__main__":
    main(quick_flag(__doc__))
