"""The one exception type of the Relax VM."""

from collections.abc import Sequence


class VMError(Exception):
    """A VM failure: a malformed executable, a failed check, or a failing packed function.

    Messages are one line and say which function failed and what was expected vs given.
    """


class AllocationError(VMError):
    """An allocation that cannot be made: ``what`` could not be allocated and ``why``
    (empty when ``what`` says it, as a negative dimension does). The VM reports it with
    the function and the value being allocated: ``cannot allocate a tensor of shape
    [-2, 4] in main (%y)``."""

    def __init__(self, what: str, why: str = "") -> None:
        super().__init__(f"{what}: {why}" if why else what)
        self.what = what
        self.why = why

    def located(self, function: str, value: str | None) -> str:
        """The message naming the function and the value (``%y``) being allocated."""
        where = f" in {function}" + (f" (%{value})" if value else "")
        return f"{self.what}{where}" + (f": {self.why}" if self.why else "")


def missing_arguments(missing: list[str], names: Sequence[str]) -> str:
    """``missing arguments 'w', 'b' (parameters: x, w, b)``."""
    shown = ", ".join(f"'{name}'" for name in missing)
    plural = "s" if len(missing) > 1 else ""
    return f"missing argument{plural} {shown} (parameters: {', '.join(names)})"
