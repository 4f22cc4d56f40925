"""The relax operator library: one class per operator (docs/design.md §4).

See :mod:`xrelax.ops.base` for what an operator defines, and
``docs/adding-an-operator.md`` for how to add one. Every operator is listed in
:data:`xrelax.ops.library.OPERATORS`; :mod:`xrelax.ops.registry` assembles the relax
dialect from them and the structural ops. This package imports nothing itself, so
that the registry can be loaded without loading the operators.
"""
