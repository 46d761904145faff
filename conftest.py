"""Makes `projects` importable, so tests can say `from projects.x.scorers.y import Z`."""

import sys
from pathlib import Path

ROOT = Path(__file__).parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

pytest_plugins = ["pytester"]
