"""lit configuration: FileCheck tests of relax-opt / relax-run on textual IR."""

import os
import sys

import lit.formats

config.name = "xrelax"  # noqa: F821 - `config` is provided by lit
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821
config.excludes = ["python", "Inputs", "lit.cfg.py"]  # noqa: F821

# The tools and filecheck come from the Python environment running lit.
bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")  # noqa: F821
config.environment["PYTHONDONTWRITEBYTECODE"] = "1"  # noqa: F821

repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
config.substitutions.append(("%examples", os.path.join(repo, "examples")))  # noqa: F821
config.substitutions.append(  # noqa: F821
    (
        "%roundtrip",
        "relax-opt %s --split-input-file | relax-opt --split-input-file | filecheck %s",
    )
)
config.substitutions.append(  # noqa: F821
    (
        "%generic-roundtrip",
        "relax-opt %s --split-input-file --print-op-generic | relax-opt --split-input-file"
        " | filecheck %s",
    )
)
