"""The error of a bad rite script: one line ``file:line: what is wrong``."""
from __future__ import annotations

from pathlib import Path

from ..errors import InputError


class RiteError(InputError):
    """A problem in the rite script; ``str(e)`` is one line ``file:line: what is wrong``."""

    def __init__(self, file: str | Path, line: int | None, what: str):
        super().__init__(str(file), str(line or 0), what)
        self.lineno = line or 0
