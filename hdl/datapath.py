"""Divider-free constant arithmetic and automatic pipelining for Amaranth.

A datapath is a list of *levels*; each level is a list of steps, each step a
function ``env -> {name: Value}`` reading the values of the previous level.
Independent chains (say, the digits of d and ``S*n mod M``) are merged level
by level so they run side by side.  :func:`build` inserts ``pipeline``
register boundaries: one after the last level (registered outputs) and the
other ``pipeline - 1`` spread evenly between levels, so the latency is
exactly ``pipeline`` cycles whatever the parameters.

Constant reductions use *bounded conditional subtraction*: when x < q*c is
known, ``x mod c`` and ``x div c`` come from ceil(log2 q) compare-and-subtract
steps of ``c * 2^k`` (restoring division by a constant with a known quotient
bound), never from a ``%`` or ``//`` that synthesis would turn into a full
divider.
"""

from __future__ import annotations

from amaranth.hdl import Mux, Signal, Value

__all__ = ["bits", "reduce_steps", "digits_steps", "residue_steps", "thermometer_steps", "merge", "build",
           "shadow_loader"]


def bits(x: int) -> int:
    """Bits needed to hold the values 0..x."""
    return max(1, int(x).bit_length())


def reduce_steps(src: str, rem: str, quo: str | None, const: int, quotient_bound: int, width: int) -> list:
    """Steps computing ``rem = src mod const`` (and ``quo = src div const``)
    for ``src < quotient_bound * const``, one compare-subtract per step (a
    single slice step when ``const`` is a power of two)."""
    if const & (const - 1) == 0:
        shift = const.bit_length() - 1

        def slice_step(env):
            v = Value.cast(env[src])[:width]
            out = {rem: v[:shift] if shift else Value.cast(0)}
            if quo:
                out[quo] = v[shift:]
            return out
        return [slice_step]
    steps = []
    ks = list(range(bits(quotient_bound - 1) - 1, -1, -1)) if quotient_bound > 1 else []
    for idx, k in enumerate(ks):
        def step(env, c=const << k, k=k, first=idx == 0):
            v = Value.cast(env[src] if first else env[rem])[:width]
            ge = v >= c
            out = {rem: Mux(ge, (v - c)[:width], v)}
            if quo:
                q = Value.cast(0) if first else Value.cast(env[quo])
                out[quo] = q | (ge << k)
            return out
        steps.append(step)
    if not steps:  # quotient is always 0
        steps.append(lambda env: {rem: Value.cast(env[src])[:width], **({quo: Value.cast(0)} if quo else {})})
    return steps


def digits_steps(src: str, base: int, ndigits: int, top_bound: int, width: int, prefix: str) -> list:
    """Steps splitting ``src`` into base-``base`` digits ``prefix0`` (least
    significant) .. ``prefix{ndigits-1}``; the top digit is < ``top_bound``."""
    steps: list = []
    cur = src
    for j in range(ndigits - 1, -1, -1):
        bound = top_bound if j == ndigits - 1 else base
        steps += reduce_steps(cur, f"{prefix}rem", f"{prefix}{j}", base ** j, bound, width)
        cur = f"{prefix}rem"
    return steps


def merge(*chains: list) -> list:
    """Run chains side by side: level i holds step i of every chain."""
    n = max(len(c) for c in chains)
    return [[c[i] for c in chains if i < len(c)] for i in range(n)]


def build(m, env: dict, levels: list, pipeline: int, domain: str = "sync") -> dict:
    """Evaluate ``levels`` on ``env`` with ``pipeline`` register boundaries
    (0: none, the whole datapath is combinational)."""
    assert pipeline >= 0
    n = len(levels)
    # boundaries after level indices; the last one is always after the final level
    cuts = {round(k * n / pipeline) - 1 for k in range(1, pipeline)} | {n - 1} if pipeline else set()
    extra = pipeline - len(cuts)   # more registers than levels: add them at the end
    for idx, level in enumerate(levels):
        updates: dict = {}
        for step in level:
            updates.update(step(env))
        # Name every intermediate result: a value read twice by the next
        # level would otherwise be duplicated as an expression tree.
        env = {**env, **_wires(m, updates, f"l{idx}")}
        if idx in cuts:
            env = _register(m, env, domain, f"p{idx}")
    for k in range(extra):
        env = _register(m, env, domain, f"x{k}")
    return env


