"""The shared array helpers (``abcd_cli.arrays``) and the (N, D) inputs of a Series and a Model."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.arrays import as_2d, columns, evenly_spread
from abcd_cli.data.scaling import Scaling
from abcd_cli.data.series import Series
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model


def test_a_vector_is_one_column_and_a_matrix_stays() -> None:
    x = np.arange(4.0)
    X = as_2d(x)
    assert X.shape == (4, 1) and np.shares_memory(X, x)
    M = np.arange(6.0).reshape(3, 2)
    assert as_2d(M) is M
    assert as_2d([1, 2]).dtype == np.float64 and as_2d([1, 2]).shape == (2, 1)


def test_columns_are_the_inputs() -> None:
    assert [c.tolist() for c in columns([1.0, 2.0])] == [[1.0, 2.0]]
    assert [c.tolist() for c in columns([[1.0, 2.0], [3.0, 4.0]])] == [[1.0, 3.0], [2.0, 4.0]]


def test_a_series_has_its_inputs_as_n_by_d() -> None:
    one = Series(np.array([1.0, 2.0, 4.0]), np.zeros(3), "t", "y", "number")
    assert one.x.shape == (3,) and one.X.shape == (3, 1) and one.n_dims == 1
    assert not one.X.flags.writeable and one.spacing == 1.5
    two = Series(np.ones((3, 2)), np.zeros(3), "a, b", "y", "number", x_names=("a", "b"),
                 x_kinds=("number", "number"))  # fmt: skip
    assert two.X is two.x and two.n_dims == 2
    for x in (np.ones(2), np.ones((3, 0)), np.ones((3, 1, 1)), np.float64(1.0)):
        with pytest.raises(ValueError, match=r"x must be \(N,\) or \(N, D\)"):
            Series(x, np.zeros(3), "t", "y", "number")


def test_a_model_has_its_inputs_as_n_by_d() -> None:
    kernel = parse_kernel("SE(lengthscale=1.0, sd=1.0) + WN(sd=0.1)")
    x, y = np.linspace(0.0, 1.0, 5), np.zeros(5)
    model = Model(kernel, Scaling.from_data(x, y), x, y, 1.0)
    assert model.x is x and model.X.shape == (5, 1) and model.n_dims == 1
    assert model.to_dict()["data"]["x"] == x.tolist()  # one input's file keeps a flat list
    for bad in (x[:4], np.column_stack([x, x]), x[:, None, None]):
        with pytest.raises(ValueError, match="x must be"):
            Model(kernel, Scaling.from_data(x, y), bad, y, 1.0)


def test_evenly_spread_runs_from_the_first_position_to_the_last() -> None:
    assert evenly_spread(32, 8).tolist() == [0, 4, 9, 13, 18, 22, 27, 31]
    assert evenly_spread(5, 8).tolist() == [0, 1, 2, 3, 4]  # all of them when fewer
    assert evenly_spread(0, 8).tolist() == [] and evenly_spread(9, 1).tolist() == [0]
