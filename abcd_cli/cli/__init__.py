"""The command line: a thin layer over the library."""

from abcd_cli.cli.main import main

__all__ = ["main"]
