"""The long-series benchmark's data: the synthetic generator (shape, determinism, the irregular
variant, and that the structure it claims is in the data) and the converters of the bundled
real series, on slices of the packages' files."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pandas as pd
import pytest

from benchmarks.common import ROOT
from benchmarks.long_series import bundled, data, synthetic


def test_hourly_series_shape_and_axis():
    s = synthetic.hourly_series(1000)
    assert s.y.shape == (1000,) and np.isfinite(s.y).all()
    np.testing.assert_array_equal(s.hours, np.arange(1000))
    frame = s.frame()
    assert list(frame.columns) == ["time", "value"]
    stamps = pd.to_datetime(frame["time"])
    assert stamps.iloc[0] == synthetic.START
    assert (stamps.diff().dropna() == pd.Timedelta(hours=1)).all()
    assert s.change_hours == round(synthetic.CHANGE_AT * 999)


def test_hourly_series_is_deterministic():
    a, b = synthetic.hourly_series(500), synthetic.hourly_series(500)
    np.testing.assert_array_equal(a.y, b.y)
    other = synthetic.hourly_series(500, seed=synthetic.SEED + 7)
    assert not np.allclose(a.y, other.y)


def test_irregular_variant_drops_a_tenth_and_keeps_the_rest():
    full = synthetic.hourly_series(2000)
    gaps = synthetic.hourly_series(2000, irregular=True)
    assert gaps.y.size == 1800
    assert np.all(np.diff(gaps.hours) >= 1) and np.any(np.diff(gaps.hours) > 1)
    np.testing.assert_array_equal(gaps.y, full.y[gaps.hours])  # same values where kept
    again = synthetic.hourly_series(2000, irregular=True)
    np.testing.assert_array_equal(gaps.hours, again.hours)


def _periodogram(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Periods in days and the power of the linearly detrended hourly series."""
    t = np.arange(y.size)
    y = y - np.polyval(np.polyfit(t, y, 1), t)
    power = np.abs(np.fft.rfft(y)) ** 2
    freq = np.fft.rfftfreq(y.size, d=1.0 / 24.0)  # cycles per day
    return 1.0 / freq[1:], power[1:]


def test_known_structure_is_in_the_data():
    s = synthetic.hourly_series(24 * 7 * 60)  # 60 weeks
    period, power = _periodogram(s.y)
    assert abs(period[np.argmax(power)] - 1.0) < 0.01
    long = period > 2.0
    assert abs(period[long][np.argmax(power[long])] - 7.0) < 0.1
    daily = s.y - pd.Series(s.y).rolling(24, center=True, min_periods=1).mean().to_numpy()
    before = daily[: s.change_hours - 48].std()
    after = daily[s.change_hours + 48 :].std()
    assert after > 1.5 * before  # the daily amplitude doubles at the changepoint


def test_synthetic_truth_names_periods_and_change():
    frame, truth = data.synthetic_series(2400)
    assert [p.value for p in truth.periods] == [1.0, 7.0]
    (change,) = truth.changes
    assert change.value == pytest.approx(synthetic.CHANGE_AT * truth.last, abs=1 / 24)
    assert truth.first == 0.0 and truth.last == pytest.approx(2399 / 24)
    assert len(frame) == 2400


def test_prepare_writes_what_changed_and_truncates(tmp_path):
    p = data.prepare("hourly-10k", tmp_path, head=300)
    assert p.name == "hourly-10k-head300" and p.n == 300
    assert p.truth.changes == ()  # the change at 60% of 10⁴ hours lies past the head
    assert p.truth.last == pytest.approx(299 / 24)
    written = p.csv.stat().st_mtime_ns
    again = data.prepare("hourly-10k", tmp_path, head=300)
    assert again.csv.stat().st_mtime_ns == written and again.truth == p.truth  # unchanged: kept
    good = p.csv.read_text()
    p.csv.write_text("time,value\n2015-01-05 00:00,0\n")  # a stale file from older code
    data.prepare("hourly-10k", tmp_path, head=300)
    assert p.csv.read_text() == good
    with pytest.raises(KeyError):
        data.prepare("no-such-series", tmp_path)


