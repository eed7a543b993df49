"""Allow ``python -m abcd_cli``."""

from abcd_cli.cli import main

main()
