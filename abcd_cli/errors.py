"""Error types raised by the library.

Every error carries a one-line, human message. The command line turns an :class:`InputError`
into exit code 2 and a :class:`RunError` into exit code 1 (see :mod:`abcd_cli.cli.main`).
"""

from __future__ import annotations


class AbcdError(Exception):
    """Base class of the library's errors: a one-line message for the user."""

    exit_code: int = 1

    def __init__(self, message: str) -> None:
        self.message = " ".join(str(message).split("\n")).replace("\r", " ").strip()
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class InputError(AbcdError):
    """The input or the usage is wrong: bad file, bad column, bad option value."""

    exit_code = 2


class RunError(AbcdError):
    """Something failed while running on valid input (fitting, writing a report, ...)."""

    exit_code = 1
