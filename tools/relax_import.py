"""``relax-import``: a PyTorch or ONNX model as relax IR plus a weights file.

    relax-import MODEL.pt2 -o model.mlir --params-out weights.npz
    relax-run model.mlir --inputs x.npz --params weights.npz --print

``MODEL`` is a ``torch.export`` program saved with ``torch.export.save`` (``.pt2``) or an
ONNX model (``.onnx``). The IR's ``main`` takes the model inputs, then the weights; the
weights go to ``--params-out`` (default: the output path with ``.npz``), keyed by
parameter name. Unsupported operators are listed all at once, by name and count, and
nothing is written. Every error is one line on stderr and a non-zero exit.

Importing never runs code from the model file: a ``.pt2`` that torch could only load by
unpickling objects (or loading compiled code, or evaluating expressions) is refused
unless ``--trust-pickle`` is given; ONNX external data must lie in the model's folder.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from xrelax.tools.cli import one_line_errors, stdout_closed


class ImportFailure(Exception):
    """A user-facing failure: printed as one line."""


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    one_line_errors(parser, "relax-import")
    parser.add_argument("model", help="a .pt2 (torch.export.save) or .onnx model")
    parser.add_argument("-o", "--output", default="-", help="the .mlir to write (default: stdout)")
    parser.add_argument(
        "--params-out",
        metavar="W.npz",
        help="where to write the weights (default: the output path with .npz)",
    )
    parser.add_argument(
        "--bind-params",
        action="store_true",
        help="write the weights into the module as constants (relax-bind-params) instead of "
        "an .npz: compiling it then folds what depends only on them",
    )
    parser.add_argument(
        "--trust-pickle",
        action="store_true",
        help="load a .pt2 even if that runs code from it (pickled weights or objects): "
        "only for files you trust",
    )
    return parser.parse_args(argv)


def run(argv: Sequence[str] | None = None) -> int:
    """Run relax-import with ``argv``; returns the exit code."""
    args = _parse_args(argv)
    from xrelax.frontend import FrontendError, import_model, save_params

    model = Path(args.model)
    if not model.is_file():
        why = "not a file" if model.exists() else "no such file"
        raise ImportFailure(f"cannot open '{args.model}': {why}")
    try:
        imported = import_model(args.model, trust_pickle=args.trust_pickle)
    except FrontendError as err:
        message = str(err)
        raise ImportFailure(
            message if args.model in message else f"{args.model}: {message}"
        ) from None
    if args.bind_params:
        if args.params_out is not None:
            raise ImportFailure("--bind-params writes the weights into the module: no --params-out")
        from xrelax.transforms.bind_params import bind_params

        bind_params(imported.module, imported.params)
        imported.params.clear()
    params_path = args.params_out
    if params_path is None and imported.params:
        if args.output == "-":
            raise ImportFailure(
                f"{args.model}: the model has {len(imported.params)} weights: give --params-out"
            )
        params_path = str(Path(args.output).with_suffix(".npz"))
    text = imported.text()
    try:
        if params_path is not None:
            save_params(params_path, imported.params)
        if args.output == "-":
            sys.stdout.write(text)
        else:
            Path(args.output).write_text(text, encoding="utf-8")
    except OSError as err:
        raise ImportFailure(f"cannot write '{err.filename}': {err.strerror}") from None
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point."""
    try:
        return run(argv)
    except ImportFailure as err:
        print(f"relax-import: error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return stdout_closed()
    except Exception as err:  # noqa: BLE001 - an internal error is still one line
        message = str(err).splitlines()[0] if str(err) else ""
        print(f"relax-import: internal error: {type(err).__name__}: {message}", file=sys.stderr)
        if os.environ.get("XRELAX_DEBUG"):
            traceback.print_exc()
        return 2


if __name__ == "__main__":
    sys.exit(main())
