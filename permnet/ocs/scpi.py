"""SCPI over TCP (Polatis command set): the emulator front end and the driver.

Wire protocol (one command per line, CR LF; set commands are silent, queries
answer one line; ports are 1-based with ingress ``1..N`` and egress
``N+1..2N``)::

    *IDN?                            -> vendor,model,serial,version
    :oxc:swit:size?                  -> NxN
    :oxc:swit:conn:add (@i,..),(@e,..)   connect i_k -> e_k
    :oxc:swit:conn:sub (@p,..)[,(@q,..)] disconnect the listed ports
    :oxc:swit:conn:only (@i,..),(@e,..)  replace the whole state
    :oxc:swit:disc:all                   disconnect everything
    :oxc:swit:conn:stat?             -> (@i1,i2,..),(@e1,e2,..)  (established only)
    :oxc:swit:conn:port? P           -> the port P is connected to, 0 if none
    :syst:err?                       -> code,"message" (0,"No error" when empty)
    *OPC?                            -> 1

Headers follow SCPI's rule (SCPI-99 vol. 1 section 6.2): each mnemonic is
matched by its short form or its long form in any case, optional nodes may
be left out, so ``:OXC:SWITch:CONNect:STATe?`` is ``:oxc:swit:conn:stat?``
(:data:`COMMANDS` lists the tree).  Channel lists take ranges: ``(@1:4)`` is
``(@1,2,3,4)`` and ``(@4:1)`` counts down, in commands and in replies.

A cross-connect still settling is not reported by ``stat?``/``port?``.
"""

from __future__ import annotations

import asyncio
import re
import socket
import time

import numpy as np

from permnet.ocs.driver import DeviceError, Driver, register
from permnet.ocs.frontend import ServerHandle, plane_from_labels
from permnet.ocs.switchcore import SwitchCore, SwitchRefused

__all__ = ["ScpiDriver", "serve_scpi", "format_lists", "parse_lists"]

_LIST = r"\(@([0-9,:\s]*)\)"
_LISTS_RE = re.compile(rf"^{_LIST}(?:\s*,\s*{_LIST})?$")
_MAX_LINE = 1 << 20
_MAX_RANGE = 1 << 17          # ports in one channel-list range (a device has at most 2 x 4096 here)

# The command tree as SCPI writes it (IEEE 488.2 / SCPI-99 section 6): in
# each mnemonic the upper-case letters are the short form and the whole word
# the long form; ``[...]`` is an optional node.  Each maps to the key the
# emulator dispatches on.
COMMANDS = {
    "*IDN?": "*idn?",
    "*OPC?": "*opc?",
    "*CLS": "*cls",
    ":SYSTem:ERRor[:NEXT]?": ":syst:err?",
    ":OXC:SWITch:SIZE?": ":oxc:swit:size?",
    ":OXC:SWITch:CONNect:STATe?": ":oxc:swit:conn:stat?",
    ":OXC:SWITch:CONNect:STATus?": ":oxc:swit:conn:stat?",
    ":OXC:SWITch:CONNect:PORT?": ":oxc:swit:conn:port?",
    ":OXC:SWITch:CONNect:ADD": ":oxc:swit:conn:add",
    ":OXC:SWITch:CONNect:SUBtract": ":oxc:swit:conn:sub",
    ":OXC:SWITch:CONNect:ONLY": ":oxc:swit:conn:only",
    ":OXC:SWITch:DISConnect:ALL": ":oxc:swit:disc:all",
}


def _pattern(header: str) -> tuple[bool, list[tuple[str, str, bool]]]:
    """(query, [(short, long, optional)]) of a :data:`COMMANDS` header."""
    query = header.endswith("?")
    nodes = []
    for part in re.findall(r"\[:?([A-Za-z*]+)\]|:?([A-Za-z*]+)", header.rstrip("?")):
        word, optional = (part[0], True) if part[0] else (part[1], False)
        short = "".join(c for c in word if not c.islower())
        nodes.append((short.upper(), word.upper(), optional))
    return query, nodes


_PATTERNS = [(_pattern(h), key) for h, key in COMMANDS.items()]


def _matches(tokens: list[str], nodes: list[tuple[str, str, bool]]) -> bool:
    if not nodes:
        return not tokens
    short, long, optional = nodes[0]
    if tokens and tokens[0].upper() in (short, long) and _matches(tokens[1:], nodes[1:]):
        return True
    return optional and _matches(tokens, nodes[1:])


