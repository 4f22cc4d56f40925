"""The pass registry agrees with the pass classes: each pass loads under its class's
``name``, and every pass class of ``xrelax.transforms`` is registered."""

from __future__ import annotations

import pkgutil
from importlib import import_module

import pytest
from xdsl.passes import ModulePass

from xrelax import transforms
from xrelax.transforms import project_passes


def defined_passes() -> dict[str, type[ModulePass]]:
    """The ModulePass classes the modules of ``xrelax.transforms`` define, by name."""
    found: dict[str, type[ModulePass]] = {}
    for info in pkgutil.iter_modules(transforms.__path__):
        module = import_module(f"xrelax.transforms.{info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, ModulePass)
                and value.__module__ == module.__name__
                and hasattr(value, "name")  # not an abstract base (PipelinePass)
            ):
                found[value.name] = value
    return found


def test_every_pass_class_is_registered_by_its_name():
    registered = {name: factory() for name, factory in project_passes().items()}
    assert all(cls.name == name for name, cls in registered.items())
    defined = defined_passes()
    assert {name: registered.get(name) for name in defined} == defined


def test_a_registered_name_that_is_not_the_class_name_is_an_error(monkeypatch):
    monkeypatch.setitem(
        transforms._PROJECT_PASSES, "relax-tidy", "xrelax.transforms.relax_dce:RelaxDCEPass"
    )
    with pytest.raises(LookupError) as info:
        project_passes()["relax-tidy"]()
    assert str(info.value) == (
        "xrelax.transforms.relax_dce:RelaxDCEPass is named 'relax-dce', registered as 'relax-tidy'"
    )
