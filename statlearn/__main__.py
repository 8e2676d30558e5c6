"""``python -m statlearn`` is the ``statlearn`` command line."""

import sys

from .cli import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
