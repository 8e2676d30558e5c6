"""The user-guide page "Verifying guarantees" runs as written, outputs included."""

from __future__ import annotations

import doctest
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "user_guide" / "verifying_guarantees.rst"


def test_verifying_guarantees_page_runs():
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testfile(str(PAGE), module_relative=False, optionflags=flags,
                              raise_on_error=False, verbose=False)
    assert result.attempted > 20
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
