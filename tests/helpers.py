"""Helpers shared by the test modules (one place, one argument order).

Errors are matched by their type, the argument they name and the value they
show, not by their whole sentence, so that wording can improve without breaking
tests:

>>> import pytest
>>> from tests.helpers import raises
>>> def f(alpha):
...     raise ValueError(f"alpha must be in (0, 1), got {alpha!r}.")
>>> exc = raises(lambda: f(2.0), ValueError, names="alpha", shows="2.0")
"""

from __future__ import annotations

import re
import sys
import warnings

import pytest

__all__ = ["names_argument", "raises", "spy_warnings"]


def names_argument(exc, name):
    """Whether the message of ``exc`` names ``name`` as a word (``X`` is not ``X_test``)."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", str(exc)) is not None


def raises(call, exc=ValueError, *, names=None, shows=None, match=None):
    """``call()`` raises ``exc``; return the exception.

    Parameters
    ----------
    call : callable
        Called without arguments.
    exc : type or tuple of types
        The exception type(s) expected.
    names : str or sequence of str, optional
        Arguments (or other identifiers) the message must name, each as a word.
    shows : str or sequence of str, optional
        Values the message must show, each as literal text (``"2.0"``, ``"'lac'"``).
    match : str, optional
        A regular expression the message must contain (``re.search``, DOTALL), for
        the one phrase a test is about.
    """
    with pytest.raises(exc) as info:
        call()
    msg = str(info.value)
    for name in [names] if isinstance(names, str) else (names or ()):
        assert names_argument(info.value, name), f"the message does not name {name!r}: {msg}"
    for value in [shows] if isinstance(shows, str) else (shows or ()):
        assert value in msg, f"the message does not show {value!r}: {msg}"
    if match is not None:
        assert re.search(match, msg, flags=re.S), f"{match!r} not in: {msg}"
    return info.value


def spy_warnings(monkeypatch, only=None):
    """Record (message, category, file of the frame ``stacklevel`` points at) per warning.

    mutmut's trampolines add frames between a caller and the mutated module's
    functions; they are not counted, so the file is the one Python would show for
    the unmutated code. With ``only`` (a predicate on the message text), other
    warnings go to :func:`warnings.warn` as usual, so code that records warnings
    of its own still sees them.
    """
    original, records = warnings.warn, []

    def warn(message, category=None, stacklevel=1, **kwargs):
        if only is not None and not only(str(message)):
            return original(message, category, stacklevel=stacklevel + 1, **kwargs)
        frame, level = sys._getframe(1), 1
        while level < stacklevel:
            frame = frame.f_back
            if "mutmut" not in frame.f_code.co_filename:
                level += 1
        records.append((str(message), category or UserWarning, frame.f_code.co_filename))

    monkeypatch.setattr(warnings, "warn", warn)
    return records
