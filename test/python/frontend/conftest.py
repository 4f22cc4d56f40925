"""Test setup of the importer tests: puts this directory on ``sys.path`` (pytest runs
with ``--import-mode=importlib``) so the tests share ``torch_models.py``."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
