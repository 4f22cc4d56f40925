"""SSA dominance of a region whose blocks form a control-flow graph (``vm.func``).

xDSL's verifier checks neither that a value is defined before its use in a block nor
that its block dominates the block of the use; a VM function that reads a register
before writing it would read whatever the register held. :func:`check_dominance`
checks both, as MLIR's verifier does; uses in blocks the entry cannot reach are not
checked (MLIR's rule too). xDSL's ``DominanceInfo`` is not used: it counts unreachable
predecessors, so a join block that an unreachable block also jumps to would be
dominated by nothing but itself, and valid code would be refused.
"""

from __future__ import annotations

from xdsl.ir import Block, Region, SSAValue

from xrelax.dialects.ir.diagnostics import IRError


def check_dominance(region: Region) -> None:
    """Raise :class:`IRError` at the first operand of an op of ``region``'s blocks that
    a definition of the region does not dominate (the ops have no regions of their own,
    as in a ``vm.func``)."""
    blocks = list(region.blocks)
    if not blocks:
        return
    dominators = _dominators(blocks)
    position: dict[SSAValue, tuple[Block, int]] = {}
    for block in blocks:
        for arg in block.args:
            position[arg] = (block, -1)
        for index, op in enumerate(block.ops):
            for result in op.results:
                position[result] = (block, index)
    for block in blocks:
        if block not in dominators:
            continue  # unreachable from the entry
        for index, op in enumerate(block.ops):
            for k, operand in enumerate(op.operands):
                where = position.get(operand)
                if where is None:
                    raise IRError(op, f"operand #{k} is not defined in this function")
                def_block, def_index = where
                if def_block is block:
                    if def_index >= index:
                        raise IRError(op, f"operand #{k} does not dominate this use")
                elif def_block not in dominators[block]:
                    raise IRError(op, f"operand #{k} does not dominate this use")


def _dominators(blocks: list[Block]) -> dict[Block, set[Block]]:
    """Each block reachable from the entry (``blocks[0]``) -> the blocks dominating it
    (itself included): the iterative data-flow solution, in reverse post-order."""
    entry = blocks[0]
    successors = {b: list(b.last_op.successors) if b.last_op else [] for b in blocks}
    order: list[Block] = []
    seen: set[Block] = set()
    stack: list[tuple[Block, int]] = [(entry, 0)]
    seen.add(entry)
    while stack:
        block, next_index = stack.pop()
        if next_index < len(successors[block]):
            stack.append((block, next_index + 1))
            succ = successors[block][next_index]
            if succ not in seen:
                seen.add(succ)
                stack.append((succ, 0))
        else:
            order.append(block)
    order.reverse()
    predecessors: dict[Block, list[Block]] = {b: [] for b in order}
    for block in order:
        for succ in successors[block]:
            predecessors[succ].append(block)
    reachable = set(order)
    dominators: dict[Block, set[Block]] = {b: set(reachable) for b in order}
    dominators[entry] = {entry}
    changed = True
    while changed:
        changed = False
        for block in order[1:]:
            preds = [dominators[p] for p in predecessors[block]]
            new = set.intersection(*preds) | {block} if preds else {block}
            if new != dominators[block]:
                dominators[block] = new
                changed = True
    return dominators
