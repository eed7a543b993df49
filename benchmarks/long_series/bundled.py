"""Real long series that public packages bundle, found offline and converted to CSV.

- hourly temperatures: vega-datasets 0.9.0 (MIT), ``vega_datasets/_data/seattle-temps.csv``
  and ``sf-temps.csv``, 8,759 points each;
- ElectricDevices: sktime 1.2.0 or aeon 1.6.0 (BSD-3),
  ``datasets/data/segmentation/ElectricDevices.csv``, 11,532 points;
- PPG: heartpy 1.2.7 (GPL-3), ``heartpy/data/data2.csv``, 15,000 points.

vega-datasets and heartpy are in the ``bench`` extra. sktime and aeon are not: both require
pandas < 3.1 and would downgrade the project's pandas, so ElectricDevices is read from an
installed sktime or aeon when there is one, else from the sktime wheel itself, which
``pip download --no-deps sktime==1.2.0`` puts in the cache folder (8 MB; read with zipfile,
never installed or imported).

Each converter takes the package's file and returns the CSV's frame and the series' ``Truth``.
"""

from __future__ import annotations

import importlib.util
import io
import subprocess
import sys
import zipfile
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.long_series.truth import Change, Period, Truth

ELECTRIC_FILE = "datasets/data/segmentation/ElectricDevices.csv"
#: where the segments of ElectricDevices meet (0-based positions), as the sktime and aeon
#: loaders annotate them (``load_electric_devices_segmentation``)
ELECTRIC_CHANGES = (1090, 4436, 5712, 7923)
SKTIME_WHEEL = ("sktime", "1.2.0")


class Unavailable(Exception):
    """The package holding a series is neither installed nor fetchable; the message says why."""


def installed_file(package: str, relative: str) -> Path | None:
    """``relative`` inside the installed ``package`` (found without importing it), or None."""
    spec = importlib.util.find_spec(package)
    for folder in (spec and spec.submodule_search_locations) or ():
        path = Path(folder) / relative
        if path.is_file():
            return path
    return None


def package_version(package: str) -> str:
    try:
        return f"{package} {version(package)}"
    except PackageNotFoundError:
        return f"{package} (version unknown)"


def wheel_member(wheels: Path, package: str, release: str, member: str, fetch: bool) -> bytes:
    """The bytes of ``member`` inside the wheel ``package==release`` kept in ``wheels``; with
    ``fetch``, ``pip download --no-deps`` brings the wheel there first when it is missing."""
    found = sorted(wheels.glob(f"{package}-{release}-*.whl"))
    if not found and fetch:
        wheels.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
        command += [f"{package}=={release}", "-d", str(wheels), "--quiet"]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise Unavailable(f"pip download {package}=={release} failed: {done.stderr[-300:]}")
        found = sorted(wheels.glob(f"{package}-{release}-*.whl"))
    if not found:
        raise Unavailable(f"{package} {release}: not installed and no wheel in {wheels}")
    with zipfile.ZipFile(found[0]) as archive:
        return archive.read(member)


def hourly_temperatures(path: Path, source: dict[str, str]) -> tuple[pd.DataFrame, Truth]:
    """vega-datasets' ``date,temp`` (``2010/01/01 00:00``; the columns in either order) as
    ``time,temperature``. Known: the daily cycle, 1 day."""
    raw = pd.read_csv(path)
    stamps = pd.to_datetime(raw["date"], format="mixed")
    frame = pd.DataFrame(
        {"time": stamps.dt.strftime("%Y-%m-%d %H:%M"), "temperature": raw["temp"].to_numpy()}
    )
    days = (stamps - stamps.iloc[0]).dt.total_seconds().to_numpy() / 86400.0
    truth = Truth(
        unit="day",
        first=0.0,
        last=float(days[-1]),
        periods=(Period("1 day", 1.0),),
        description="hourly temperatures of 2010 (smoothed normals, nearly noise-free): the"
        " daily cycle, a period of 1 day; the annual cycle spans the whole series once and is"
        " not checked",
        source=source,
    )
    return frame, truth


