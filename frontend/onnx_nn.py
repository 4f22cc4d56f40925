"""ONNX converters of the neural-network family: convolutions, pooling, resizing and
normalisation beyond the core set in :mod:`xrelax.frontend.onnx` (registered on import)."""
