"""The xDSL plugin entry point: stock ``xdsl-opt`` sees xrelax's dialects and passes."""

from xdsl.universe import Universe

from xrelax.ops.registry import project_dialects
from xrelax.transforms import project_passes

UNIVERSE = Universe(all_dialects=project_dialects(), all_passes=project_passes())
