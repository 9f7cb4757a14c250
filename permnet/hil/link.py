"""``Link(url)``: registers of a HIL top level over pyserial's
``serial_for_url`` -- ``/dev/ttyUSB0`` (a board), ``socket://127.0.0.1:PORT``
(the Verilator model), ``loop://`` (framing tests).

The protocol is :mod:`permnet.gen.hil.protocol` (LiteX UARTBone, plus the
CRC-8 framed mode the driver uses when the bridge answers it), the
addresses :mod:`permnet.gen.hil.regmap`.  Every wait is bounded by
``timeout``; in framed mode a lost, late or corrupted frame is retried at
most ``retries`` times (after ``timeout`` + ``resync`` seconds of silence,
longer than the bridge's idle time-out -- ``IDLE_TIMEOUT_S``, 100 ms, on
boards and the model -- so the bridge has dropped any partial frame), and a
retried write is never executed twice (the bridge acknowledges a repeated
sequence number without executing it).  Each frame goes out in one write
with ``TCP_NODELAY`` on sockets; LiteX's ``litex_server`` writes a frame in
pieces, which the bridge's time-out allows for.
Failures raise :class:`HilTimeout` or :class:`HilFramingError`, both
:class:`~permnet.gen.errors.PermnetError`.
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass

import numpy as np

from permnet.gen.errors import PermnetError, require
from permnet.gen.hil import protocol as P
from permnet.gen.hil import regmap as R

#: the most PRBS words per port in one run: the wait for it is bounded by --timeout plus
#: words / 10^4 s (the model idles at 65536 cycles/s), at most 105 s more
MAX_PRBS_WORDS = 1 << 20

__all__ = ["Link", "HilError", "HilTimeout", "HilFramingError", "HilInfo", "Readback", "PrbsResult", "LinkCounters"]

PLAIN_MAX_WORDS = 255


class HilError(PermnetError):
    """A HIL link or device problem."""


class HilTimeout(HilError):
    """No (complete) answer within the time-out."""


class HilFramingError(HilError):
    """An answer that is not a valid frame (CRC, length, sequence number)."""


@dataclass
class HilInfo:
    design: int
    version: int
    framed: bool
    crossbar: dict | None = None
    benes: dict | None = None
    nexthop: dict | None = None

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class Readback:
    """What the datapath delivers: ``planes[y][i]`` = egress driven by
    ingress i in slot y (-1: none), and every (slot, ingress, egress) seen
    (an ingress driving two egresses appears twice here)."""

    planes: np.ndarray
    connections: list

    def as_dict(self) -> dict:
        return {"planes": self.planes.tolist(), "connections": [list(c) for c in self.connections]}


@dataclass
class PrbsResult:
    polynomial: int
    words_sent: int
    words: list
    errors: list

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class LinkCounters:
    """The device clock (``cycles``), the bridge's CRC errors and time-outs,
    and the host driver's own counts (frames, retries, bytes, ...)."""

    cycles: int
    bridge_crc_errors: int
    bridge_timeouts: int
    link: dict[str, int]

    def as_dict(self) -> dict:
        return {"cycles": self.cycles, "bridge_crc_errors": self.bridge_crc_errors,
                "bridge_timeouts": self.bridge_timeouts, **{f"link_{k}": v for k, v in self.link.items()}}


