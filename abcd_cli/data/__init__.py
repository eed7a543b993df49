"""Data in: a CSV file, a DataFrame or arrays read and validated into a series; dates, time
units, and the per-input scaling to the fitter's units and back.
"""
