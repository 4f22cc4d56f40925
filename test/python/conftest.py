"""Hypothesis profiles of the whole test suite, and its shared helpers on ``sys.path``.

``suite`` (loaded here): 25 examples per property, drawn from a fixed seed
(``derandomize``), so that the test command gives the same answer on every machine and
run; a property failing in CI is a change's fault, not a new draw's.
``thorough`` (``pytest --hypothesis-profile=thorough``): 1000 examples per property from
random seeds — the search for new counterexamples, to run before changing an operator.
"""

import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))  # the shared helpers (listings.py)

_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("suite", max_examples=25, derandomize=True, **_COMMON)
settings.register_profile("thorough", max_examples=1000, **_COMMON)
settings.load_profile("suite")
