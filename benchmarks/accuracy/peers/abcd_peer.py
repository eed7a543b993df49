"""``abcd`` as a user runs it: ``abcd_cli.search`` on the training file with the default
settings (one seed, seed 0, one worker process per core as ``abcd search`` uses), then
``abcd_cli.predict`` at the test x (the table ``abcd predict`` writes: mean, sd, 2.5% and 97.5%
quantiles, noise included)."""

from __future__ import annotations

import warnings

from benchmarks.accuracy.peers.split import Forecast, Split
from benchmarks.accuracy.runs import split_files

#: worker processes, as the command line's default ``--jobs 0``: one per core
JOBS = 0


def forecast(split: Split) -> Forecast:
    """Search the training file; predict the test x."""
    import abcd_cli

    train_path, _ = split_files(split.series, split.task)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", abcd_cli.AbcdWarning)
        model = abcd_cli.search(abcd_cli.load(str(train_path)), jobs=JOBS)
    table = abcd_cli.predict(model, split.x_test)
    return Forecast(
        table["mean"].to_numpy(),
        table["q2.5"].to_numpy(),
        table["q97.5"].to_numpy(),
        table["sd"].to_numpy(),
        f"{model.structure}; BIC {model.bic:.2f}",
    )
