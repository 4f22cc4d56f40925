"""Test setup of the operator tests.

Puts this directory on ``sys.path`` (pytest runs with ``--import-mode=importlib``, under
which test modules cannot otherwise import the shared helpers of ``opcheck.py``). The
hypothesis profiles are the suite's (``test/python/conftest.py``).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
