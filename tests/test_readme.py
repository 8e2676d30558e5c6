"""Every ```python block of README.md runs as written."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_a_quickstart_per_area():
    assert len(BLOCKS) >= 9


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_snippet_runs(i, tmp_path, monkeypatch, capsys):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    exec(compile(BLOCKS[i], f"README.md block {i}", "exec"), {"__name__": "__readme__"})
    assert capsys.readouterr().out.strip(), "each snippet prints its result"
