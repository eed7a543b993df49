"""The predictive table of many models at many rows, taken in blocks (issue 61: a posterior's
``predict`` on 10⁵ rows held every particle's means at once and ran minutes without a word)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import abcd_cli.prediction as prediction
from abcd_cli.cli.main import main
from abcd_cli.found import read_model
from tests.reporting.test_report import fixed_model, other_model

#: A posterior (20 structures, 32 draws each) of the airline series, 129 points.
POSTERIOR = Path(__file__).resolve().parents[1] / (
    "benchmarks/accuracy/outputs/peers/models/01-airline-extrap.json"
)


def test_blocks_of_rows_give_the_table_of_all_rows_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    models = [fixed_model(), other_model()]
    x = np.linspace(2000.0, 2012.0, 25)
    whole = prediction.predictive_table(models, x, [0.3, 0.7])
    monkeypatch.setattr(prediction, "BLOCK_ELEMENTS", 8)  # 4 rows per block of two models
    calls: list[tuple[int, int]] = []
    blocks = prediction.predictive_table(models, x, [0.3, 0.7], lambda *a: calls.append(a))
    assert calls == [(done, 25) for done in (4, 8, 12, 16, 20, 24, 25)]
    for key, column in whole.items():
        np.testing.assert_allclose(blocks[key], column, rtol=1e-12)


def test_a_long_posterior_prediction_reports_its_rows_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models, _, _ = read_model(POSTERIOR).predictive_models(False, "evidence", "")
    n = len(models)  # the particles a prediction conditions (``StructurePosterior.held``)
    assert 1 < n < 640  # fewer than the file's 640: the structures holding the weight, 8 draws
    monkeypatch.setattr("abcd_cli.cli.predict_cmd.PROGRESS_ELEMENTS", n * 20)
    monkeypatch.setattr(prediction, "BLOCK_ELEMENTS", n * 10)
    (tmp_path / "x.csv").write_text("x\n" + "".join(f"{1961 + i / 12}\n" for i in range(20)))
    out = tmp_path / "out.csv"
    result = CliRunner().invoke(
        main, ["predict", str(POSTERIOR), str(tmp_path / "x.csv"), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[:2] == [
        f"predict: 10 of 20 rows ({n} models)",
        f"predict: 20 of 20 rows ({n} models)",
    ]
    assert len(out.read_text().splitlines()) == 21
