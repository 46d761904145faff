"""`python -m pytest_arena` is the `arena` command."""

import sys

from pytest_arena.cli import main

sys.exit(main())
