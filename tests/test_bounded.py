"""Files are read up to the size limit, devices are refused (issue 61)."""

from __future__ import annotations

from pathlib import Path

import pytest

from abcd_cli.bounded import read_bounded
from abcd_cli.errors import InputError
from abcd_cli.found import read_model
from tests.limited import one_error_line, run_limited


def test_a_device_is_refused_before_any_read() -> None:
    with pytest.raises(InputError, match=r"^model /dev/zero: is a device, not a model file"):
        read_bounded("/dev/zero", "model /dev/zero", "model file")


def test_a_model_file_larger_than_the_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (2 * 2**20 + 1))
    monkeypatch.setenv("ABCD_MAX_FILE_MB", "2")
    with pytest.raises(InputError, match=r"larger than the 2 MiB .* set ABCD_MAX_FILE_MB"):
        read_model(big)


def test_a_bad_limit_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "m.json").write_text("{}")
    monkeypatch.setenv("ABCD_MAX_FILE_MB", "lots")
    with pytest.raises(InputError, match=r"^ABCD_MAX_FILE_MB must be a whole number"):
        read_model(tmp_path / "m.json")


def test_predict_from_dev_zero_ends_in_one_line_within_3_gib(tmp_path: Path) -> None:
    """Before: /dev/zero was read whole (23 GB before the kernel killed it)."""
    (tmp_path / "x.csv").write_text("x\n1\n2\n")
    proc = run_limited("predict", "/dev/zero", "x.csv", "-o", "out.csv", cwd=tmp_path)
    assert "is a device" in one_error_line(proc)
    assert not (tmp_path / "out.csv").exists()


def test_a_data_file_from_a_device_is_refused(tmp_path: Path) -> None:
    proc = run_limited("describe-data", "/dev/zero", cwd=tmp_path)
    assert "/dev/zero: is a device" in one_error_line(proc)
