"""Allow ``python -m abcd_cli``."""

from abcd_cli.cli.main import main

if __name__ == "__main__":  # not when a worker process re-imports the main module
    main()
