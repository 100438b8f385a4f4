"""One alignment structure for every string measure (WER, CDER, TER, INVWER, LJWER, PER).

Conventions (tercom's): the *candidate* (hypothesis) is compared with a
*reference*. An insertion (``I``) is a candidate word with no reference
counterpart; a deletion (``D``) is a reference word missing from the candidate.
Positions are 0-based token indices; spans are half-open ``[start, end)``.

Operations are listed in reference order where the measure has one (for
CDER/TER/INVWER the operations of the final, block-moved alignment). Blocks
describe reorderings: a long jump (CDER/LJWER), a shift (TER), an inversion
(INVWER); ``number`` starts at 1 and is what the UI and the text view show.
Summing ``cost`` over operations and blocks gives the measure's distance.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import Enum


class OpKind(str, Enum):
    MATCH = "="      # identity
    SUB = "S"        # substitution (cost may be word dependent, thesis 4.5)
    INS = "I"        # candidate word not in the reference
    DEL = "D"        # reference word missing in the candidate


class BlockKind(str, Enum):
    LONG_JUMP = "long-jump"
    SHIFT = "shift"
    INVERSION = "inversion"


@dataclass(frozen=True)
class EditOp:
    kind: OpKind
    hyp_pos: int | None
    ref_pos: int | None
    cost: float = 0.0


@dataclass(frozen=True)
class Block:
    number: int
    kind: BlockKind
    hyp_span: tuple[int, int]
    ref_span: tuple[int, int]
    cost: float = 0.0


@dataclass(frozen=True)
class Alignment:
    measure: str
    hyp: tuple[str, ...]
    ref: tuple[str, ...]
    distance: float
    operations: tuple[EditOp, ...] = ()
    blocks: tuple[Block, ...] = ()
    #: Index of the reference used (multi-reference measures), else 0.
    ref_index: int = 0
    #: Free-form notes, e.g. {"approximated": True} for long LJWER sentences.
    notes: dict = field(default_factory=dict)

    def operation_cost(self) -> float:
        return sum(op.cost for op in self.operations) + sum(b.cost for b in self.blocks)

    def counts(self) -> dict[str, int]:
        c = {k.name.lower(): 0 for k in OpKind}
        for op in self.operations:
            c[op.kind.name.lower()] += 1
        c["blocks"] = len(self.blocks)
        return c

    def to_dict(self) -> dict:
        d = asdict(self)
        d["operations"] = [{"kind": op.kind.value, "hyp_pos": op.hyp_pos, "ref_pos": op.ref_pos,
                            "cost": op.cost} for op in self.operations]
        d["blocks"] = [{"number": b.number, "kind": b.kind.value, "hyp_span": list(b.hyp_span),
                        "ref_span": list(b.ref_span), "cost": b.cost} for b in self.blocks]
        d["hyp"] = list(self.hyp)
        d["ref"] = list(self.ref)
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)
