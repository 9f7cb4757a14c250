"""Demand matrices from files.

    >>> from permnet.gen.traffic.demand import parse_demand_text
    >>> parse_demand_text("src,dst,weight\\n0,1,2.5\\n1,0,1\\n0,1,0.5\\n", 3).tolist()
    [[0.0, 3.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]

A demand matrix D is M x M, non-negative and finite: ``D[s, d]`` is the
traffic node s sends to node d (any unit: bytes, a rate, a time at line
rate; only ratios matter to the planner, and :mod:`.schedule` rescales it).

Files (:func:`parse_demand_text`, :func:`parse_demand_npy`; the CLI reads
them with :func:`permnet.trafficfiles.read_demand`):

* ``.npy``: a 2-D float or integer array, read without pickles.
* sparse CSV, one ``src,dst,weight`` per line, nodes numbered 0..M-1;
  repeated pairs add up.  A file is sparse when its first line is the
  header ``src,dst,weight`` or when every line has three fields and M is
  not 3 (a 3 x 3 dense file needs no header; a 3-node sparse file does).
* dense CSV: M lines of M comma-separated numbers.

Blank lines and lines starting with ``#`` are skipped.  **The diagonal is
ignored** (set to 0): traffic a node sends to itself never enters the
network, and the built-in patterns produce it where a formula maps a node
to itself (transpose on the grid's diagonal, bit-reversal palindromes).
Every other problem is one :class:`~permnet.gen.errors.PermnetError` line:
negative, NaN or infinite weights, nodes outside 0..M-1, a matrix that is
not square or not M x M, no demand at all off the diagonal.
"""

from __future__ import annotations

import numpy as np

from permnet.gen.errors import PermnetError, require

__all__ = ["check_demand", "parse_demand_npy", "parse_demand_text", "MAX_NODES"]

#: a dense M x M float64 matrix; 8192^2 is 512 MB
MAX_NODES = 8192


def check_demand(D, M: int | None = None, name: str = "demand") -> np.ndarray:
    """``D`` as a float64 M x M matrix with a zero diagonal, or a one-line error."""
    D = np.asarray(D)
    require(D.ndim == 2, f"{name}: a demand matrix has 2 dimensions, got {D.ndim}")
    require(D.shape[0] == D.shape[1], f"{name}: the matrix is not square ({D.shape[0]} x {D.shape[1]})")
    if M is not None:
        require(D.shape[0] == M, f"{name}: a {D.shape[0]} x {D.shape[0]} matrix for M={M} nodes")
    require(D.shape[0] >= 2, f"{name}: at least 2 nodes are needed, got {D.shape[0]}")
    require(D.shape[0] <= MAX_NODES, f"{name}: at most {MAX_NODES} nodes, got {D.shape[0]}")
    require(np.issubdtype(D.dtype, np.number) and not np.issubdtype(D.dtype, np.complexfloating),
            f"{name}: weights must be real numbers, got dtype {D.dtype}")
    D = D.astype(np.float64, copy=True)
    bad = ~np.isfinite(D)
    if bad.any():
        s, d = map(int, np.argwhere(bad)[0])
        raise PermnetError(f"{name}: weight {D[s, d]} of ({s},{d}) is not finite")
    if (D < 0).any():
        s, d = map(int, np.argwhere(D < 0)[0])
        raise PermnetError(f"{name}: weight {D[s, d]} of ({s},{d}) is negative")
    np.fill_diagonal(D, 0.0)
    require(D.any(), f"{name}: no demand between distinct nodes")
    with np.errstate(over="ignore", invalid="ignore"):
        total = D.sum()
    require(np.isfinite(total), f"{name}: the weights sum to more than the largest float ({np.finfo(float).max:.3g}); "
            "scale them down")
    return D


def _rows(text: str):
    for k, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            yield k, [t.strip() for t in line.split(",")]


def _number(tok: str, name: str, line: int) -> float:
    try:
        return float(tok)
    except ValueError:
        raise PermnetError(f"{name}:{line}: {tok!r} is not a number") from None


def parse_demand_text(text: str, M: int, name: str = "demand") -> np.ndarray:
    """Parse a sparse (``src,dst,weight``) or dense CSV demand for M nodes (module docstring)."""
    require(2 <= M <= MAX_NODES, f"nodes M must be between 2 and {MAX_NODES}, got {M}")
    rows = list(_rows(text))
    require(bool(rows), f"{name}: no data")
    header = [t.lower() for t in rows[0][1]] == ["src", "dst", "weight"]
    if header:
        rows = rows[1:]
    sparse = header or (M != 3 and all(len(r) == 3 for _, r in rows))
    if sparse:
        D = np.zeros((M, M), np.float64)
        for line, r in rows:
            require(len(r) == 3, f"{name}:{line}: expected src,dst,weight, got {len(r)} fields")
            ends = []
            for tok in r[:2]:
                try:
                    ends.append(int(tok))
                except ValueError:
                    raise PermnetError(f"{name}:{line}: node {tok!r} is not an integer") from None
            s, d = ends
            require(0 <= s < M and 0 <= d < M, f"{name}:{line}: node out of range 0..{M - 1} in ({s},{d})")
            w = _number(r[2], name, line)
            require(np.isfinite(w), f"{name}:{line}: weight {r[2]} is not finite")
            require(w >= 0, f"{name}:{line}: weight {r[2]} is negative")
            total = float(D[s, d]) + w            # Python floats: an overflow is inf, not a numpy warning
            require(total < np.inf, f"{name}:{line}: the weights of ({s},{d}) add up past the largest float "
                    f"({np.finfo(float).max:.3g})")
            D[s, d] = total
        return check_demand(D, M, name)
    widths = {len(r) for _, r in rows}
    require(len(widths) == 1, f"{name}: rows of different lengths {sorted(widths)}")
    require(len(rows) == widths.pop(), f"{name}: the matrix is not square ({len(rows)} x {len(rows[0][1])})")
    D = np.array([[_number(t, name, line) for t in r] for line, r in rows], dtype=np.float64)
    return check_demand(D, M, name)


def parse_demand_npy(data: bytes, M: int, name: str = "demand") -> np.ndarray:
    """The demand matrix in the bytes of a ``.npy`` file (no pickles) for M nodes."""
    import io

    try:
        D = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, EOFError, OSError) as exc:
        raise PermnetError(f"{name}: not a readable .npy array ({str(exc).splitlines()[0]})") from None
    require(isinstance(D, np.ndarray), f"{name}: not a single .npy array")
    return check_demand(D, M, name)
