"""ONNX converters of tensor and math operators beyond the core set in
:mod:`xrelax.frontend.onnx`: indexing, scatter, sorting, data-dependent shapes,
quantization and element-wise math (registered on import)."""
