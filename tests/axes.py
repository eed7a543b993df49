"""The x axes that the wording tests describe: a year axis, a date axis and a plain number."""

from __future__ import annotations

from abcd_cli.decompose.facts import Axis

YEAR = Axis("year", "year", "passengers")
DATE = Axis("date", "date", "sales")
NUMBER = Axis("number", "t", "y")