def normalize(head: str) -> str | None:
    """The dispatch key of a received SCPI header, or ``None`` (undefined
    header).  Each mnemonic matches its short or its long form in any case
    (``SWIT``, ``switch``, ``SWITch``; not ``SWITC``), optional nodes may be
    left out, and the leading colon of a root header is optional."""
    query = head.endswith("?")
    tokens = head.rstrip("?").lstrip(":").split(":")
    if any(not t for t in tokens):
        return None
    for (q, nodes), key in _PATTERNS:
        if q == query and _matches(tokens, nodes):
            return key
    return None


def format_lists(ingress, egress, n: int) -> str:
    """``(@i..),(@e..)`` for 0-based ingress/egress on an N-port device."""
    return f"(@{','.join(str(i + 1) for i in ingress)}),(@{','.join(str(n + e + 1) for e in egress)})"


def _channels(body: str) -> list[int]:
    """The ports of one channel list body: ``1,2,5`` and ranges ``1:4``
    (both ends included; ``4:1`` counts down), mixed freely."""
    out: list[int] = []
    if not body.strip():
        return out
    for tok in body.split(","):
        a, sep, b = tok.strip().partition(":")
        if not a.isdigit() or (sep and not b.strip().isdigit()):
            raise ValueError("bad port number")
        lo, hi = int(a), int(b) if sep else int(a)
        if abs(hi - lo) >= _MAX_RANGE:
            raise ValueError(f"range {lo}:{hi} too long")
        out.extend(range(lo, hi + 1) if hi >= lo else range(lo, hi - 1, -1))
        if len(out) > _MAX_RANGE:
            raise ValueError("channel list too long")
    return out


def parse_lists(text: str) -> tuple[list[int], list[int] | None]:
    """The one or two channel lists of a command argument or a reply (raw
    port numbers, ranges ``(@1:4)`` expanded in order)."""
    m = _LISTS_RE.match(text.strip())
    if not m:
        raise ValueError("expected (@p,...) lists")
    first, second = m.groups()
    return _channels(first), (None if second is None else _channels(second))


# ------------------------------------------------------------------ emulator

