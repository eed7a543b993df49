"""The sizes the program agrees to read and work on, in one place, each raisable by an
environment variable (``docs/usage.md``, "Limits").

==========================  =========  ======================================================
variable                    default    what it bounds
==========================  =========  ======================================================
``ABCD_MAX_FILE_MB``        256        bytes read of a data or model file, and what a Parquet
                                       file or an Excel workbook decompresses to
``ABCD_MAX_ROWS``           1000000    rows of a data file (a Parquet file's or a sheet's
                                       count is read from its metadata before its cells)
``ABCD_MAX_INPUTS``         20         input columns a search takes (more: name them with --x
                                       and raise this)
``ABCD_MAX_TITLE``          500        characters of a report's title
==========================  =========  ======================================================

A value that is not a whole number of at least 1 is an :class:`~abcd_cli.errors.InputError`
naming the variable. The limits are read when they are applied, so a test or a notebook may set
the variable at any time.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from abcd_cli.errors import InputError


@dataclass(frozen=True)
class Limit:
    """One limit: the environment variable that raises it, its default and its unit."""

    variable: str
    default: int
    unit: int = 1

    def value(self) -> int:
        """The limit in its unit times ``unit`` (bytes for a size in MiB)."""
        text = os.environ.get(self.variable, "").strip()
        if not text:
            return self.default * self.unit
        try:
            number = int(text.replace("_", ""))
        except ValueError:
            number = 0
        if number < 1:
            raise InputError(f"{self.variable} must be a whole number of at least 1, not {text!r}")
        return number * self.unit

    def raise_hint(self) -> str:
        """How a message tells the user to raise it."""
        return f"set {self.variable} to raise the limit"


#: Bytes read of any file (a data file, a model file), and what a compressed one unpacks to.
FILE_BYTES = Limit("ABCD_MAX_FILE_MB", 256, 2**20)
#: Rows of a data file.
ROWS = Limit("ABCD_MAX_ROWS", 1_000_000)
#: Input columns one search takes.
INPUTS = Limit("ABCD_MAX_INPUTS", 20)
#: Characters of a report's title.
TITLE = Limit("ABCD_MAX_TITLE", 500)


def mib(size: int) -> str:
    """A size in bytes as whole MiB for a message ("256 MiB")."""
    return f"{size / 2**20:,.0f} MiB"
