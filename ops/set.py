"""Set operators: ``unique``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure

from xrelax.dialects.relax import TensorType
from xrelax.ops.base import OperatorOp, Props, expect_tensor, numpy_result, tensor


@irdl_op_definition
class UniqueOp(OperatorOp):
    """``relax.unique``: the sorted distinct elements of x, as a 1-D tensor whose length
    depends on the values."""

    name = "relax.unique"

    x = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    DATA_DEPENDENT: ClassVar[bool] = True

    @classmethod
    def deduce(cls, operand_types: Sequence[Attribute], properties: Props) -> Attribute:
        x = expect_tensor(operand_types[0])
        return tensor(1, x.dtype)

    @classmethod
    def reference(cls, inputs: Sequence[Any], props: Props) -> Any:
        (x,) = inputs
        return numpy_result(np.unique(x))


SET_OPS = (UniqueOp,)
