"""Where a search level's candidate fits run: serially, on a process pool that survives
dying workers (``pool``), or on a Dask cluster (``dask``, optional: ``abcd-cli[dask]``).
"""