def _wires(m, values: dict, tag: str) -> dict:
    out = {}
    for name, value in values.items():
        value = Value.cast(value)
        wire = Signal(value.shape(), name=f"{name}_{tag}")
        m.d.comb += wire.eq(value)
        out[name] = wire
    return out


def _register(m, env: dict, domain: str, tag: str) -> dict:
    out = {}
    for name, value in env.items():
        value = Value.cast(value)
        reg = Signal(value.shape(), name=f"{name}_{tag}")
        m.d[domain] += reg.eq(value)
        out[name] = reg
    return out


CHUNK = 4   # table inputs: one LUT4 per output bit


def residue_steps(m, src: str, dst: str, const: int, width: int, mult: int = 1) -> list:
    """Steps computing ``dst = (mult * src) mod const`` by residue tables.

    ``src`` (``width`` bits) is cut into 4-bit chunks c_k; a constant table
    per chunk gives ``(mult * c_k * 2^(4k)) mod const`` (one LUT4 per output
    bit), the K residues are added (sum < K * const) and the sum is reduced
    by ceil(log2 K) conditional subtractions.  Depth: one table, one adder,
    a few compare-subtracts, independent of the size of src.
    """
    if const & (const - 1) == 0 and mult == 1:
        return [lambda env: {dst: Value.cast(env[src])[:width][:const.bit_length() - 1]
                             if const > 1 else Value.cast(0)}]
    nchunks = (width + CHUNK - 1) // CHUNK
    rbits = bits(const - 1)

    def tables(env):
        v = Value.cast(env[src])[:width]
        out = {}
        for k in range(nchunks):
            chunk = v[k * CHUNK:(k + 1) * CHUNK]
            res = Signal(rbits, name=f"{dst}_t{k}")
            with m.Switch(chunk):
                for c in range(1 << len(chunk)):
                    with m.Case(c):
                        m.d.comb += res.eq((mult * c * (1 << (k * CHUNK))) % const)
            out[f"{dst}_t{k}"] = res
        return out

    # the residues are summed by a tree of two-input adders, one adder (one
    # carry chain) per level, so a pipeline register can go between any two
    adds = []
    names = [f"{dst}_t{k}" for k in range(nchunks)]
    lvl = 0
    while True:
        pairs = [(names[i], names[i + 1] if i + 1 < len(names) else None) for i in range(0, len(names), 2)]
        outs = [dst] if len(pairs) == 1 else [f"{dst}_s{lvl}_{i}" for i in range(len(pairs))]

        def add(env, pairs=pairs, outs=outs):
            return {o: (Value.cast(env[a]) + env[b]) if b else Value.cast(env[a]) for o, (a, b) in zip(outs, pairs)}
        adds.append(add)
        names = outs
        lvl += 1
        if len(outs) == 1:
            break

    reduce = reduce_steps(dst, dst, None, const, nchunks, bits(nchunks * const))
    return [tables] + adds + reduce


def thermometer_steps(src: str, dst: str, const: int, quotient_bound: int) -> list:
    """One step: ``dst = src div const`` for ``src < quotient_bound * const``
    by comparing src with every multiple of const at once and counting."""
    if const & (const - 1) == 0:
        shift = const.bit_length() - 1
        return [lambda env: {dst: Value.cast(env[src])[shift:shift + bits(quotient_bound - 1)]}]

    def step(env):
        v = Value.cast(env[src])
        q = Value.cast(0)
        for k in range(1, quotient_bound):
            q = q + (v >= k * const)
        return {dst: q[:bits(quotient_bound - 1)]}
    return [step]


def shadow_loader(m, port, shadow, count: int, name: str):
    """Write the beats of stream ``port`` into ``shadow[0..count-1]`` in
    order; returns the flag that says all ``count`` beats have arrived (the
    stream is not ready while it is set; clear it with ``m.d.sync``)."""
    idx = Signal(bits(count), name=f"{name}_idx")
    done = Signal(name=f"{name}_done")
    m.d.comb += port.ready.eq(~done)
    with m.If(port.valid & port.ready):
        m.d.sync += shadow[idx].eq(port.payload)
        with m.If(idx == count - 1):
            m.d.sync += [idx.eq(0), done.eq(1)]
        with m.Else():
            m.d.sync += idx.eq(idx + 1)
    return done
