"""Allow ``python -m abcd_cli``."""

from abcd_cli.cli.main import main

main()