# ------------------------------------------------------------------ the bundled real series


def _slice(path, lines: int, skip: int = 0):
    """The header and ``lines`` - 1 rows after the first ``skip`` rows."""
    with open(path, encoding="utf-8") as f:
        rows = f.readlines()
    return "".join([rows[0], *rows[1 + skip : skip + lines]])


def _vega(name: str):
    path = bundled.installed_file("vega_datasets", f"_data/{name}")
    if path is None:
        pytest.skip("vega-datasets is not installed (the bench extra)")
    return path


@pytest.mark.parametrize("name", ["seattle-temps.csv", "sf-temps.csv"])
def test_hourly_temperatures_slice(tmp_path, name):
    part = tmp_path / name
    part.write_text(_slice(_vega(name), 49))  # the header and two days
    frame, truth = bundled.hourly_temperatures(part, {"package": "vega-datasets"})
    assert list(frame.columns) == ["time", "temperature"] and len(frame) == 48
    stamps = pd.to_datetime(frame["time"])
    assert stamps.iloc[0] == pd.Timestamp("2010-01-01 00:00")
    assert (stamps.diff().dropna() == pd.Timedelta(hours=1)).all()
    assert frame["temperature"].between(-40, 120).all()
    assert truth.last == pytest.approx(47 / 24) and truth.periods[0].value == 1.0


def test_electric_devices_converter_on_its_format():
    text = "".join(f"{i + 1},{np.sin(i / 3):.6f}\n" for i in range(2000))
    frame, truth = bundled.electric_devices(text.encode(), {})
    np.testing.assert_array_equal(frame["sample"], np.arange(2000))
    assert frame["value"].iloc[3] == pytest.approx(np.sin(1.0), abs=1e-6)
    assert [c.value for c in truth.changes] == [1090.0]  # the later ones lie past the end
    assert truth.last == 1999.0


def _electric_file() -> bytes:
    for package in ("sktime", "aeon"):
        path = bundled.installed_file(package, bundled.ELECTRIC_FILE)
        if path is not None:
            return path.read_bytes()
    name, release = bundled.SKTIME_WHEEL
    wheels = sorted((ROOT / "results" / "long_series" / "wheels").glob(f"{name}-{release}-*.whl"))
    if not wheels:
        pytest.skip(
            "neither sktime nor aeon is installed and no sktime wheel is cached (both pin"
            " pandas < 3.1; python -m benchmarks.long_series.data fetches the wheel)"
        )
    with zipfile.ZipFile(wheels[0]) as archive:
        return archive.read(f"{name}/{bundled.ELECTRIC_FILE}")


def test_electric_devices_slice_of_the_real_file():
    raw = _electric_file()
    part = b"".join(io.BytesIO(raw).readlines()[:1500])
    frame, truth = bundled.electric_devices(part, {})
    assert len(frame) == 1500 and frame["sample"].iloc[-1] == 1499
    assert frame["value"].notna().all()
    assert [c.value for c in truth.changes] == [1090.0]


def test_photoplethysmogram_slice(tmp_path):
    path = bundled.installed_file("heartpy", "data/data2.csv")
    if path is None:
        pytest.skip("heartpy is not installed (the bench extra)")
    part = tmp_path / "ppg.csv"
    part.write_text(_slice(path, 3001, skip=6000))  # 3,000 clean samples, about 26 s
    frame, truth = bundled.photoplethysmogram(part, {})
    assert list(frame.columns) == ["seconds", "ppg"] and len(frame) == 3000
    assert frame["seconds"].iloc[0] == pytest.approx(6000 * 0.0085479, rel=1e-3)
    step = np.diff(frame["seconds"].to_numpy())
    assert np.allclose(step, 1 / 117.0, rtol=0.01)  # about 117 Hz
    (beat,) = truth.periods
    assert 0.4 < beat.value < 1.5  # a heartbeat: 40-150 beats a minute
    assert truth.unit == "second" and truth.first == frame["seconds"].iloc[0]
    assert truth.last == pytest.approx(frame["seconds"].iloc[-1])
