"""Command line of the benchmark scripts: named flags only, an unknown one is an error.

A script that looked for ``"--quick" in sys.argv`` ran its full size on a typo
(``--quik``) and ran everything on ``--help``; these parsers stop with the usage
instead.
"""

from __future__ import annotations

import argparse


def parser(doc: str) -> argparse.ArgumentParser:
    """An argument parser described by the first line of the script's docstring."""
    return argparse.ArgumentParser(description=doc.strip().splitlines()[0])


def quick_flag(doc: str, argv=None, help: str = "smaller sizes and fewer repeats") -> bool:
    """Parse a script whose only option is ``--quick``; returns whether it was given."""
    p = parser(doc)
    p.add_argument("--quick", action="store_true", help=help)
    return p.parse_args(argv).quick
