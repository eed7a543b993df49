"""docs/notebook.ipynb, run as a reader runs it: data loaded, a search with its progress, the
model's summary, its figures, a forecast, and the scikit-learn estimator in ``cross_val_score``.

The notebook is kept with its outputs, so that it reads as a worked example wherever it is shown
(GitHub draws it) without anyone running it. The test runs a copy in memory with nbclient, in a
kernel of this Python, and checks the fresh outputs; the file is only read (the test checks that
it and its folder are unchanged afterwards). It also checks that the stored copy has the outputs
of a clean run, so that a copy without them, or with an error, is not committed.
``.venv/bin/python -m tests.test_docs_notebook`` (``make notebook``) runs it and writes the
outputs back after a change to the notebook or to what abcd shows.
"""

from __future__ import annotations

import base64
import math
import re
import sys
from pathlib import Path
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("sklearn")

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "notebook.ipynb"
#: Seconds a cell may take before the run fails (the whole notebook takes about 30 s).
CELL_TIMEOUT = 300
PNG = b"\x89PNG\r\n\x1a\n"
NUMBER = r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?"


def execute(path: Path = NOTEBOOK) -> Any:
    """The notebook at ``path`` run in a new kernel of this Python, in its own folder; returns
    the executed notebook (``path`` is not written)."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    notebook = nbformat.read(path, as_version=4)
    # only the kernel that ipykernel defines for this Python, whatever kernels are installed
    specs = KernelSpecManager(kernel_dirs=[])
    kernel = KernelManager(kernel_name="python3", kernel_spec_manager=specs)
    client = nbclient.NotebookClient(
        notebook,
        km=kernel,
        timeout=CELL_TIMEOUT,
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    return notebook


def code_cells(notebook: Any) -> list[Any]:
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def cell_with(notebook: Any, source: str) -> Any:
    """The one code cell whose source holds ``source``."""
    found = [cell for cell in code_cells(notebook) if source in cell.source]
    assert len(found) == 1, source
    return found[0]


def outputs_of(cell: Any, mime: str) -> list[Any]:
    """The cell's outputs holding ``mime`` data, in order."""
    return [out.data[mime] for out in cell.outputs if mime in out.get("data", {})]


def snapshot(folder: Path) -> tuple[set[str], bytes]:
    """The files under ``folder`` and the notebook's bytes: what running it must not change."""
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}, NOTEBOOK.read_bytes()


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The executed notebook, the docs folder checked unchanged by the run; IPython's and
    Jupyter's own files go to a temporary folder."""
    home = tmp_path_factory.mktemp("jupyter")
    before = snapshot(NOTEBOOK.parent)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("IPYTHONDIR", str(home / "ipython"))
        patch.setenv("JUPYTER_RUNTIME_DIR", str(home / "runtime"))
        patch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # the debugger's start-up warning
        notebook = execute()
    assert snapshot(NOTEBOOK.parent) == before
    return notebook


def test_every_cell_runs_in_order_without_an_error(executed: Any) -> None:
    cells = code_cells(executed)
    assert [cell.execution_count for cell in cells] == list(range(1, len(cells) + 1))
    errors = [out for cell in cells for out in cell.outputs if out.output_type == "error"]
    assert errors == []
    streams = [out.text for cell in cells for out in cell.outputs if out.output_type == "stream"]
    assert not any("Warning" in text or "Traceback" in text for text in streams), streams


def test_the_data_are_the_bundled_airline_series(executed: Any) -> None:
    (text,) = [out.text for out in cell_with(executed, "abcd_cli.load(").outputs]
    assert text.startswith("144 points of y from 1949.04 to 1960.96")


def test_the_searchs_progress_is_one_output_ending_with_its_level_lines(executed: Any) -> None:
    cell = cell_with(executed, "abcd_cli.search(")
    assert [out.output_type for out in cell.outputs] == ["display_data"]
    lines = cell.outputs[0].data["text/plain"].splitlines()
    assert [line.split(":")[0] for line in lines] == ["level 0/2", "level 1/2", "level 2/2"]
    assert all(" fitted (" in line and line.endswith(" pruned") for line in lines)


def test_the_model_shows_its_summary_in_html_with_the_forecast_figure(executed: Any) -> None:
    (cell,) = [cell for cell in code_cells(executed) if cell.source == "model"]
    (html,) = outputs_of(cell, "text/html")
    assert "<table" in html and "n = 144" in html and "BIC" in html
    image = re.search(r'<img[^>]+src="data:image/png;base64,([^"]+)"', html)
    assert image is not None and base64.b64decode(image.group(1)).startswith(PNG)


def test_the_model_and_its_components_are_drawn(executed: Any) -> None:
    (forecast,) = outputs_of(cell_with(executed, "model.plot("), "image/png")
    components = outputs_of(cell_with(executed, "model.plot_components()"), "image/png")
    assert len(components) >= 2
    for png in [forecast, *components]:
        assert base64.b64decode(png).startswith(PNG)


def test_the_forecast_holds_a_band_for_each_month_of_1961(executed: Any) -> None:
    (text,) = outputs_of(cell_with(executed, "abcd_cli.predict("), "text/plain")
    header, *rows = text.splitlines()
    assert header.split() == ["x", "mean", "sd", "q2.5", "q97.5"]
    table = [[float(cell) for cell in row.split()[1:]] for row in rows]
    assert len(table) == 12
    for month, (x, mean, sd, low, high) in enumerate(table):
        assert x == pytest.approx(1961 + (month + 0.5) / 12, abs=0.01)
        assert 300 < mean < 700 and 0 < sd < 100 and low < mean < high


def test_the_estimator_fits_and_is_cross_validated(executed: Any) -> None:
    (fitted,) = [out.text for out in cell_with(executed, ".fit(X, y)").outputs]
    r2 = float(fitted.split("R² on its own rows:")[1])
    assert 0 < r2 <= 1
    (text,) = outputs_of(cell_with(executed, "cross_val_score("), "text/plain")
    assert text.startswith("array([")
    scores = [float(number) for number in re.findall(NUMBER, text)]
    assert len(scores) == 3 and all(math.isfinite(s) and s <= 1 for s in scores)
    assert sum(scores) / 3 > 0  # better than the training mean


def test_the_stored_notebook_holds_the_outputs_of_a_clean_run(executed: Any) -> None:
    stored = nbformat.read(NOTEBOOK, as_version=4)
    assert [cell.source for cell in stored.cells] == [cell.source for cell in executed.cells]
    cells = code_cells(stored)
    assert [cell.execution_count for cell in cells] == list(range(1, len(cells) + 1))
    assert all(cell.outputs for cell in cells)
    assert not any(out.output_type == "error" for cell in cells for out in cell.outputs)
    kinds = [[out.output_type for out in cell.outputs] for cell in cells]
    assert kinds == [[out.output_type for out in cell.outputs] for cell in code_cells(executed)]


def main() -> None:
    """Run the notebook and write it back with its outputs."""
    notebook = execute()
    nbformat.write(notebook, NOTEBOOK)
    print(f"wrote {NOTEBOOK}", file=sys.stderr)


if __name__ == "__main__":
    main()
