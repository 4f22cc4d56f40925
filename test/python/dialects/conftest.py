"""Test setup of the dialect tests: puts this directory on ``sys.path`` (pytest runs
with ``--import-mode=importlib``, under which test modules cannot otherwise import the
shared helpers of ``discardable.py``)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
