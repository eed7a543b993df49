"""The package version, in a module of its own so that any module can import it without
importing the package's API (``from abcd_cli.version import __version__``)."""

__version__ = "0.1.0"
