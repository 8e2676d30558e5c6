"""Risk control: statlearn against MAPIE's ``mapie.risk_control``, calibration time.

Times the calibration call on identical data and prefit models, 100 thresholds:

* binary precision by LTT (Holm): ``BinaryRiskController(prefit=True).fit`` against
  ``BinaryClassificationController.calibrate``, ``n`` calibration points;
* multi-label recall by CRC: ``MultiLabelRiskController(prefit=True).fit`` against
  ``MultiLabelClassificationController.calibrate`` (which loops in Python over points
  and thresholds), ``n`` points, 5 labels.

Ratios above 1 mean statlearn is faster; the chosen thresholds are checked to agree.
Cost grows linearly in ``n`` for both (two sizes printed). Run
``python benchmarks/bench_risk_control.py`` or ``--quick``.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification, make_multilabel_classification
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import MultiOutputClassifier

from statlearn.conformal import BinaryRiskController, MultiLabelRiskController


def best_time(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def bench_binary(n, repeat):
    from mapie.risk_control import BinaryClassificationController

    X, y = make_classification(n + 2000, n_features=10, random_state=0)
    model = LogisticRegression().fit(X[:2000], y[:2000])
    Xc, yc = X[2000:], y[2000:]
    grid = np.round(np.linspace(0, 0.99, 100), 2)

    def ours():
        return BinaryRiskController(model, alpha=0.1, delta=0.1, thresholds=grid,
                                    prefit=True).fit(Xc, yc).threshold_

    def theirs():
        ctrl = BinaryClassificationController(model.predict_proba, "precision", 0.9,
                                              confidence_level=0.9,
                                              list_predict_params=grid)
        return ctrl.calibrate(Xc, yc).best_predict_param

    t_ours, a = best_time(ours, repeat)
    t_mapie, b = best_time(theirs, repeat)
    return dict(method="binary precision, LTT", n=n, statlearn_s=t_ours, mapie_s=t_mapie,
                same_threshold=bool(a == b))


def bench_multilabel(n, repeat):
    from mapie.risk_control import MultiLabelClassificationController

    X, Y = make_multilabel_classification(n + 1000, n_classes=5, allow_unlabeled=False,
                                          random_state=0)
    model = MultiOutputClassifier(LogisticRegression(max_iter=500)).fit(X[:1000], Y[:1000])
    Xc, Yc = X[1000:], Y[1000:]
    grid = np.round(np.arange(0, 1, 0.01), 2)

    def ours():
        return MultiLabelRiskController(model, alpha=1 - 0.9, thresholds=grid,
                                        prefit=True).fit(Xc, Yc).threshold_

    def theirs():
        ctrl = MultiLabelClassificationController(
            lambda Z: np.column_stack([p[:, 1] for p in model.predict_proba(Z)]),
            risk="recall", method="crc", target_level=0.9,
            predict_params=np.nextafter(grid, -np.inf))  # their sets are p > t
        return float(ctrl.calibrate(Xc, Yc).best_predict_param[0])

    t_ours, a = best_time(ours, repeat)
    t_mapie, b = best_time(theirs, repeat)
    return dict(method="multi-label recall, CRC", n=n, statlearn_s=t_ours, mapie_s=t_mapie,
                same_threshold=bool(np.nextafter(a, -np.inf) == b))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller calibration sets")
    args = parser.parse_args(argv)
    repeat = 2 if args.quick else 3
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in ((2000, 8000) if args.quick else (10_000, 40_000)):
            rows.append(bench_binary(n, repeat))
        for n in ((200, 800) if args.quick else (1000, 4000)):
            rows.append(bench_multilabel(n, 1 if args.quick else repeat))
    table = pd.DataFrame(rows)
    table["ratio (mapie / statlearn)"] = table["mapie_s"] / table["statlearn_s"]
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    return table


if __name__ == "__main__":
    main()