def electric_devices(path: Path | bytes, source: dict[str, str]) -> tuple[pd.DataFrame, Truth]:
    """The segmentation file (``index,value``, no header, index from 1) as ``sample,value``
    with sample = position from 0. Known: the four changes between device classes."""
    raw = pd.read_csv(path if isinstance(path, Path) else io.BytesIO(path), header=None)
    value = raw.iloc[:, 1].to_numpy(dtype=float)
    n = value.size
    frame = pd.DataFrame({"sample": np.arange(n), "value": value})
    tolerance = 0.01 * (n - 1)
    truth = Truth(
        unit="sample",
        first=0.0,
        last=float(n - 1),
        changes=tuple(
            Change(f"change at {c}", float(c), tolerance) for c in ELECTRIC_CHANGES if c < n
        ),
        description="UCR ElectricDevices series grouped by class and concatenated: changes"
        f" between classes at samples {', '.join(map(str, ELECTRIC_CHANGES))} (each found"
        f" within 1% of the span, {tolerance:.0f} samples); the loaders' period_length (10) is"
        " a window size, not a period, and is not checked",
        source=source,
    )
    return frame, truth


def photoplethysmogram(path: Path, source: dict[str, str]) -> tuple[pd.DataFrame, Truth]:
    """heartpy's ``timer,hr`` (milliseconds, raw PPG) as ``seconds,ppg``. Known: the heartbeat,
    its period the mean beat-to-beat interval that heartpy's own peak detection gives, within
    5% (the heart rate varies by about 7% over the recording)."""
    raw = pd.read_csv(path)
    seconds = raw["timer"].to_numpy(dtype=float) / 1000.0
    value = raw["hr"].to_numpy(dtype=float)
    frame = pd.DataFrame({"seconds": seconds, "ppg": value})
    periods: tuple[Period, ...] = ()
    beat = heartbeat_seconds(seconds, value)
    if beat is not None:
        periods = (Period(f"heartbeat {beat:.3f} s", beat, 0.05),)
    truth = Truth(
        unit="second",
        first=float(seconds[0]),
        last=float(seconds[-1]),
        periods=periods,
        description="photoplethysmogram at about 117 Hz for 128 s: the heartbeat, its period"
        " heartpy's mean inter-beat interval",
        source=source,
    )
    return frame, truth


def heartbeat_seconds(seconds: np.ndarray, value: np.ndarray) -> float | None:
    """The mean inter-beat interval by heartpy's peak detection (None without heartpy, or
    when it finds no heartbeat)."""
    if importlib.util.find_spec("heartpy") is None:
        return None
    import heartpy

    rate = 1.0 / float(np.median(np.diff(seconds)))
    try:
        _, measures = heartpy.process(value, rate)
    except heartpy.exceptions.BadSignalWarning:  # raised, not warned: no beat found
        return None
    return float(measures["ibi"]) / 1000.0


def vega_file(name: str) -> tuple[Path, dict[str, str]]:
    path = installed_file("vega_datasets", f"_data/{name}")
    if path is None:
        raise Unavailable("vega-datasets is not installed (pip install -e '.[bench]')")
    return path, {"package": package_version("vega-datasets"), "file": f"_data/{name}"}


def electric_file(cache: Path, fetch: bool) -> tuple[Path | bytes, dict[str, str]]:
    for package in ("sktime", "aeon"):
        path = installed_file(package, ELECTRIC_FILE)
        if path is not None:
            return path, {"package": package_version(package), "file": ELECTRIC_FILE}
    name, release = SKTIME_WHEEL
    data = wheel_member(cache / "wheels", name, release, f"{name}/{ELECTRIC_FILE}", fetch)
    return data, {"package": f"{name} {release} (wheel, not installed)", "file": ELECTRIC_FILE}


def heartpy_file() -> tuple[Path, dict[str, str]]:
    path = installed_file("heartpy", "data/data2.csv")
    if path is None:
        raise Unavailable("heartpy is not installed (pip install -e '.[bench]')")
    return path, {"package": package_version("heartpy"), "file": "data/data2.csv"}


Builder = Callable[[Path, bool], tuple[pd.DataFrame, Truth]]

BUNDLED: dict[str, Builder] = {
    "seattle-temps": lambda cache, fetch: hourly_temperatures(*vega_file("seattle-temps.csv")),
    "sf-temps": lambda cache, fetch: hourly_temperatures(*vega_file("sf-temps.csv")),
    "electric-devices": lambda cache, fetch: electric_devices(*electric_file(cache, fetch)),
    "ppg": lambda cache, fetch: photoplethysmogram(*heartpy_file()),
}
