"""The one exception type of the Relax VM."""


class VMError(Exception):
    """A VM failure: a malformed executable, a failed check, or a failing packed function.

    Messages are one line and say which function failed and what was expected vs given.
    """
