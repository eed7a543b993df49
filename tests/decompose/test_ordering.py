"""The report order of components by cross-validated error, and the error of the whole model
without each one."""

from __future__ import annotations

import numpy as np
import pytest

from abcd_cli.data.scaling import Scaling
from abcd_cli.decompose.ordering import order_by_cv
from abcd_cli.engines import get_engine
from abcd_cli.kernels.text import parse_kernel
from abcd_cli.model import Model


@pytest.fixture(scope="module")
def ordered():
    x = np.linspace(0.0, 10.0, 120)
    y = 0.5 * x + np.sin(2 * np.pi * x) + 0.1 * np.random.default_rng(0).standard_normal(x.size)
    scaling = Scaling.from_data(x, y)
    text = "WN(sd=0.1) + Per(lengthscale=1.0, period=1.0, sd=1.0) + Lin(sd=0.5, location=0.0)"
    kernel = scaling.kernel_in(parse_kernel(text))
    model = Model(kernel, scaling, x, y, 0.0, engine=get_engine("exact"))
    terms = list(kernel.terms)
    return terms, order_by_cv(terms, model.posterior)


def test_leaving_out_the_last_added_is_the_path_before_it(ordered):
    _, cv = ordered
    assert cv.without[-1] == pytest.approx(cv.path[-2])
    assert sorted(cv.order) == [0, 1, 2]


def test_the_noise_predicts_nothing_so_the_whole_model_does_as_well_without_it(ordered):
    terms, cv = ordered
    noise_at = [terms[i].has_noise_factor() for i in cv.order].index(True)
    assert cv.without[noise_at] == pytest.approx(cv.path[-1])
    others = [w for k, w in enumerate(cv.without) if k != noise_at]
    assert min(others) > cv.path[-1]  # the trend and the cycle each predict
