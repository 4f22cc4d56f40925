"""ONNX control flow: ``If``, ``Loop`` and ``Scan`` with their subgraphs (registered on
import by :mod:`xrelax.frontend.onnx`)."""
