"""Shared pieces of result objects: confidence intervals and summaries."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["ConfidenceInterval", "Summary", "compact_repr", "normal_interval"]


class ConfidenceInterval(NamedTuple):
    """A confidence interval ``(low, high)``.

    Examples
    --------
    >>> from statlearn.utils import ConfidenceInterval
    >>> ci = ConfidenceInterval(0.1, 0.3)
    >>> ci.low, ci.high
    (0.1, 0.3)
    """

    low: float
    high: float


def _short(value) -> str:
    if isinstance(value, np.ndarray):
        if value.size <= 6 and value.ndim <= 1:
            return np.array2string(value, precision=4, separator=", ")
        return f"<array shape={value.shape} dtype={value.dtype}>"
    if isinstance(value, pd.DataFrame):
        return f"<DataFrame {value.shape[0]} rows x {value.shape[1]} columns>"
    if isinstance(value, float | np.floating):
        return format(float(value), ".4g")
    if isinstance(value, list | tuple) and len(value) > 6:
        return f"<{type(value).__name__} of {len(value)} items>"
    if isinstance(value, dict) and len(value) > 6:
        return f"<dict of {len(value)} items>"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def compact_repr(obj) -> str:
    """``repr`` of a result dataclass that never dumps large arrays or tables.

    Scalars are shown (floats to 4 significant digits); arrays of more than 6
    entries, DataFrames and long containers are shown by shape or length.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> import numpy as np
    >>> from statlearn.utils._results import compact_repr
    >>> @dataclass(frozen=True)
    ... class R:
    ...     estimate: float
    ...     draws: np.ndarray
    ...     __repr__ = compact_repr
    >>> R(0.123456, np.zeros(1000))
    R(estimate=0.1235, draws=<array shape=(1000,) dtype=float64>)
    """
    from dataclasses import fields

    parts = [f"{f.name}={_short(getattr(obj, f.name))}" for f in fields(obj) if f.repr]
    return f"{type(obj).__name__}({', '.join(parts)})"


def normal_interval(estimate, se, confidence_level: float = 0.95) -> ConfidenceInterval:
    """Two-sided normal (Wald) interval ``estimate +/- z * se``.

    Examples
    --------
    >>> from statlearn.utils import normal_interval
    >>> lo, hi = normal_interval(0.0, 1.0, 0.95)
    >>> round(hi, 2)
    1.96
    """
    from ._validation import check_real

    check_real(confidence_level, "confidence_level", low=0, high=1, closed="neither")
    z = stats.norm.ppf(0.5 + confidence_level / 2)
    est = np.asarray(estimate, dtype=float)
    half = z * np.asarray(se, dtype=float)
    low, high = est - half, est + half
    if low.ndim == 0:
        return ConfidenceInterval(float(low), float(high))
    return ConfidenceInterval(low, high)


@dataclass(frozen=True)
class Summary:
    """Readable summary of a result: a title, tables and notes.

    Renders as text (``str``), HTML in notebooks and Markdown
    (:meth:`as_markdown`) for reports.

    Parameters
    ----------
    title : str
        Heading.
    tables : dict of str to pandas.DataFrame
        Named tables.
    notes : tuple of str
        Free-text lines shown after the tables.

    Examples
    --------
    >>> import pandas as pd
    >>> from statlearn.utils import Summary
    >>> s = Summary("Coverage", {"": pd.DataFrame({"coverage": [0.91]})}, ("n = 100",))
    >>> print(s)
    Coverage
    ========
       coverage
    0      0.91
    n = 100
    """

    title: str
    tables: dict = field(default_factory=dict)
    notes: tuple = ()

    def __str__(self) -> str:
        lines = [self.title, "=" * len(self.title)]
        for name, table in self.tables.items():
            if name:
                lines.append(f"{name}:")
            lines.append(table.to_string() if isinstance(table, pd.DataFrame) else str(table))
        lines.extend(self.notes)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        parts = [f"<h4>{html.escape(self.title)}</h4>"]
        for name, table in self.tables.items():
            if name:
                parts.append(f"<p><b>{html.escape(name)}</b></p>")
            is_frame = isinstance(table, pd.DataFrame)
            parts.append(table.to_html() if is_frame else html.escape(str(table)))
        parts.extend(f"<p>{html.escape(n)}</p>" for n in self.notes)
        return "\n".join(parts)

    def as_markdown(self, level: int = 3) -> str:
        """Render as Markdown with the title as a heading of ``level``."""
        lines = ["#" * level + " " + self.title, ""]
        for name, table in self.tables.items():
            if name:
                lines += [f"**{name}**", ""]
            lines += [dataframe_to_markdown(table), ""]
        lines += [n + "\n" for n in self.notes]
        return "\n".join(lines)


def dataframe_to_markdown(df: pd.DataFrame, floatfmt: str = ".4g") -> str:
    """Render a DataFrame as a GitHub-flavoured Markdown table (no extra dependency).

    Examples
    --------
    >>> import pandas as pd
    >>> from statlearn.utils._results import dataframe_to_markdown
    >>> print(dataframe_to_markdown(pd.DataFrame({"a": [1.5], "b": ["x"]})))
    | a | b |
    |---|---|
    | 1.5 | x |
    """
    if not isinstance(df.index, pd.RangeIndex):
        df = df.reset_index()

    def fmt(v):
        if isinstance(v, float | np.floating):
            return format(float(v), floatfmt)
        return str(v)

    cols = [str(c) for c in df.columns]
    out = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        out.append("| " + " | ".join(fmt(v) for v in row) + " |")
    return "\n".join(out)
