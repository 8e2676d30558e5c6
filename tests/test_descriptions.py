"""The descriptions a user reads first (README, package metadata, package
docstring, docs index) name every built area and study, and claim nothing
that the code does not have."""

import importlib
import pkgutil
import re
import tomllib
from pathlib import Path

import pytest

import statlearn
from statlearn.studies import available_studies

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
DESCRIPTION = PYPROJECT["project"]["description"]
INDEX = (ROOT / "docs" / "index.rst").read_text()
GETTING_STARTED = (ROOT / "docs" / "getting_started.rst").read_text()

# Shared plumbing, not a method area.
PLUMBING = {"utils", "datasets", "simulation", "studies", "testing"}

# Method area -> the words the package description must use for it.
AREAS = {
    "conformal": ["conformal prediction sets", "conformal regression", "conformal selection"],
    "hte": ["HTE"],
    "calibration": ["partially calibrated forecasts"],
    "bandits.queueing": ["queueing"],
    "bandits.causal": ["causal bandits"],
    "cluster": ["spectral clustering oracle"],
    "unlearning": ["unlearning"],
}


def _public(mod):
    return set(getattr(importlib.import_module(f"statlearn.{mod}"), "__all__", []))


# A claim may be made only when the code behind it exists.
CLAIMS = {
    "SOCOP": lambda: "socop_scores" in _public("conformal"),
    "MCCS": lambda: "mccs" in _public("conformal"),
    "cfBH": lambda: "cfbh" in _public("conformal"),
    "APS": lambda: "aps_scores" in _public("conformal"),
    "RAPS": lambda: "raps_scores" in _public("conformal"),
    "conformal regression": lambda: any("Regress" in n for n in _public("conformal")),
    "CQR": lambda: "SplitConformalRegressor" in _public("conformal"),
    "jackknife+": lambda: "CrossConformalRegressor" in _public("conformal"),
    "CQB-Opt": lambda: "CQBOpt" in _public("bandits.queueing"),
    "POMIS": lambda: "pomis" in _public("bandits.causal"),
    "CTF-POMIS": lambda: "ctf_pomis" in _public("bandits.causal"),
    "minimax": lambda: "MinimaxDecisionRule" in _public("calibration"),
    "relative-error": lambda: "RelativeErrorEvaluator" in _public("hte"),
    "relative error": lambda: "RelativeErrorEvaluator" in _public("hte"),
    "Newton": lambda: "NewtonUnlearner" in _public("unlearning"),
    # things a reader might expect but that are not built (each claim needs its code)
    "predictive system": lambda: any("Predictive" in n for n in _public("conformal")),
    "risk control": lambda: any("Risk" in n for n in _public("conformal")),
    "LinUCB": lambda: any("LinUCB" in n for n in _public("bandits.queueing")),
    "uplift": lambda: any("Uplift" in n for n in _public("hte")),
}


def _method_areas():
    found = set()
    for info in pkgutil.iter_modules(statlearn.__path__):
        if not info.ispkg or info.name.startswith("_") or info.name in PLUMBING:
            continue
        mod = importlib.import_module(f"statlearn.{info.name}")
        subs = [s.name for s in pkgutil.iter_modules(mod.__path__)
                if s.ispkg and not s.name.startswith("_")]
        found |= {f"{info.name}.{s}" for s in subs} if subs else {info.name}
    return found


def test_area_table_matches_the_package():
    # a new subpackage must be added to AREAS, and so to every description below
    assert _method_areas() == set(AREAS)


@pytest.mark.parametrize("area", sorted(AREAS))
def test_every_area_is_described(area):
    assert f"statlearn.{area}" in README
    assert f"statlearn.{area}" in INDEX or f":mod:`statlearn.{area}`" in INDEX
    assert f"statlearn.{area}" in GETTING_STARTED
    top = area.split(".")[0]
    assert re.search(rf"^{top}$", statlearn.__doc__, flags=re.M), top
    for word in AREAS[area]:
        assert word.lower() in DESCRIPTION.lower(), word


@pytest.mark.parametrize("claim", sorted(CLAIMS))
def test_no_description_claims_what_is_not_built(claim):
    texts = {"README": README, "pyproject description": DESCRIPTION,
             "package docstring": statlearn.__doc__, "docs index": INDEX,
             "getting started": GETTING_STARTED}
    built = CLAIMS[claim]()
    for where, text in texts.items():
        if claim.lower() in text.lower() and not built:
            # README may say what statlearn does *not* have, in its comparison section
            if where == "README" and claim.lower() not in README.split("## Citing")[0].split(
                    "## How statlearn compares")[0].lower():
                continue
            pytest.fail(f"{where} names {claim!r}, which the code does not provide")


def test_every_study_is_named_in_readme_and_getting_started():
    for study in available_studies():
        assert f"`{study.name}`" in README, study.name
        assert study.name in GETTING_STARTED, study.name


def test_install_instructions_do_not_point_to_the_unrelated_index_project():
    name = PYPROJECT["project"]["name"]
    assert name != "statlearn"  # that name on the package index is another project
    for text in (README, INDEX, GETTING_STARTED):
        assert "pip install statlearn" not in text
        assert name in text
