"""Switch settings for a permutation: route, verify by simulation, render.

The one path from a permutation to files: :func:`settings` routes it on a
Beneš/Waksman network (radix 2, any N) or an (n,d) permutation network
(radix n), replays the settings and only then returns them; a mismatch
raises ``RuntimeError`` (a bug, never silent output).  The replay is the
independent simulator :mod:`permnet.sim.network` on the explicit stages and
links up to :data:`DESCRIBE_LIMIT` wires; above it (where the explicit form
would not fit in memory) it is the compiled replay
:func:`permnet.gen.routing.benes.replay`, which reads only the packed settings
and the network's construction, never the router's working data.

Hex files for ``$readmemh`` (shared with the RTL):

* ``stage_SS.hex``: one line per switch of stage SS, in the order of the
  JSON ``stages[SS]`` list (increasing first input position).  A 2x2 switch
  is ``0`` (straight) or ``1`` (crossed).  An n x n switch packs its state
  list with b = ceil(log2 n) bits per entry, entry k (the input shown on
  output k) in bits [k*b, (k+1)*b).
* ``config.hex`` (2x2 networks only): one line per stage, a word of
  floor(N/2) bits in which bit j is the state of the stage's j-th switch
  (unused high bits 0).  This is the word the RTL's configuration stream
  takes, stage 0 first.

Digits follow :mod:`permnet.gen.hexfile` (a word of w bits takes ceil(w/4)
digits); n x n switch words are not padded.

Every file is produced one stage at a time from the packed settings
(N bits a stage), so ``-o`` needs O(N) working memory and O(N log N) bits
of output at any N.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from numba import njit

from permnet.gen.errors import PermnetError, require
from permnet.gen.hexfile import bits_line, hex_digits, hex_lines
from permnet.fileio import atomic_dir, atomic_write, read_text, write_json
from permnet.gen.routing import benes
from permnet.gen.routing import pn
from permnet.sim.network import replay_2x2, replay_description

__all__ = ["Settings", "SwitchingSummary", "settings", "configure", "parse_perm_text", "read_perm_file",
           "read_perm_array", "perm_array", "write_hex", "DESCRIBE_LIMIT"]

DESCRIBE_LIMIT = 1 << 14   # largest 2x2 network given as explicit stages and links

UNUSED_TOKENS = {"x", "-", "_", "-1", "none", "null"}


def parse_perm_text(text: str) -> list:
    """``4,1,0,3`` (commas or white space); ``x``, ``-``, ``_`` or ``-1`` mark an unused input."""
    text = text.strip()
    if "," in text:
        toks = [t.strip() for t in text.split(",")]
        empty = [i for i, t in enumerate(toks) if not t]
        require(not empty, f"entry {empty[0] if empty else 0} is empty (use x for an unused input)")
    else:
        toks = text.split()
    out: list = []
    for i, t in enumerate(toks):
        if t.lower() in UNUSED_TOKENS:
            out.append(None)
            continue
        try:
            out.append(int(t))
        except ValueError:
            raise PermnetError(f"entry {i}: {t!r} is not an integer") from None
    return out


def read_perm_file(path) -> list:
    """A JSON list (null = unused) or one integer per line."""
    text = read_text(path)
    if text.lstrip().startswith("["):
        try:
            vals = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PermnetError(f"{path}: malformed JSON list at line {exc.lineno}: {exc.msg}") from None
        return [None if v is None or v == -1 else v for v in vals]
    return parse_perm_text(text)


@njit(cache=True)
def _parse_ints(b):
    """Fast path of :func:`parse_perm_text` on the bytes ``b``: tokens split
    by white space, or by single commas when ``b`` holds one (optional
    ``[`` ``]`` around them); an integer, or x - _ -1 null none for unused
    (-1).  Returns (values, ok); ok False means: take the slow path, which
    names the offending entry."""
    n = len(b)
    out = np.empty(n // 2 + 1, np.int64)
    lo, hi = 0, n
    while lo < hi and (b[lo] == 32 or 9 <= b[lo] <= 13):
        lo += 1
    while hi > lo and (b[hi - 1] == 32 or 9 <= b[hi - 1] <= 13):
        hi -= 1
    if lo < hi and b[lo] == 91:            # [ ... ]
        if b[hi - 1] != 93:
            return out[:0], False
        lo += 1
        hi -= 1
    commas = False
    for i in range(lo, hi):
        if b[i] == 44:
            commas = True
            break
    k = 0
    i = lo
    need_comma = False
    while i < hi:
        c = b[i]
        if c == 32 or 9 <= c <= 13:
            i += 1
            continue
        if c == 44:
            if not (commas and need_comma):
                return out[:0], False
            need_comma = False
            i += 1
            continue
        if commas and need_comma:
            return out[:0], False
        j = i
        while j < hi and not (b[j] == 32 or 9 <= b[j] <= 13 or b[j] == 44):
            j += 1
        if 48 <= c <= 57:
            v = 0
            for q in range(i, j):
                d = b[q] - 48
                if d < 0 or d > 9 or q - i > 17:
                    return out[:0], False
                v = v * 10 + d
            out[k] = v
        elif j - i == 1 and (c == 120 or c == 88 or c == 45 or c == 95):     # x X - _
            out[k] = -1
        elif j - i == 2 and c == 45 and b[i + 1] == 49:                      # -1
            out[k] = -1
        elif j - i == 4 and ((b[i] | 32) == 110) and ((b[i + 1] | 32) == 117 or (b[i + 1] | 32) == 111):
            w = (b[i + 2] | 32) * 256 + (b[i + 3] | 32)
            if w != 108 * 256 + 108 and w != 110 * 256 + 101:                # null / none
                return out[:0], False
            out[k] = -1
        else:
            return out[:0], False
        k += 1
        need_comma = True
        i = j
    if commas and not need_comma:
        return out[:0], False                # trailing comma
    return out[:k], True


def perm_array(text: str):
    """:func:`parse_perm_text`, as an int64 array with -1 for an unused input
    when the text is plain integers and unused marks (the form
    :func:`settings` takes fastest); anything else goes to the general parser
    (a list, or its error naming the entry)."""
    vals, ok = _parse_ints(np.frombuffer(text.encode(), np.uint8))
    return vals if ok and len(vals) else parse_perm_text(text)


def read_perm_array(path):
    """:func:`read_perm_file` with the fast path of :func:`perm_array`."""
    text = read_text(path)
    vals, ok = _parse_ints(np.frombuffer(text.encode(), np.uint8))
    return vals if ok and len(vals) else read_perm_file(path)


@dataclass(frozen=True)
class SwitchingSummary:
    """A routed network at a glance: wires, switch radix, construction,
    stages, switches and the lower bound ceil(log2 N!) on the 2x2 switches
    of any rearrangeable network of N wires."""

    size: int
    radix: int
    network: str
    stages: int
    switches: int
    lower_bound: int

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class Settings:
    size: int
    radix: int
    network: str
    route: object            # benes.BenesRoute or pn.PnRoute

    @property
    def stages(self) -> int:
        return self.route.stages if self.radix == 2 and self.network != "pn" else len(self.route.stages)

    @property
    def switches(self) -> int:
        return self.route.switches

    def description(self) -> dict:
        """The explicit JSON description (docs/reference/file-formats.md); 2x2 networks above
        :data:`DESCRIBE_LIMIT` wires are refused (it takes O(N log^2 N) bytes)."""
        if isinstance(self.route, benes.BenesRoute):
            require(self.size <= DESCRIBE_LIMIT,
                    f"the explicit description of {self.size} wires lists {self.switches} switches and "
                    f"{(self.stages - 1) * self.size} links; up to {DESCRIBE_LIMIT} wires only "
                    f"(use -o: config.hex and stage_SS.hex carry the settings at any size)")
            return benes.network_description(self.route)
        d = self.route.description()
        d["lower_bound"] = benes.lower_bound(self.size)
        return d

    def file_description(self) -> dict:
        """What ``network.json`` holds: :meth:`description`, or above
        :data:`DESCRIBE_LIMIT` wires the summary and the names of the hex files."""
        if isinstance(self.route, benes.BenesRoute) and self.size > DESCRIBE_LIMIT:
            width = max(len(str(max(self.stages - 1, 0))), 2)
            return {**self.summary().as_dict(), "explicit": False, "config": "config.hex",
                    "stage_files": [f"stage_{st:0{width}d}.hex" for st in range(self.stages)]}
        return self.description()

    def summary(self) -> SwitchingSummary:
        return SwitchingSummary(self.size, self.radix, self.network, self.stages, self.switches,
                                benes.lower_bound(self.size))


def settings(perm, radix: int = 2, network: str = "benes") -> Settings:
    """Route and verify.  ``perm[i]`` is the output input i must reach (None: unused)."""
    s = _route(perm, radix, network)
    _check(s, _replay(s))
    return s


def configure(perm, radix: int = 2, network: str = "benes", outdir=None,
              describe: bool = False) -> tuple[Settings, dict | None]:
    """What ``permnet benes`` does: :func:`settings`, the explicit description
    when ``describe`` (refused above :data:`DESCRIBE_LIMIT` wires, before any
    file is written), and with ``outdir`` the hex files and ``network.json``.

    With ``outdir`` the replay check runs on a second thread while the files
    are written into a temporary folder; the folder replaces ``outdir`` only
    after the check has passed, so a failed check leaves nothing behind."""
    s = _route(perm, radix, network)
    desc = s.description() if describe else None
    if outdir is None:
        _check(s, _replay(s))
        return s, desc
    with ThreadPoolExecutor(1) as pool:
        replayed = pool.submit(_replay, s, False)
        with atomic_dir(outdir) as tmp:        # the set of files replaces the folder as a unit
            write_hex(s, tmp)
            write_json(tmp / "network.json", desc if desc is not None else s.file_description())
            _check(s, replayed.result())
    return s, desc


def _route(perm, radix: int, network: str) -> Settings:
    require(len(perm) >= 1, "empty permutation")
    partial = any(v is None for v in perm) if not isinstance(perm, np.ndarray) else bool((perm < 0).any())
    if radix == 2 and network in benes.NETWORKS:
        r = benes.route(perm, network, partial=partial)
        return Settings(r.size, 2, network, r)
    require(network in ("benes", "pn"), f"network {network!r} has only radix 2")
    r = pn.route(perm, radix, partial=partial)
    return Settings(r.size, radix, "pn", r)


def _replay(s: Settings, threads: bool | None = None) -> np.ndarray:
    """The settings applied to [0..N) by a simulator (module docstring):
    position p holds the input routed to output p."""
    r = s.route
    if not isinstance(r, benes.BenesRoute):
        return replay_description(r.description())
    if r.size <= DESCRIBE_LIMIT:
        return replay_2x2(r.state, lambda st: benes.stage_links(r, st))
    return benes.replay(r, threads)


def _check(s: Settings, out: np.ndarray) -> None:
    """Position p must hold the input routed to output p, for every used input."""
    want = s.route.perm
    used = s.route.used
    got = np.empty_like(out)
    got[out] = np.arange(len(out))
    if not np.array_equal(got[used], want[used]):
        bad = int(np.nonzero(used & (got != want))[0][0])
        raise RuntimeError(f"internal error: simulated network sends input {bad} to {got[bad]}, "
                           f"requested {want[bad]}")


def _stage_lines(s: Settings):
    """(``stage_SS.hex`` text, ``config.hex`` line or None), one stage at a time
    (:func:`permnet.gen.hexfile.hex_lines`: a 2x2 switch is a 1-bit word, a
    ``config.hex`` line a floor(N/2)-bit word; n x n switch words are unpadded)."""
    if isinstance(s.route, benes.BenesRoute):
        digits = hex_digits(s.size // 2)
        for st in range(s.stages):
            b = s.route.stage_bits(st)
            yield hex_lines(b, hex_digits(1)), bits_line(b, digits)
        return
    b = max(1, (s.radix - 1).bit_length())
    for stage in s.route.stages:
        words = []
        for _, state in stage:
            word = 0
            for k, v in enumerate(state.tolist()):
                word |= int(v) << (k * b)
            words.append(word)
        yield hex_lines(words), None


def write_hex(s: Settings, outdir) -> list[Path]:
    """Write ``stage_SS.hex`` files (and ``config.hex`` for 2x2 networks),
    one stage in memory at a time."""
    out = Path(outdir)
    paths = []
    width = len(str(max(s.stages - 1, 0)))
    config = []
    from tqdm import tqdm

    # a bar on a terminal only, for networks whose files take noticeable time
    for st, (data, word) in enumerate(tqdm(_stage_lines(s), total=s.stages, unit="stage", desc="stage files",
                                           disable=None if s.size >= 1 << 16 else True, leave=False)):
        paths.append(atomic_write(out / f"stage_{st:0{max(width, 2)}d}.hex", data))
        if word is not None:
            config.append(word)
    if isinstance(s.route, benes.BenesRoute):
        paths.append(atomic_write(out / "config.hex", "".join(config)))
    return paths
