"""The one error type a user sees: one line naming the file, the place in it, and what is wrong."""
from __future__ import annotations


class InputError(ValueError):
    """Bad input: the CLI prints ``str(error)`` on one line and exits with status 2."""

    def __init__(self, file: str, where: str, what: str) -> None:
        self.file, self.where, self.what = str(file), str(where), " ".join(str(what).split())
        super().__init__(self.line)

    @property
    def line(self) -> str:
        where = f":{self.where}" if self.where else ""
        return f"{self.file}{where}: {self.what}"
