"""Typed errors that carry where a problem is (file, line, column) and what it is.

Every user-facing failure is an :class:`EvalTransError`; the command line turns
it into exit code 2 in one place (``cli/main.py``) and the UI shows it in one
place (an error dialog).
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass
class EvalTransError(Exception):
    """A problem with the user's input or files.

    ``problem`` says what is wrong; ``path``, ``line`` (1-based) and ``column``
    (1-based) say where, when known. ``path`` is anything path-like (shown with
    ``str()``), so readers can pass on whatever they were given.
    """

    problem: str
    path: str | os.PathLike[str] | None = None
    line: int | None = None
    column: int | None = None

    def __post_init__(self) -> None:
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = str(self.path)
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        return f"{where}{self.problem}"


class InputFormatError(EvalTransError):
    """A file is malformed (bad XML, wrong encoding, mismatched line counts...)."""


class ScoreError(EvalTransError):
    """A human score is invalid (outside the declared levels, unknown class...)."""


class OptionError(EvalTransError):
    """An evaluation option has an invalid value."""


class SaveError(EvalTransError):
    """Saving failed; the previous file is left intact."""


class Cancelled(Exception):
    """Raised inside engine generators when the caller's cancel flag is set."""
