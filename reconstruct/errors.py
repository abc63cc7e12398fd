"""The one error type a user sees: one line naming the file, the place in it, and what is wrong."""
from __future__ import annotations


class InputError(ValueError):
    """Bad input: the CLI prints ``str(error)`` on one line and exits with status 2."""

    def __init__(self, file: str, where: str, what: str) -> None:
        # one line, and not an essay: a hostile input can make any of the three very long
        self.file, self.where = _short(file, 200), _short(where, 200)
        self.what = _short(what, 500)
        super().__init__(self.line)

    @property
    def line(self) -> str:
        where = f":{self.where}" if self.where else ""
        return f"{self.file}{where}: {self.what}"


def _short(text: object, limit: int) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[:limit - 1] + "…"
