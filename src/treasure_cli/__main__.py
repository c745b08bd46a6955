"""Allow ``python -m treasure_cli``."""

from treasure_cli.cli import main

if __name__ == "__main__":
    main()
