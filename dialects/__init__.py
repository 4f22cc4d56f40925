"""The IR: the relax, tir, sym and vm dialects and symbolic shapes.

The registry that assembles the relax dialect with its operators is
:mod:`xrelax.ops.registry`, above the operators.
"""
