"""Risk control: conformal risk control (CRC) and learn-then-test (LTT).

Guarantees on losses other than miscoverage, computed from a loss matrix
(one row per calibration point, one column per candidate parameter):

* :mod:`._losses`: the loss matrices of miscoverage, multi-label false
  negative rate and precision, and binary precision / recall;
* :mod:`._crc`: :func:`conformal_risk_control` (Angelopoulos, Bates, Fisch,
  Lei & Schuster, ICLR 2024), ``E[L(lambda_hat)] <= alpha``;
* :mod:`._ltt`: the Hoeffding, Bentkus and Hoeffding-Bentkus p-values,
  Bonferroni, Holm and fixed-sequence family-wise error control, and
  :func:`learn_then_test` (Angelopoulos, Bates, Candes, Jordan & Lei, 2025),
  ``P(R(lambda) <= alpha for every certified lambda) >= 1 - delta``;
* :mod:`._result`: :class:`RiskControlResult`;
* :mod:`._controllers`: :class:`MultiLabelRiskController` and
  :class:`BinaryRiskController` around a classifier.
"""

from ._controllers import BinaryRiskController, MultiLabelRiskController
from ._crc import conformal_risk_control
from ._losses import (
    binary_losses,
    miscoverage_losses,
    multilabel_fnr_losses,
    multilabel_precision_losses,
)
from ._ltt import (
    bentkus_pvalue,
    fwer_control,
    hoeffding_bentkus_pvalue,
    hoeffding_pvalue,
    learn_then_test,
)
from ._result import RiskControlResult

__all__ = [
    "BinaryRiskController",
    "MultiLabelRiskController",
    "RiskControlResult",
    "bentkus_pvalue",
    "binary_losses",
    "conformal_risk_control",
    "fwer_control",
    "hoeffding_bentkus_pvalue",
    "hoeffding_pvalue",
    "learn_then_test",
    "miscoverage_losses",
    "multilabel_fnr_losses",
    "multilabel_precision_losses",
]