class Link:
    def __init__(self, url: str, *, timeout: float = 1.0, framed: bool | None = None, retries: int = 3,
                 resync: float = 0.15, baudrate: int = 115200):
        import serial

        require(timeout > 0 and retries >= 0, "timeout must be > 0 and retries >= 0")
        self.url, self.timeout, self.retries, self.resync = url, timeout, retries, resync
        try:
            self.port = serial.serial_for_url(url, baudrate=baudrate, timeout=timeout, write_timeout=timeout)
        except (serial.SerialException, ValueError, OSError) as exc:
            raise HilError(f"cannot open HIL link {url}: {exc}") from None
        sock = getattr(self.port, "_socket", None)   # socket://: small frames must not wait for Nagle
        if sock is not None:
            import socket

            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._info = None
        self.seq = random.randrange(256)   # a new session never repeats the last one's write number
        self.stats = {"frames": 0, "retries": 0, "bytes_out": 0, "bytes_in": 0, "timeouts": 0, "crc_errors": 0}
        self.framed = self._detect() if framed is None else framed

    # --- context manager ---------------------------------------------------
    def close(self):
        self.port.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    # --- bytes ---------------------------------------------------------------
    def _send(self, data: bytes):
        import serial

        try:
            self.port.write(data)
            self.port.flush()
        except (serial.SerialException, OSError) as exc:
            raise HilError(f"{self.url}: write failed: {exc}") from None
        self.stats["bytes_out"] += len(data)

    def _recv(self, n: int, what: str) -> bytes:
        import serial

        out = bytearray()
        t_end = time.monotonic() + self.timeout
        while len(out) < n:
            left = t_end - time.monotonic()
            if left <= 0:
                break
            self.port.timeout = left
            try:
                chunk = self.port.read(n - len(out))
            except (serial.SerialException, OSError) as exc:
                raise HilError(f"{self.url}: read failed: {exc}") from None
            out += chunk
        self.stats["bytes_in"] += len(out)
        if len(out) < n:
            self.stats["timeouts"] += 1
            raise HilTimeout(f"{self.url}: time-out after {self.timeout:g} s waiting for {what} "
                             f"({len(out)} of {n} bytes)")
        return bytes(out)

    def _drain(self):
        """Wait ``resync`` seconds, then drop whatever arrived (a late answer)."""
        time.sleep(self.resync)
        try:
            self.port.reset_input_buffer()
        except Exception:   # loop:// and sockets may not support it everywhere
            pass
        self.port.timeout = 0
        while self.port.read(4096):
            pass
        self.port.timeout = self.timeout

    def _detect(self) -> bool:
        """Framed if the bridge answers a framed read of the ID register; a
        plain-only bridge sees that request as a zero-length write."""
        saved, self.timeout, self.retries = (self.timeout, self.retries), min(self.timeout, 0.3), 0
        try:
            got = self._framed(P.CMD_READ, R.addr("sys", "id"), n=1)
            framed = got == [R.ID]
        except HilError:
            self._drain()
            framed = False
        self.timeout, self.retries = saved
        if not framed:
            self.framed = False
            ident = self.read(R.addr("sys", "id"))[0]
            if ident != R.ID:
                raise HilError(f"{self.url}: not a permnet HIL bridge (id {ident:#010x}, expected {R.ID:#010x})")
        return framed

    # --- frames --------------------------------------------------------------
    def _framed(self, cmd: int, addr: int, words=(), n: int = 0) -> list[int]:
        is_write = cmd in (P.CMD_WRITE, P.CMD_WRITE_FIXED)
        length = len(words) if is_write else n
        self.seq = (self.seq + 1) & 0xFF
        body = bytes([cmd | P.FRAMED, self.seq, length]) + addr.to_bytes(4, "big")
        body += b"".join(int(w).to_bytes(4, "big") for w in words)
        frame = body + bytes([P.crc8(body)])
        expect = 4 + (0 if is_write else 4 * length)
        last = None
        for attempt in range(self.retries + 1):
            if attempt:
                self.stats["retries"] += 1
                self._drain()
            self.stats["frames"] += 1
            self._send(frame)
            try:
                head = self._recv(3, f"the answer to frame {self.seq}")
                status, seq, rlen = head
                if status == P.STATUS_CRC:
                    self.stats["crc_errors"] += 1
                    self._recv(1 + 4 * rlen, "the CRC of an error answer")
                    raise HilFramingError(f"{self.url}: the bridge received frame {self.seq} with a bad CRC")
                size = 3 + 4 * rlen + 1
                rest = self._recv(size - 3, f"the answer to frame {self.seq}")
                data = head + rest
                if P.crc8(data[:-1]) != data[-1]:
                    self.stats["crc_errors"] += 1
                    raise HilFramingError(f"{self.url}: answer to frame {self.seq} has a bad CRC")
                if seq != self.seq:
                    raise HilFramingError(f"{self.url}: answer for frame {seq}, expected {self.seq}")
                if status == P.STATUS_LENGTH:
                    raise PermnetError(f"{self.url}: frame of {length} words refused (max {P.FRAMED_MAX_WORDS})")
                if status not in (P.STATUS_OK, P.STATUS_DUPLICATE) or size != expect:
                    raise HilFramingError(f"{self.url}: unexpected answer status {status:#04x}, {rlen} words")
                return [int.from_bytes(data[3 + 4 * i:7 + 4 * i], "big") for i in range(rlen)]
            except (HilTimeout, HilFramingError) as exc:
                last = exc
        raise type(last)(f"{last} (gave up after {self.retries + 1} attempts)")

    def _plain_read(self, cmd: int, addr: int, n: int) -> list[int]:
        frame = bytes([cmd, n]) + addr.to_bytes(4, "big")
        last = None
        for attempt in range(self.retries + 1):   # reads have no side effects: safe to repeat
            if attempt:
                self.stats["retries"] += 1
                self._drain()
            self.stats["frames"] += 1
            self._send(frame)
            try:
                data = self._recv(4 * n, f"{n} words from {addr:#x}")
                return [int.from_bytes(data[4 * i:4 * i + 4], "big") for i in range(n)]
            except HilTimeout as exc:
                last = exc
        raise HilTimeout(f"{last} (gave up after {self.retries + 1} attempts)")

    # --- registers -----------------------------------------------------------
    def read(self, addr: int, n: int = 1, *, fixed: bool = False) -> list[int]:
        """``n`` words from word address ``addr`` (the same address ``n``
        times when ``fixed``)."""
        out: list[int] = []
        step = P.FRAMED_MAX_WORDS if self.framed else PLAIN_MAX_WORDS
        cmd = P.CMD_READ_FIXED if fixed else P.CMD_READ
        while len(out) < n:
            k = min(step, n - len(out))
            a = addr if fixed else addr + len(out)
            out += self._framed(cmd, a, n=k) if self.framed else self._plain_read(cmd, a, k)
        return out

    def write(self, addr: int, words, *, fixed: bool = False) -> None:
        """Write ``words`` from ``addr`` upwards (all to ``addr`` when ``fixed``)."""
        words = [int(w) & 0xFFFFFFFF for w in (words if hasattr(words, "__len__") else [words])]
        step = P.FRAMED_MAX_WORDS if self.framed else PLAIN_MAX_WORDS
        cmd = P.CMD_WRITE_FIXED if fixed else P.CMD_WRITE
        for k in range(0, len(words), step):
            part = words[k:k + step]
            a = addr if fixed else addr + k
            if self.framed:
                self._framed(cmd, a, part)
            else:
                self.stats["frames"] += 1
                self._send(bytes([cmd, len(part)]) + a.to_bytes(4, "big")
                           + b"".join(w.to_bytes(4, "big") for w in part))

    def reg(self, block: str, name: str, index: int = 0) -> int:
        return self.read(R.addr(block, name, index))[0]

    def set_reg(self, block: str, name: str, value: int, index: int = 0) -> None:
        self.write(R.addr(block, name, index), [value])

    # --- device --------------------------------------------------------------
    def info(self) -> HilInfo:
        """What the device is (read once, then cached: it cannot change)."""
        if self._info is None:
            self._info = self._read_info()
        return self._info

    def _read_info(self) -> HilInfo:
        ident, version, design = self.read(R.addr("sys", "id"), 3)
        if ident != R.ID:
            raise HilError(f"{self.url}: not a permnet HIL bridge (id {ident:#010x})")
        b = R.DESIGN_BITS
        info = HilInfo(design, version, bool(design >> b["framed"] & 1))
        if design >> b["crossbar"] & 1:
            v = self.reg("xbar", "info")
            info.crossbar = {"ports": v & 0xFFFF, "slots": v >> 16 & 0xFF, "width": v >> 24}
        if design >> b["benes"] & 1:
            v, net = self.reg("benes", "info"), self.reg("benes", "network")
            info.benes = {"size": v & 0xFFFF, "stages": v >> 16 & 0xFF, "width": v >> 24,
                          "network": "waksman" if net & 1 else "benes", "latency": net >> 8 & 0xFF}
        if design >> b["nexthop"] & 1:
            v = self.reg("nexthop", "info")
            info.nexthop = {"M": v & 0xFFFF, "S": v >> 16 & 0xFF, "h": v >> 24 & 0x7F, "table": bool(v >> 31)}
        return info

    def counters(self) -> LinkCounters:
        cycles, errs = self.read(R.addr("sys", "cycles"), 2)
        return LinkCounters(cycles, errs & 0xFFFF, errs >> 16, dict(self.stats))

    def _wait_cycles(self, n: int) -> None:
        """Return once the device clock has advanced ``n`` cycles (bounded)."""
        start = self.reg("sys", "cycles")
        t_end = time.monotonic() + self.timeout * 4
        while (self.reg("sys", "cycles") - start) & 0xFFFFFFFF < n:
            if time.monotonic() > t_end:
                raise HilTimeout(f"{self.url}: the device clock did not advance {n} cycles")
            time.sleep(0.001)

    # --- crossbar --------------------------------------------------------------
    def load_crossbar(self, planes, durations=None) -> int:
        """Push the shadow configuration: ``planes[y][i]`` = egress of ingress
        i in slot y (-1 none), one plane per slot; returns the words accepted.
        A configuration some earlier session loaded but never committed is
        committed first (the shadow accepts nothing while one waits)."""
        info = self.info().crossbar
        require(info is not None, f"{self.url}: the device has no crossbar")
        planes = np.atleast_2d(np.asarray(planes, dtype=np.int64))
        N, K = info["ports"], info["slots"]
        require(planes.shape == (K, N), f"the crossbar takes {K} plane(s) of {N} ports, got {planes.shape}")
        entries = []
        for y in range(K):
            sel = np.full(N, -1, dtype=np.int64)
            for i, e in enumerate(planes[y]):
                if e >= 0:
                    require(0 <= e < N and sel[e] < 0, f"plane {y}: egress {e} used twice or out of range")
                    sel[e] = i
            entries += [int(s) | 1 << 31 if s >= 0 else 0 for s in sel]
        if self.reg("xbar", "ctrl") & 1:     # a configuration left loaded, never committed: flush it
            self.commit_crossbar()
        before = self.reg("xbar", "accepted")
        self.write(R.addr("xbar", "cfg"), entries, fixed=True)
        if K > 1:
            durs = list(durations) if durations is not None else [1] * K
            require(len(durs) == K and all(0 < d < 1 << 16 for d in durs), f"{K} durations of 1..65535 cycles")
            self.write(R.addr("xbar", "dur"), durs, fixed=True)
        accepted = self.reg("xbar", "accepted") - before
        want = K * N + (K if K > 1 else 0)
        if accepted != want:
            raise HilError(f"{self.url}: the crossbar accepted {accepted} of {want} configuration words "
                           "(a configuration already waits for commit?)")
        return accepted

    def _commit(self, block: str, refused: str) -> int:
        """Set bit 0 of ``block``'s ctrl register; the commit count (bits 16 up)
        must grow, else the device refused (``refused`` says why)."""
        before = self.reg(block, "ctrl") >> 16
        self.set_reg(block, "ctrl", 1)
        after = self.reg(block, "ctrl") >> 16
        if after == before:
            raise HilError(f"{self.url}: {refused}")
        return after

    def commit_crossbar(self) -> int:
        """Make the loaded shadow active; returns the commit count."""
        return self._commit("xbar", "commit refused: no complete configuration loaded")

    def readback_crossbar(self) -> Readback:
        """The ACTIVE configuration, observed on the datapath with tags."""
        info = self.info().crossbar
        require(info is not None, f"{self.url}: the device has no crossbar")
        N, K = info["ports"], info["slots"]
        planes = np.full((K, N), -1, dtype=np.int64)
        conns = []
        for y in range(K):
            self.set_reg("xbar", "rb_ctrl", 1 | y << 8)
            t_end = time.monotonic() + self.timeout * 4
            while not self.reg("xbar", "rb_ctrl") >> 1 & 1:     # slot y has come round with the tags
                if time.monotonic() > t_end:
                    raise HilTimeout(f"{self.url}: slot {y} never became active for the read-back")
                time.sleep(0.001)
            tags = self.read(R.addr("xbar", "rb"), N)
            for e, t in enumerate(tags):
                if t:
                    i = t - 1
                    conns.append((y, i, e))
                    if 0 <= i < N:
                        planes[y, i] = e
        self.set_reg("xbar", "rb_ctrl", 0)
        return Readback(planes, conns)

    # --- Beneš -----------------------------------------------------------------
    def load_benes(self, perm) -> list[int]:
        """Route ``perm`` (input i -> output perm[i]) and push the stage words."""
        from permnet.gen.routing import benes as router

        info = self.info().benes
        require(info is not None, f"{self.url}: the device has no Beneš network")
        r = router.route(np.asarray(perm), info["network"])
        require(r.size == info["size"], f"permutation of {r.size} entries for a {info['size']}-port network")
        words = router.stage_words(r)
        if self.reg("benes", "ctrl") & 1:    # stage words left loaded, never committed
            self.commit_benes()
        chunks = (max(1, info["size"] // 2) + 31) // 32
        for w in words:
            self.write(R.addr("benes", "chunk"), [(w >> (32 * c)) & 0xFFFFFFFF for c in range(chunks)])
            self.set_reg("benes", "push", 1)
        return words

    def commit_benes(self) -> int:
        """Make the pushed stage words active; returns the commit count."""
        return self._commit("benes", "Beneš commit refused: not all stage words loaded")

    def readback_benes(self) -> np.ndarray:
        """The permutation the network realises: ``perm[i]`` = output of input i."""
        info = self.info().benes
        N = info["size"]
        self.set_reg("benes", "rb_ctrl", 1)
        self._wait_cycles(info["latency"] + 4)
        tags = self.read(R.addr("benes", "rb"), N)
        self.set_reg("benes", "rb_ctrl", 0)
        perm = np.full(N, -1, dtype=np.int64)
        for p, t in enumerate(tags):
            if 1 <= t <= N:
                perm[t - 1] = p
        return perm

    # --- next hop --------------------------------------------------------------
    def probe_nexthop(self, queries) -> list[tuple[int, int]]:
        """(link, next node) for each (node, dest, hop)."""
        out, hop_set = [], None
        q_addr, r_addr = R.addr("nexthop", "query"), R.addr("nexthop", "result")
        for node, dest, hop in queries:
            if hop != hop_set:
                self.set_reg("nexthop", "hop", hop)
                hop_set = hop
            self.write(q_addr, [(node & 0xFFFF) | (dest & 0xFFFF) << 16])
            v = self.read(r_addr)[0]
            if not v >> 31:
                raise HilError(f"{self.url}: next-hop result not ready for ({node}, {dest}, {hop})")
            out.append((v >> 16 & 0x7F, v & 0xFFFF))
        return out

    # --- PRBS --------------------------------------------------------------------
    def run_prbs(self, block: str, words: int, polynomial: int = 7, inject=None) -> PrbsResult:
        """Send ``words`` PRBS words on every ingress of ``block`` ("xbar" or
        "benes") and read the per-egress word and error counters."""
        require(polynomial in (7, 31), "PRBS polynomial must be 7 or 31")
        require(0 < words <= MAX_PRBS_WORDS, f"PRBS words must be 1..{MAX_PRBS_WORDS}")
        prbs = f"{block}_prbs"
        ports = self.reg(prbs, "info") & 0xFFFF
        if self.reg(prbs, "run"):
            # a run an aborted command left going: stop it and let its last words leave the
            # datapath, or they are counted after the clear and this run's counts disagree
            self.set_reg(prbs, "run", 0)
            self._wait_cycles(8)
        self.set_reg(prbs, "ctrl", (polynomial == 31) | 2)        # select, clear
        self.set_reg(prbs, "run", words)
        if inject is not None:
            self.set_reg(prbs, "inject", inject)
        t_end = time.monotonic() + self.timeout + words / 1e4   # the model idles at 65536 cycles/s
        while self.reg(prbs, "run"):
            if time.monotonic() > t_end:
                raise HilTimeout(f"{self.url}: PRBS run of {words} words did not finish")
            time.sleep(0.001)
        self._wait_cycles(8)
        counts = self.read(R.addr(prbs, "words"), ports)
        errors = self.read(R.addr(prbs, "errors"), ports)
        return PrbsResult(polynomial, words, counts, errors)
