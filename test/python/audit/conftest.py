"""Test setup of the semantic audit: puts this directory on ``sys.path`` (pytest runs
with ``--import-mode=importlib``, under which test modules cannot otherwise import the
audit's helpers)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
