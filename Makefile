# Every target installs what it needs first, so each works on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test lint demo notebook benchmark snapshots bench-gp bench-search bench-accuracy bench-peers bench-long clean

# dev: the test and lint tools, and the Jupyter kernel and runner of tests/test_docs_notebook.py;
# dask: the cluster that tests/execution/test_dask.py starts; bench: the peer tools that
# tests/benchmarks/accuracy/test_peers.py runs and the packages holding the long-series
# benchmark's real series; files: the .parquet and .xlsx readers (tests/data/test_files.py)
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,dask,bench,files]'
	mkdir -p results
	# ElectricDevices, which tests/benchmarks/long_series/test_long_series_data.py reads: one 8 MB
	# wheel (sktime's data file; the package itself pins an older pandas), fetched once into results/
	$(BIN)/python -m benchmarks.long_series.data --series electric-devices
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -q

# Rewrite the report snapshots in tests/golden/ after an intended change (review the diff).
snapshots: $(STAMP)
	ABCD_UPDATE_SNAPSHOTS=1 $(BIN)/python -m pytest -q tests/reporting/test_report.py tests/reporting/test_posterior_report.py -k snapshot

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# A real result from a bundled dataset: the model search on the airline series.
demo: $(STAMP)
	$(BIN)/abcd report datasets/01-airline.csv -o results/01-airline.pdf

# Run docs/notebook.ipynb and write it back with its outputs (after changing it or what abcd shows).
notebook: $(STAMP)
	$(BIN)/python -m tests.test_docs_notebook

# Reports for the 13 series into results/benchmark/ (SERIES=01-airline for one; ARGS="--seed 1"
# for any search option of abcd benchmark); resumable.
SERIES ?=
ARGS ?=
benchmark: $(STAMP)
	$(BIN)/abcd benchmark datasets -o results/benchmark $(foreach s,$(SERIES),--series $(s)) $(ARGS)

bench-gp: $(STAMP)
	$(BIN)/python -m benchmarks.engines.bench_gp --repeats 7 --blas-threads 1 --out benchmarks/engines/outputs/gp_engine.md

bench-search: $(STAMP)
	$(BIN)/python -m benchmarks.search.bench_search --scaling 05-temperature --out benchmarks/search/outputs/search.md

# Extrapolation and interpolation RMSE of every method on the fixed splits (hours; resumable).
bench-accuracy: $(STAMP)
	$(BIN)/python -m benchmarks.accuracy.bench_accuracy --jobs 0 --out-dir benchmarks/accuracy/outputs

# The same splits beside Prophet, exponential smoothing, ARIMA and scikit-learn's GP, with abcd
# at its defaults (the peers minutes, abcd 1.5-2 hours; resumable).
bench-peers: $(STAMP)
	$(BIN)/python -m benchmarks.accuracy.bench_peers --jobs 2 --out-dir benchmarks/accuracy/outputs/peers

# The default report command on synthetic and real series of 10^4-10^5 points (hours; resumable;
# a run still going after 3 hours, three times the 10^5 target, is stopped and recorded as such).
# ARGS="--engine skc" passes options on to abcd report.
bench-long: $(STAMP)
	$(BIN)/python -m benchmarks.long_series.bench_long --time-limit 10800 --out benchmarks/long_series/outputs/long_series.md $(if $(ARGS),--args $(ARGS))

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
