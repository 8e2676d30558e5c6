import numpy as np
import pytest

from statlearn.utils import (
    asarray_like,
    check_rng,
    get_namespace,
    has_module,
    import_optional,
    jit,
    spawn_rngs,
    spawn_seeds,
    to_numpy,
)
from statlearn.utils._numba import NUMBA_ENABLED


def test_check_rng_variants():
    g = np.random.default_rng(1)
    assert check_rng(g) is g
    assert check_rng(3).random() == np.random.default_rng(3).random()
    rs = np.random.RandomState(0)
    wrapped = check_rng(rs)
    wrapped.random()
    # the wrapper shares the RandomState's bit stream: the state advanced
    assert rs.get_state()[2] != np.random.RandomState(0).get_state()[2]
    assert isinstance(check_rng(np.random.SeedSequence(4)), np.random.Generator)
    for bad in ("1", 1.5, True):
        with pytest.raises(TypeError, match="random_state"):
            check_rng(bad)
    with pytest.raises(ValueError, match="non-negative"):
        check_rng(-3)


def test_spawned_streams_are_reproducible_and_distinct():
    a = [g.random() for g in spawn_rngs(5, 4)]
    b = [g.random() for g in spawn_rngs(5, 4)]
    assert a == b and len(set(a)) == 4
    assert [s.spawn_key for s in spawn_seeds(np.random.SeedSequence(1), 2)] == [(0,), (1,)]


def test_namespace_roundtrip(xp):
    x = xp.asarray([1.0, 2.0, 3.0])
    assert get_namespace(x, None, 2.0) is xp or get_namespace(x).__name__.endswith(
        xp.__name__.split(".")[-1])
    y = asarray_like([4.0], x)
    assert type(y) is type(x)
    np.testing.assert_array_equal(to_numpy(x), [1.0, 2.0, 3.0])


def test_mixed_namespaces_refused():
    array_api_strict = pytest.importorskip("array_api_strict")
    with pytest.raises(TypeError, match="one array library"):
        get_namespace(np.zeros(2), array_api_strict.asarray([1.0]))


def test_import_optional_names_extra():
    # the extra is named, and installed from the repository: the name statlearn on the
    # package index is another project, so "pip install statlearn[gpu]" must not be advised
    with pytest.raises(ImportError, match=r"pip install '\.\[gpu\]'.*'gpu' extra") as info:
        import_optional("cupy_does_not_exist_here", extra="gpu", purpose="GPU arrays")
    assert "statlearn[" not in str(info.value)
    assert has_module("numpy") and not has_module("cupy_does_not_exist_here")


@pytest.mark.numba
def test_jit_matches_python():
    def f(x):
        out = 0.0
        for i in range(x.shape[0]):
            out += x[i] * i
        return out

    x = np.linspace(0, 1, 11)
    assert jit(f)(x) == pytest.approx(f(x))
    assert jit(fastmath=False)(f)(x) == pytest.approx(f(x))


def test_numba_flag_reflects_environment():
    import os

    disabled = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
    assert NUMBA_ENABLED is (not disabled)
