"""Small onnx_ir graph-editing helpers shared by the fast-graph builders (models.export.fast,
models.export.fast_vision)."""

from __future__ import annotations

from typing import Any

import numpy as np


class Builder:
    """Appends nodes / constants to an onnx_ir graph."""

    def __init__(self, graph: Any, prefix: str) -> None:
        import onnx_ir as ir

        self.ir, self.g, self.prefix, self.n = ir, graph, prefix, 0
        self.consts: dict[tuple, Any] = {}

    def const(self, value: Any, dtype: Any = np.int64) -> Any:
        arr = np.asarray(value, dtype=dtype)
        key = (arr.dtype.str, arr.shape, arr.tobytes())
        if key not in self.consts:
            self.n += 1
            v = self.ir.Value(name=f"{self.prefix}c{self.n}", const_value=self.ir.tensor(arr))
            self.g.initializers.add(v)
            self.consts[key] = v
        return self.consts[key]

    def op(self, op_type: str, *inputs: Any, domain: str = "", outputs: int = 1,
           **attrs: Any) -> Any:  # fmt: skip
        self.n += 1
        node = self.ir.node(op_type, list(inputs), attributes=attrs, domain=domain,
                            num_outputs=outputs,
                            name=f"{self.prefix}{op_type}_{self.n}")  # fmt: skip
        for k, o in enumerate(node.outputs):
            o.name = f"{self.prefix}{op_type}_{self.n}_{k}"
        self.g.append(node)
        return node.outputs[0] if outputs == 1 else node.outputs


def remove_unused(g: Any) -> None:
    outs = set(id(o) for o in g.outputs)
    changed = True
    while changed:
        changed = False
        for n in reversed(list(g)):
            if any(o.uses() or id(o) in outs for o in n.outputs):
                continue
            g.remove(n, safe=True)
            changed = True
    for name in [k for k, v in g.initializers.items() if not v.uses()]:
        del g.initializers[name]


def scalar(v: Any) -> float | None:
    """The value of a one-element constant (an initializer or a Constant node), else None."""
    if v is None:
        return None
    if v.const_value is not None:
        a = v.const_value.numpy()
    else:
        node = v.producer()
        if node is None or node.op_type != "Constant" or len(node.attributes) != 1:
            return None
        (attr,) = node.attributes.values()
        val = attr.value
        a = np.asarray(val.numpy() if hasattr(val, "numpy") else val)
    return float(a.reshape(-1)[0]) if a.size == 1 else None
