"""ATen converters of tensor and math operators beyond the core set in
:mod:`xrelax.frontend.torch`: indexing, sorting, data-dependent shapes and
element-wise math (registered on import)."""
