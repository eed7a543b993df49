"""abcd: automatic model discovery for time series with Gaussian processes."""

__version__ = "0.1.0"
