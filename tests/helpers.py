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

import pytest

__all__ = ["names_argument", "raises"]


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
