"""Optional dependencies, imported on demand with a message naming the extra."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["import_optional", "has_module"]

_EXTRA = {
    "cupy": "gpu",
    "dask": "dask",
    "distributed": "dask",
    "mapie": "test",
    "networkx": "test",
}


def import_optional(name: str, extra: str | None = None, purpose: str | None = None) -> ModuleType:
    """Import an optional dependency or raise an ``ImportError`` saying how to get it.

    Parameters
    ----------
    name : str
        Module to import, e.g. ``"cupy"`` or ``"dask.distributed"``.
    extra : str, optional
        The ``statlearn`` extra that installs it; guessed for known modules.
    purpose : str, optional
        What the module is needed for, added to the message.

    Examples
    --------
    >>> from statlearn.utils import import_optional
    >>> import_optional("math").sqrt(4.0)
    2.0
    >>> import_optional("no_such_module_xyz", extra="gpu")
    Traceback (most recent call last):
    ...
    ImportError: no_such_module_xyz is required ... pip install 'statlearn[gpu]'.
    """
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        extra = extra or _EXTRA.get(name.split(".")[0])
        why = f" for {purpose}" if purpose else ""
        how = f"pip install 'statlearn[{extra}]'" if extra else f"pip install {name}"
        raise ImportError(f"{name} is required{why} but could not be imported; {how}.") from exc


def has_module(name: str) -> bool:
    """Whether ``name`` can be imported (without raising).

    Examples
    --------
    >>> from statlearn.utils import has_module
    >>> has_module("numpy")
    True
    """
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True
