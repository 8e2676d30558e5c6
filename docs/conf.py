"""Sphinx configuration for the statlearn documentation."""

import os
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# Gallery examples and notebooks are executed during the build at small size:
# both read STATLEARN_FAST (the notebook kernels inherit this environment).
os.environ.setdefault("STATLEARN_FAST", "1")
# This process draws headless. MPLBACKEND is cleared so that the notebook kernels
# fall back to ipykernel's inline backend and their figures appear on the pages.
import matplotlib  # noqa: E402

matplotlib.use("Agg")
os.environ.pop("MPLBACKEND", None)
# The notebook kernels import statlearn from this checkout.
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])


def _copy_notebooks():
    """Copy ``notebooks/*.ipynb`` into ``docs/notebooks/`` (git-ignored).

    Sphinx reads sources only below ``docs/``; the committed notebooks (outputs
    stripped) stay the single source and are executed by myst-nb during the build.
    Copies whose source notebook is gone are removed; unchanged copies are kept
    as they are so that incremental builds do not reread them.
    """
    src_dir, dst_dir = ROOT / "notebooks", Path(__file__).resolve().parent / "notebooks"
    dst_dir.mkdir(exist_ok=True)
    sources = {p.name: p for p in src_dir.glob("*.ipynb")}
    for stale in dst_dir.glob("*.ipynb"):
        if stale.name not in sources:
            stale.unlink()
    for name, src in sources.items():
        dst = dst_dir / name
        if not dst.exists() or dst.read_bytes() != src.read_bytes():
            shutil.copy2(src, dst)


_copy_notebooks()

import statlearn  # noqa: E402

project = "statlearn"
author = "statlearn developers"
copyright = "2026, statlearn developers"
release = statlearn.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_nb",
]

# Only .rst and the copied notebooks are sources (myst-nb would also claim .md).
source_suffix = {".rst": "restructuredtext", ".ipynb": "myst-nb"}
# Execute every notebook on each build (they are committed without outputs),
# fail the build on a cell error, and bound each cell's run time (seconds).
nb_execution_mode = "force"
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True

# Cross-links to NumPy/SciPy/scikit-learn need network access; opt in.
if os.environ.get("STATLEARN_DOCS_INTERSPHINX", "0") not in ("", "0"):
    extensions.append("sphinx.ext.intersphinx")
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable", None),
        "scipy": ("https://docs.scipy.org/doc/scipy", None),
        "sklearn": ("https://scikit-learn.org/stable", None),
        "pandas": ("https://pandas.pydata.org/docs", None),
        "statsmodels": ("https://www.statsmodels.org/stable", None),
    }

templates_path = ["_templates"]
# sphinx-gallery writes its own .ipynb downloads under auto_examples/: not sources.
exclude_patterns = ["_build", "**.ipynb_checkpoints", "auto_examples/**.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip", "sg_execution_times.rst"]
suppress_warnings = ["config.cache"]

autosummary_generate = True
autodoc_default_options = {"inherited-members": False}
numpydoc_show_class_members = True
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "show_memory": False,
    "plot_gallery": "True",
}

html_theme = "pydata_sphinx_theme"
html_title = "statlearn"
html_static_path = ["_static"]
html_theme_options = {
    "navbar_end": ["navbar-icon-links"],
    "show_toc_level": 2,
}


# scikit-learn's inherited ``score`` docstrings link to labels of scikit-learn's
# own user guide (e.g. ``:ref:`accuracy <accuracy_score>```), which do not exist
# here; keep the link text and drop the link.
_SKLEARN_LABEL_REF = re.compile(r":ref:`([^`<]+?)\s*<(accuracy_score|r2_score)>`")


def _drop_sklearn_label_refs(app, what, name, obj, options, lines):
    lines[:] = [_SKLEARN_LABEL_REF.sub(r"\1", line) for line in lines]


# The user guide's figures are gallery images; a quick build that does not run the
# gallery (``-D plot_gallery=0``) has none to show, so it does not warn about them.
def _no_gallery_no_image_warnings(app, config):
    if str(config.plot_gallery).strip().lower() in ("0", "false", "no"):
        config.suppress_warnings = [*config.suppress_warnings, "image.not_readable"]


def setup(app):
    app.connect("autodoc-process-docstring", _drop_sklearn_label_refs)
    app.connect("config-inited", _no_gallery_no_image_warnings)
