"""Where a search level's candidate fits run: serially or on a process pool that survives
dying workers (any ``concurrent.futures.Executor`` works).
"""