class _Session:
    def __init__(self, core: SwitchCore, reader, writer, delay_s: float, reply_filter=None):
        self.core, self.reader, self.writer, self.delay_s = core, reader, writer, delay_s
        self.reply_filter = reply_filter
        self.errors: list[str] = []
        self.n = core.ports

    def error(self, code: int, msg: str) -> None:
        if len(self.errors) < 32:
            self.errors.append(f'{code},"{msg}"')

    def pairs(self, arg: str) -> list[tuple[int, int]]:
        ins, outs = parse_lists(arg)
        if outs is None or len(ins) != len(outs):
            raise ValueError("ingress and egress lists differ in length")
        n = self.n
        if any(not 1 <= i <= n for i in ins) or any(not n < e <= 2 * n for e in outs):
            raise SwitchRefused("port out of range")
        return [(i - 1, e - n - 1) for i, e in zip(ins, outs)]

    def established(self) -> list[tuple[int, int]]:
        row = self.core.snapshot()
        return [(i, int(e)) for i, e in enumerate(row) if e >= 0 and self.core.status(i) == "established"]

    async def handle(self) -> bool:
        """One command; False when the session must end."""
        try:
            raw = await self.reader.readuntil(b"\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            return False
        line = raw.decode("ascii", "replace").strip()
        if not line:
            return True
        await self.core.faults.thaw()          # a frozen switch serves nobody
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        head, _, arg = line.partition(" ")
        query = head.endswith("?")
        head = normalize(head)
        if head is None:
            self.error(-113, "Undefined header")
            return True
        if not query and head.startswith(":oxc:swit:"):
            fault = self.core.faults.on_set()
            if fault == "drop":
                self.writer.transport.abort()
                return False
            if fault == "deny":
                self.error(-200, "Execution error; command denied")
                return True
            if fault == "freeze":
                await self.core.faults.thaw()
                if getattr(self.reader, "_eof", False):  # the client gave up: the command is discarded
                    return False
        try:
            reply = self.execute(head, arg)
        except SwitchRefused as exc:
            self.error(-221, f"Settings conflict; {exc}")
            reply = None
        except ValueError as exc:
            self.error(-224 if query is False else -109, f"Illegal parameter value; {exc}")
            reply = None
        if reply is not None:
            if self.reply_filter is not None:
                reply = self.reply_filter(head, reply)
            self.writer.write(reply.encode("ascii") + b"\r\n")
            await self.writer.drain()
        return True

    def execute(self, head: str, arg: str) -> str | None:
        n, core = self.n, self.core
        if head == "*idn?":
            return f"PERMNET,EMULATED-OCS-{n}x{n},EMU0001,1.0"
        if head == "*opc?":
            return "1"
        if head == "*cls":
            self.errors.clear()
            return None
        if head == ":syst:err?":
            return self.errors.pop(0) if self.errors else '0,"No error"'
        if head == ":oxc:swit:size?":
            return f"{n}x{n}"
        if head == ":oxc:swit:conn:stat?":
            conns = self.established()
            return format_lists([i for i, _ in conns], [e for _, e in conns], n)
        if head == ":oxc:swit:conn:port?":
            p = int(arg.strip())  # ValueError -> error queue
            if not 1 <= p <= 2 * n:
                raise ValueError("port out of range")
            conns = self.established()
            if p <= n:
                hit = [e + n + 1 for i, e in conns if i == p - 1]
            else:
                hit = [i + 1 for i, e in conns if e == p - n - 1]
            return str(hit[0] if hit else 0)
        if head == ":oxc:swit:conn:add":
            core.connect(self.pairs(arg))
            return None
        if head == ":oxc:swit:conn:only":
            core.only(self.pairs(arg))
            return None
        if head == ":oxc:swit:disc:all":
            core.clear()
            return None
        if head == ":oxc:swit:conn:sub":
            ins, outs = parse_lists(arg)
            ports = ins + (outs or [])
            if any(not 1 <= p <= 2 * n for p in ports):
                raise SwitchRefused("port out of range")
            row = core.snapshot()
            drop = {p - 1 for p in ports if p <= n}
            drop |= {i for i, e in enumerate(row) if e >= 0 and e + n + 1 in ports}
            core.disconnect(sorted(drop))
            return None
        self.error(-113, "Undefined header")
        return None


async def serve_scpi(core: SwitchCore, host: str = "127.0.0.1", port: int = 0, *, credentials=None,
                     delay_ms: float = 0.0, reply_filter=None) -> ServerHandle:
    """A started asyncio server speaking SCPI over ``core`` (SCPI has no
    login: ``credentials`` is accepted for a uniform signature and ignored)."""
    handle: ServerHandle | None = None

    async def client(reader, writer):
        handle.sessions.add(writer)
        try:
            if core.faults.refuse:
                return
            s = _Session(core, reader, writer, delay_ms / 1000, reply_filter)
            for _ in range(10_000_000):  # bounded: a session ends long before this
                if not await s.handle():
                    break
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            handle.sessions.discard(writer)
            writer.close()

    server = await asyncio.start_server(client, host, port, limit=_MAX_LINE)
    handle = ServerHandle(server, server.sockets[0].getsockname()[1], host, "scpi")
    return handle


# -------------------------------------------------------------------- driver

@register
class ScpiDriver(Driver):
    """Polatis-style SCPI over a plain TCP socket.

    Set commands are batched (``batch`` pairs per line) and each batch is
    followed by ``:syst:err?``; any non-zero error is a :class:`DeviceError`.
    Replies are parsed strictly: anything but the documented form, a reply
    cut short or one naming ports outside ``1..2N`` is an error.
    """

    protocol = "scpi"
    default_port = 5025

    def __init__(self, address: str, *, batch: int = 64, **kw):
        super().__init__(address, **kw)
        self.batch = max(1, int(batch))
        self.sock: socket.socket | None = None
        self._buf = b""
        self._n: int | None = None
        self.commands = 0
        self._unsettled: dict[int, int] = {}     # ingress -> egress connected here, not yet reported

    # --- session
    def open(self) -> None:
        try:
            self.sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        except socket.timeout:
            raise self.fail(f"no answer within {self.timeout:g} s") from None
        except OSError as exc:
            raise self.fail(f"cannot connect: {exc.strerror or exc}") from None
        self.sock.settimeout(self.timeout)
        self._buf = b""
        idn = self.query("*IDN?")
        if not idn or "," not in idn:
            self.close()
            raise self.fail(f"unexpected reply to *IDN?: {idn[:60]!r}")

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.close()
            finally:
                self.sock = None

    # --- wire
    def send(self, line: str) -> None:
        if self.sock is None:
            raise self.fail("session is not open")
        self.commands += 1
        try:
            self.sock.sendall(line.encode("ascii") + b"\r\n")
        except socket.timeout:
            self.close()
            raise self.fail(f"no answer within {self.timeout:g} s") from None
        except OSError as exc:
            self.close()
            raise self.fail(f"connection lost: {exc.strerror or exc}") from None

    def _readline(self, what: str) -> str:
        deadline = time.monotonic() + self.timeout
        while b"\n" not in self._buf:
            if len(self._buf) > _MAX_LINE:
                self.close()
                raise self.fail(f"reply to {what} too long")
            left = deadline - time.monotonic()
            try:
                if left <= 0:
                    raise socket.timeout
                self.sock.settimeout(left)
                chunk = self.sock.recv(65536)
            except socket.timeout:
                self.close()
                raise self.fail(f"no answer to {what} within {self.timeout:g} s") from None
            except OSError as exc:
                self.close()
                raise self.fail(f"connection lost during {what}: {exc.strerror or exc}") from None
            if not chunk:
                self.close()
                raise self.fail(f"connection closed by the device during {what}")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        try:
            return line.decode("ascii").rstrip("\r")
        except UnicodeDecodeError:
            self.close()
            raise self.fail(f"garbled reply to {what}") from None

    def query(self, cmd: str) -> str:
        self.send(cmd)
        return self._readline(cmd.split(" ")[0])

    def check_errors(self, what: str) -> None:
        reply = self.query(":syst:err?")
        m = re.fullmatch(r'([+-]?\d+),"(.*)"', reply)
        if not m:
            self.close()
            raise self.fail(f"unexpected reply to :syst:err?: {reply[:60]!r}")
        if int(m.group(1)) != 0:
            raise self.fail(f"{what} denied: {m.group(1)} {m.group(2)[:80]}")

    def setcmd(self, cmd: str) -> None:
        self.send(cmd)
        self.check_errors(cmd.split(" ")[0])

    # --- state
    def size(self) -> int:
        if self._n is None:
            reply = self.query(":oxc:swit:size?")
            m = re.fullmatch(r"(\d+)(?:x(\d+))?", reply.strip())
            if not m or (m.group(2) and m.group(1) != m.group(2)) or not 1 <= int(m.group(1)) <= 100000:
                self.close()
                raise self.fail(f"unexpected reply to :oxc:swit:size?: {reply[:60]!r}")
            self._n = int(m.group(1))
        return self._n

    def read(self) -> np.ndarray:
        n = self.size()
        reply = self.query(":oxc:swit:conn:stat?")
        try:
            ins, outs = parse_lists(reply)
            if outs is None or len(ins) != len(outs):
                raise ValueError("ingress and egress counts differ")
            row = plane_from_labels(n, zip(ins, outs))
        except ValueError as exc:
            self.close()
            raise self.fail(f"malformed reply to :oxc:swit:conn:stat? ({exc}): {reply[:60]!r}") from None
        return row

    def settling(self) -> list[int]:
        """0-based ingresses this session connected that ``conn:stat?`` does
        not report yet: SCPI lists established cross-connects only, so a
        cross-connect still settling is absent from the read-back."""
        if self._unsettled:
            row = self.read()
            self._unsettled = {i: e for i, e in self._unsettled.items() if row[i] != e}
        return sorted(self._unsettled)

    def wait_settled(self, seconds: float, poll: float = 0.05) -> None:
        """As :meth:`Driver.wait_settled`; on expiry the cross-connects of this
        session that never showed up are taken down before the error is
        raised: a read-back (the roll-back's) cannot see them, so left alone
        they would appear later, after the transaction reported its verdict."""
        try:
            super().wait_settled(seconds, poll)
        except DeviceError:
            try:
                if self.sock is not None and self._unsettled:
                    self.disconnect(sorted(self._unsettled))
            except DeviceError:
                pass
            raise

    def connect(self, pairs) -> None:
        n = self.size()
        pairs = [(int(i), int(e)) for i, e in pairs]
        for k in range(0, len(pairs), self.batch):
            chunk = pairs[k:k + self.batch]
            self.setcmd(":oxc:swit:conn:add " + format_lists([i for i, _ in chunk], [e for _, e in chunk], n))
            self._unsettled.update(chunk)

    def disconnect(self, ingresses) -> None:
        ingresses = [int(i) for i in ingresses]
        for k in range(0, len(ingresses), self.batch):
            chunk = ingresses[k:k + self.batch]
            self.setcmd(":oxc:swit:conn:sub (@" + ",".join(str(i + 1) for i in chunk) + ")")
            for i in chunk:
                self._unsettled.pop(i, None)

    def replace(self, row) -> None:
        """Whole-switch replace with one ``conn:only`` (the naive way, for comparison)."""
        n = self.size()
        conns = [(i, int(e)) for i, e in enumerate(row) if e >= 0]
        self.setcmd(":oxc:swit:conn:only " + format_lists([i for i, _ in conns], [e for _, e in conns], n))
