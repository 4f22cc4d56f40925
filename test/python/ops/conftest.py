"""Test setup of the operator tests.

Puts this directory on ``sys.path`` (pytest runs with ``--import-mode=importlib``, under
which test modules cannot otherwise import the shared helpers of ``opcheck.py``), and
registers hypothesis profiles: ``ops`` (the default here, fast) and ``ops-thorough``
(``pytest --hypothesis-profile=ops-thorough``).
"""

import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))

_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("ops", max_examples=25, **_COMMON)
settings.register_profile("ops-thorough", max_examples=1000, **_COMMON)
settings.load_profile("ops")
