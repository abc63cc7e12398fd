"""``python -m reconstruct …``: the command line (see :mod:`reconstruct.cli`)."""
import sys

from .cli import main

sys.exit(main())
