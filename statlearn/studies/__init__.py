"""The papers' headline experiments, registered by name for ``statlearn reproduce``.

Each module in this package registers its studies with
:func:`register_study`; :func:`available_studies` imports them all.
"""

from ._registry import (
    Study,
    StudyContext,
    StudyReport,
    available_studies,
    get_study,
    make_verdict,
    register_study,
    run_studies,
    write_report,
)

__all__ = [
    "Study",
    "StudyContext",
    "StudyReport",
    "available_studies",
    "get_study",
    "make_verdict",
    "register_study",
    "run_studies",
    "write_report",
]
