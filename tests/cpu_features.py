"""What the suite's second pass switches off to run as a CPU without AVX-512 would.

NumPy chooses its SIMD loops (``exp``, ``log``, sums) at run time from the CPU's
features, OpenBLAS chooses its kernels the same way, and Numba compiles for the
host CPU; each rounds the last bit of some results differently from the others.
A test that holds on one CPU's rounding only is a defect, so ``make test`` runs
the suite a second time with these switched off:

* ``NPY_DISABLE_CPU_FEATURES``: NumPy's AVX-512 dispatch targets (their names
  differ between NumPy versions, so they are read from the NumPy installed);
* ``OPENBLAS_CORETYPE=Haswell`` and ``NUMBA_CPU_NAME=haswell``: the AVX2 kernels
  of OpenBLAS and an AVX2 target for Numba, set only on an x86-64 CPU that has
  AVX2 (elsewhere they would name instructions the CPU does not have).

Run as a script, it prints the assignments for ``env``::

    env $(python tests/cpu_features.py) python -m pytest ...

:func:`report` is the line the test session prints in its header.
"""

from __future__ import annotations

import platform
import sys


def _numpy_dispatch_targets():
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # NumPy 1.x
        from numpy.core import _multiarray_umath as umath
    return list(getattr(umath, "__cpu_dispatch__", [])), umath.__cpu_features__


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def no_avx512_env():
    """The environment variables of the pass without AVX-512, as a dict."""
    targets, _ = _numpy_dispatch_targets()
    off = [t for t in targets if t.startswith("AVX512") or t == "X86_V4"]
    env = {}
    if off:
        env["NPY_DISABLE_CPU_FEATURES"] = ",".join(off)
    if platform.machine().lower() in ("x86_64", "amd64") and "avx2" in _cpu_flags():
        env["OPENBLAS_CORETYPE"] = "Haswell"
        env["NUMBA_CPU_NAME"] = "haswell"
    return env


def report():
    """One line: the SIMD targets NumPy uses, the BLAS kernels and Numba's CPU."""
    import os

    targets, features = _numpy_dispatch_targets()
    used = [t for t in targets if features.get(t)]
    off = os.environ.get("NPY_DISABLE_CPU_FEATURES", "")
    parts = [f"numpy SIMD dispatch: {' '.join(used) or 'baseline only'}"]
    if off:
        parts.append(f"disabled: {off}")
    try:
        from threadpoolctl import threadpool_info

        blas = [f"{i.get('internal_api')} {i.get('architecture')}" for i in threadpool_info()
                if i.get("user_api") == "blas"]
        parts.append(f"BLAS: {', '.join(blas) or 'unknown'}")
    except ImportError:  # pragma: no cover
        pass
    parts.append(f"numba CPU: {os.environ.get('NUMBA_CPU_NAME', 'host')}")
    return "; ".join(parts)


if __name__ == "__main__":
    sys.stdout.write(" ".join(f"{k}={v}" for k, v in no_avx512_env().items()) + "\n")
