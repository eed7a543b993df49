"""The grid a model's components are drawn on: fine for a long series only when the engine's
posterior is not dense (``Capabilities.dense_posterior``), whatever the engine is called."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.data.scaling import Scaling
from abcd_cli.decompose.components import GRID_SIZE, LONG_SERIES, grid_size
from abcd_cli.engines import get_engine
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model


def long_model(engine: str) -> Model:
    x = np.arange(LONG_SERIES + 200, dtype=float)
    y = np.sin(x / 7.0)
    scaling = Scaling.from_data(x, y)
    kernel = scaling.kernel_in(parse_kernel("SE(lengthscale=20.0, sd=1.0) + WN(sd=0.1)"))
    return Model(kernel, scaling, x, y, 0.0, engine=get_engine(engine))


@pytest.mark.parametrize("engine", ["exact", "statespace"])
def test_a_long_series_on_a_dense_posterior_keeps_the_default_grid(engine):
    assert grid_size(long_model(engine), extrapolate=0.5) == GRID_SIZE


def test_a_long_series_on_a_sparse_posterior_is_drawn_as_finely_as_its_data():
    model = long_model("skc")
    assert grid_size(model, extrapolate=0.5) == round(model.n * 1.5)
