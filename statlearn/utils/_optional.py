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

# What pip installs for each extra's module (the statlearn distribution itself is
# not on the package index, so ``statlearn[extra]`` cannot be pip-installed by name).
_PIP_NAME = {
    "cupy": "cupy-cuda13x (or the cupy-cudaXXx matching your CUDA)",
    "dask": "'dask[distributed]'",
    "distributed": "'dask[distributed]'",
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
    ImportError: no_such_module_xyz is required ... pip install '.[gpu]' ...
    """
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        extra = extra or _EXTRA.get(name.split(".")[0])
        why = f" for {purpose}" if purpose else ""
        top = name.split(".")[0]
        how = f"install it with: pip install {_PIP_NAME.get(top, top)}"
        if extra:
            how += (f"; or, in a clone of the statlearn repository, pip install '.[{extra}]' "
                    f"(the '{extra}' extra)")
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
