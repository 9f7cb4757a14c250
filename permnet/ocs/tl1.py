"""TL1 (Transaction Language 1, Telcordia GR-831) for optical circuit switches
in the Polatis/Calient style: an asyncio server front end over
:class:`~permnet.ocs.switchcore.SwitchCore` and the :class:`Tl1Driver`.

Input messages are ``VERB-MOD:TID:AID:CTAG[:GB:PARAMS];`` (fields separated by
``:``, terminated by ``;``; a field in double quotes may hold ``:`` and
``;``).  The commands served:

=================================  ===========================================
``ACT-USER::uid:ctag::pid;``       log in (required before anything else)
``ENT-PATCH::in,out:ctag;``        add cross-connects; ``in``/``out`` are
                                   lists ``1&2&5`` or ranges ``1&&4`` of
                                   equal length, paired in order
``DLT-PATCH::ports:ctag;``         remove the patches of these ports (ingress
                                   or egress numbers, lists/ranges, ``ALL``)
``RTRV-PATCH:::ctag;``             one line ``"in,out"`` per patch
``RTRV-CRS:::ctag;``               as ``RTRV-PATCH``, each line with
                                   ``:STATUS=ESTABLISHED`` or ``TUNING``
                                   (settling, emulator extension)
``RTRV-NETYPE:::ctag;``            vendor, model, ``NxN`` size, version
``CANC-USER::uid:ctag;``           log out (the session is closed)
=================================  ===========================================

Output response messages (GR-831 shape)::

    <CR><LF><LF>
    ___SID_YY-MM-DD_HH:MM:SS<CR><LF>
    M__CTAG_COMPLD<CR><LF>
    ___"1,17"<CR><LF>
    ;

and on a refusal ``M  CTAG DENY`` followed by a four-letter error code line
(``IIAC`` invalid access identifier, ``IISP`` invalid syntax, ``ICNV``
command not valid, ``IICT`` invalid correlation tag, ``PLNA`` login not
active, ``PIUI`` unknown user or wrong password, ``SROF`` requested operation
failed, ``SAIN`` already in the requested state) and a ``/* comment */``.

Ports use the Polatis numbering: ingress ``1..N``, egress ``N+1..2N``.
"""

from __future__ import annotations

import asyncio
import codecs
import re
import socket
import time

import numpy as np

from permnet.gen.errors import require
from permnet.ocs.driver import Credentials, DeviceError, Driver, register
from permnet.ocs.frontend import (LoginGuard, ServerHandle, emulator_credentials, peer_of, plane_from_labels, to_device,
                                  to_plane)
from permnet.ocs.switchcore import SwitchCore, SwitchRefused

__all__ = ["serve_tl1", "Tl1Driver", "split_fields", "parse_port_list", "DEFAULT_PORT"]

DEFAULT_PORT = 3082
MAX_COMMAND = 1 << 20          # bytes in one input message
CTAG_RE = re.compile(r"^[A-Za-z0-9]{1,6}$")


# ----------------------------------------------------------------- syntax
class Tl1Syntax(ValueError):
    """An input message that does not parse (answered with ``IISP``)."""


def split_fields(message: str) -> list[str]:
    """Split ``A:B:"C:D";`` into ``['A', 'B', 'C:D']`` (quotes removed,
    ``\\"`` and ``\\\\`` unescaped inside quotes); the final ``;`` is optional."""
    fields, cur, i, quoted = [], [], 0, False
    text = message.strip()
    if text.endswith(";"):
        text = text[:-1]
    while i < len(text):
        c = text[i]
        if quoted:
            if c == "\\" and i + 1 < len(text):
                cur.append(text[i + 1])
                i += 1
            elif c == '"':
                quoted = False
            else:
                cur.append(c)
        elif c == '"':
            quoted = True
        elif c == ":":
            fields.append("".join(cur).strip())
            cur = []
        elif c == ";":
            raise Tl1Syntax("';' inside a message")
        else:
            cur.append(c)
        i += 1
    if quoted:
        raise Tl1Syntax("unterminated quoted string")
    fields.append("".join(cur).strip())
    return fields


def quote(value: str) -> str:
    """A TL1 quoted string (``"`` and ``\\`` escaped)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_port_list(text: str, limit: int) -> list[int]:
    """``1&3&&5`` -> ``[1, 3, 4, 5]`` (``&`` separates, ``a&&b`` is a range)."""
    if not text or not re.fullmatch(r"\d+((&&|&)\d+)*", text):
        raise Tl1Syntax(f"port list {text!r}")
    parts = re.split(r"(&&|&)", text)
    out = [int(parts[0])]
    for sep, val in zip(parts[1::2], parts[2::2]):
        v = int(val)
        if sep == "&&":
            a = out[-1]
            if v < a or v - a > limit:
                raise Tl1Syntax(f"port range {a}&&{v}")
            out.extend(range(a + 1, v + 1))
        else:
            out.append(v)
        if len(out) > limit:
            raise Tl1Syntax("port list too long")
    return out


def _end_of_message(buf: str) -> int:
    """Index just past the first ``;`` outside quotes, or -1."""
    quoted, esc = False, False
    for k, c in enumerate(buf):
        if quoted:
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c == ";":
            return k + 1
    return -1


# ----------------------------------------------------------------- server
class _Deny(Exception):
    def __init__(self, code: str, text: str):
        super().__init__(text)
        self.code, self.text = code, text


class _Tl1Server:
    SET_VERBS = ("ENT-PATCH", "DLT-PATCH")

    def __init__(self, core: SwitchCore, credentials: Credentials, sid: str, delay_s: float,
                 reply_filter=None, max_failures: int = 3, lockout_s: float = 30.0):
        self.core, self.creds, self.sid, self.delay_s = core, credentials, sid, delay_s
        self.reply_filter = reply_filter
        self.guard = LoginGuard(credentials, max_failures, lockout_s)
        self.handle: ServerHandle | None = None

    # one response message
    def response(self, ctag: str, code: str, lines=()) -> str:
        stamp = time.strftime("%y-%m-%d %H:%M:%S", time.gmtime())
        body = "".join(f"   {line}\r\n" for line in lines)
        return f"\r\n\n   {self.sid} {stamp}\r\nM  {ctag} {code}\r\n{body};"

    def deny(self, ctag: str, code: str, text: str) -> str:
        return self.response(ctag, "DENY", [code, f"/* {text} */"])

    async def session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.core.faults.refuse:
            writer.close()
            return
        self.handle.sessions.add(writer)
        state = {"user": None, "peer": peer_of(writer)}
        buf = ""
        decode = codecs.getincrementaldecoder("utf-8")("replace").decode
        try:
            while True:
                end = _end_of_message(buf)
                if end < 0:
                    if len(buf) > MAX_COMMAND:
                        break
                    data = await reader.read(65536)
                    if not data:
                        break
                    buf += decode(data)
                    continue
                message, buf = buf[:end], buf[end:]
                await self.core.faults.thaw()          # a frozen switch serves nobody
                verb, out = await self.execute(message, state)
                if out == "drop":
                    break
                if self.delay_s:
                    await asyncio.sleep(self.delay_s)
                if self.reply_filter is not None:
                    out = self.reply_filter(verb, out)
                writer.write(out.encode("ascii", "replace"))
                await writer.drain()
                if verb == "CANC-USER" and state["user"] is None:
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self.handle.sessions.discard(writer)
            writer.close()

    async def execute(self, message: str, state: dict) -> tuple[str, str]:
        """(verb, response text or ``'drop'``) for one input message."""
        ctag = "0"
        try:
            fields = split_fields(message)
        except Tl1Syntax as exc:
            return "", self.deny(ctag, "IISP", str(exc))
        fields += [""] * (4 - len(fields))
        verb, _tid, aid, ctag_in = (f.upper() if k == 0 else f for k, f in enumerate(fields[:4]))
        if not CTAG_RE.match(ctag_in):
            return verb, self.deny(ctag, "IICT", "missing or invalid correlation tag")
        ctag = ctag_in
        try:
            if verb == "ACT-USER":
                pid = fields[5] if len(fields) > 5 else ""
                if not self.guard.login(state.get("peer", "?"), aid, pid):
                    state["user"] = None
                    await asyncio.sleep(self.guard.delay_s)     # slows guessing even before the lock-out
                    raise _Deny("PIUI", "unknown user or wrong password")
                state["user"] = aid
                return verb, self.response(ctag, "COMPLD")
            if state["user"] is None:
                raise _Deny("PLNA", "login not active")
            if verb == "CANC-USER":
                state["user"] = None
                return verb, self.response(ctag, "COMPLD")
            if verb in ("RTRV-PATCH", "RTRV-CRS"):
                row = self.core.snapshot()
                n = self.core.ports
                lines = []
                for i in np.flatnonzero(row >= 0):
                    a, b = to_device(n, int(i), int(row[i]))
                    st = f":STATUS={self.core.status(int(i)).upper()}" if verb == "RTRV-CRS" else ""
                    lines.append(f'"{a},{b}{st}"')
                return verb, self.response(ctag, "COMPLD", lines)
            if verb == "RTRV-NETYPE":
                n = self.core.ports
                return verb, self.response(ctag, "COMPLD", [f'"PERMNET,EMULATED-OCS,{n}X{n},1.0"'])
            if verb in self.SET_VERBS:
                ops = self.parse_set(verb, aid)
                fault = await self.core.faults.before_set()
                if fault == "drop":
                    return verb, "drop"
                if fault == "deny":
                    raise _Deny("SROF", "requested operation failed")
                try:
                    self.apply(verb, ops)
                except _Deny:
                    raise
                except Exception as exc:  # noqa: BLE001  e.g. the state file cannot be written
                    raise _Deny("SROF", f"internal error ({type(exc).__name__})") from None
                return verb, self.response(ctag, "COMPLD")
            raise _Deny("ICNV", f"command {verb or '(none)'} not valid")
        except _Deny as exc:
            return verb, self.deny(ctag, exc.code, exc.text)

    def parse_set(self, verb: str, aid: str):
        n = self.core.ports
        try:
            if verb == "ENT-PATCH":
                ins, sep, outs = aid.partition(",")
                if not sep:
                    raise _Deny("IIAC", "expected ingress,egress")
                a, b = parse_port_list(ins, 2 * n), parse_port_list(outs, 2 * n)
                if len(a) != len(b):
                    raise _Deny("IIAC", "ingress and egress lists differ in length")
                return [to_plane(n, i, e) for i, e in zip(a, b)]
            if aid.upper() == "ALL":
                return "ALL"
            return parse_port_list(aid, 2 * n)
        except Tl1Syntax as exc:
            raise _Deny("IIAC", str(exc)) from None
        except ValueError as exc:
            raise _Deny("IIAC", str(exc)) from None

    def apply(self, verb: str, ops) -> None:
        core, n = self.core, self.core.ports
        with core.lock:
            if verb == "ENT-PATCH":
                try:
                    core.connect(ops)
                except SwitchRefused as exc:
                    raise _Deny("SAIN", str(exc)) from None
                return
            if ops == "ALL":
                core.clear()
                return
            row = core.snapshot()
            ingresses = []
            for p in ops:
                if 1 <= p <= n:
                    i = p - 1
                elif n < p <= 2 * n:
                    hit = np.flatnonzero(row == p - n - 1)
                    if not len(hit):
                        raise _Deny("SROF", f"port {p} has no patch")
                    i = int(hit[0])
                else:
                    raise _Deny("IIAC", f"port {p} not in 1..{2 * n}")
                if row[i] < 0:
                    raise _Deny("SROF", f"port {p} has no patch")
                ingresses.append(i)
            core.disconnect(ingresses)


async def serve_tl1(core: SwitchCore, host: str = "127.0.0.1", port: int = 0, *,
                    credentials: Credentials | None = None, sid: str = "PERMNET-OCS",
                    delay_ms: float = 0.0, reply_filter=None, max_failures: int = 3,
                    lockout_s: float = 30.0) -> ServerHandle:
    """Start the TL1 front end of ``core`` on ``host:port`` (0 = any free
    port) in the running event loop.  ``credentials`` is the one account the
    emulator accepts (default: from ``PERMNET_OCS_USER``/``..._PASSWORD``);
    ``delay_ms`` delays every response; ``reply_filter(verb, text) -> text``
    rewrites responses (to emulate a misbehaving device in tests);
    ``max_failures`` failed ``ACT-USER`` in a row from one peer lock it out
    for ``lockout_s`` seconds (:class:`~permnet.ocs.frontend.LoginGuard`)."""
    require(0 <= delay_ms <= 60_000, "delay_ms must be in 0..60000")
    srv = _Tl1Server(core, emulator_credentials(credentials, "TL1"), sid, delay_ms / 1000.0, reply_filter,
                     max_failures, lockout_s)
    server = await asyncio.start_server(srv.session, host, port)
    bound = server.sockets[0].getsockname()[1]
    srv.handle = ServerHandle(server, bound, host, "tl1")
    return srv.handle


# ----------------------------------------------------------------- driver
HEADER_RE = re.compile(r"^\s+(\S+)\s+(\d\d-\d\d-\d\d)\s+(\d\d:\d\d:\d\d)$")
IDENT_RE = re.compile(r"^M\s+(\S+)\s+(COMPLD|DENY|PRTL|DELAY|RTRV)$")
AUTO_RE = re.compile(r"^(\*C|\*\*|\*|A)\s+\S+")
ACK_RE = re.compile(r"^(IP|PF|OK|NA|NG|RL)\s+(\S+)$")
PATCH_RE = re.compile(r'^"(\d+),(\d+)(?::[^"]*)?"$')
SIZE_RE = re.compile(r"\b(\d+)X(\d+)\b", re.I)
END_RE = re.compile(r"(?:^|\n)([;<])")


@register
class Tl1Driver(Driver):
    """TL1 session to a Polatis-style switch (see the module docstring).

    Every exchange is one command and its response, matched by correlation
    tag; acknowledgments (``IP ctag`` ... ``<``) and autonomous messages are
    skipped; anything else that is not a well-formed response to the pending
    command is a :class:`DeviceError`.  ``batch`` bounds the pairs per
    ``ENT-PATCH``/``DLT-PATCH``.
    """

    protocol = "tl1"
    default_port = DEFAULT_PORT
    batch = 64
    MAX_REPLY = 8 << 20

    def __init__(self, address: str, **kw):
        super().__init__(address, **kw)
        self.sock: socket.socket | None = None
        self._buf = ""
        self._ctag = 0
        self._size: int | None = None

    # --- session
    def open(self) -> None:
        creds = self.credentials or Credentials.load()
        if creds is None:
            raise self.fail("no credentials (set PERMNET_OCS_USER and PERMNET_OCS_PASSWORD)")
        try:
            self.sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        except ConnectionRefusedError:
            raise self.fail("connection refused") from None
        except socket.timeout:
            raise self.fail(f"no connection within {self.timeout:g} s") from None
        except OSError as exc:
            raise self.fail(f"cannot connect ({exc.strerror or type(exc).__name__})") from None
        self._buf = ""
        try:
            self._command("ACT-USER", f"ACT-USER::{quote(creds.user)}:{{ctag}}::{quote(creds.password)};",
                          denied="login denied")
        except DeviceError as exc:
            self._drop()
            if "connection" in str(exc):
                raise self.fail("connection closed by the device before login (refused)") from None
            raise

    def close(self) -> None:
        if self.sock is None:
            return
        try:
            self.sock.settimeout(min(self.timeout, 1.0))
            self.sock.sendall(f"CANC-USER:::{self._next_ctag()};".encode())
        except OSError:
            pass
        self._drop()

    def _drop(self) -> None:
        if self.sock is not None:
            try:
                self.sock.close()
            finally:
                self.sock = None

    # --- state
    def size(self) -> int:
        if self._size is None:
            lines = self._command("RTRV-NETYPE", "RTRV-NETYPE:::{ctag};")
            sizes = [m for line in lines for m in SIZE_RE.findall(line)]
            if len(sizes) != 1 or sizes[0][0] != sizes[0][1] or not 2 <= int(sizes[0][0]) <= 4096:
                raise self.fail("malformed reply to RTRV-NETYPE: no NxN size")
            self._size = int(sizes[0][0])
        return self._size

    def read(self) -> np.ndarray:
        n = self.size()
        lines = self._command("RTRV-PATCH", "RTRV-PATCH:::{ctag};")
        pairs = []
        for line in lines:
            if line.startswith("/*"):
                continue
            m = PATCH_RE.match(line)
            if not m:
                raise self.fail(f"malformed reply to RTRV-PATCH: line {line[:40]!r}")
            pairs.append((int(m.group(1)), int(m.group(2))))
        try:
            return plane_from_labels(n, pairs)
        except ValueError as exc:
            raise self.fail(f"malformed reply to RTRV-PATCH: {exc}") from None

    def settling(self) -> list[int]:
        """0-based ingresses whose cross-connect is not yet established
        (``RTRV-CRS`` status ``TUNING``)."""
        n = self.size()
        out = []
        for line in self._command("RTRV-CRS", "RTRV-CRS:::{ctag};"):
            m = re.match(r'^"(\d+),(\d+)(?::STATUS=(\w+))?"$', line)
            if not m:
                if line.startswith("/*"):
                    continue
                raise self.fail(f"malformed reply to RTRV-CRS: line {line[:40]!r}")
            if (m.group(3) or "").upper() == "TUNING":
                out.append(int(m.group(1)) - 1)
        if any(not 0 <= i < n for i in out):
            raise self.fail("malformed reply to RTRV-CRS: ingress out of range")
        return out

    def connect(self, pairs) -> None:
        n = self.size()
        pairs = [(int(i), int(e)) for i, e in pairs]
        for i, e in pairs:
            require(0 <= i < n and 0 <= e < n, f"{self.name}: pair ({i}, {e}) outside 0..{n - 1}")
        for k in range(0, len(pairs), self.batch):
            dev = [to_device(n, i, e) for i, e in pairs[k:k + self.batch]]
            ins = "&".join(str(i) for i, _ in dev)
            outs = "&".join(str(e) for _, e in dev)
            self._command("ENT-PATCH", f"ENT-PATCH::{ins},{outs}:{{ctag}};")

    def disconnect(self, ingresses) -> None:
        n = self.size()
        ingresses = [int(i) for i in ingresses]
        for i in ingresses:
            require(0 <= i < n, f"{self.name}: ingress {i} outside 0..{n - 1}")
        for k in range(0, len(ingresses), self.batch):
            aid = "&".join(str(i + 1) for i in ingresses[k:k + self.batch])
            self._command("DLT-PATCH", f"DLT-PATCH::{aid}:{{ctag}};")

    # --- one exchange
    def _next_ctag(self) -> str:
        self._ctag = self._ctag % 999_999 + 1
        return str(self._ctag)

    def _command(self, verb: str, template: str, denied: str | None = None) -> list[str]:
        """Send one command (``{ctag}`` filled in) and return the body lines
        of its COMPLD response.  ``verb`` alone names it in errors (the
        command text may hold the password)."""
        if self.sock is None:
            raise self.fail("not connected")
        ctag = self._next_ctag()
        deadline = time.monotonic() + self.timeout
        try:
            self.sock.sendall(template.replace("{ctag}", ctag).encode("utf-8"))
        except OSError:
            self._drop()
            raise self.fail(f"connection lost while sending {verb}") from None
        while True:
            lines = self._message(verb, deadline)
            if ACK_RE.match(lines[0]) and lines[-1] == "<":
                continue                                  # acknowledgment: the response follows
            if not HEADER_RE.match(lines[0]) or len(lines) < 2:
                raise self.fail(f"malformed reply to {verb}: bad header {lines[0][:40]!r}")
            if AUTO_RE.match(lines[1]):
                continue                                  # autonomous message
            m = IDENT_RE.match(lines[1])
            if not m:
                raise self.fail(f"malformed reply to {verb}: {lines[1][:40]!r}")
            if m.group(1) != ctag:
                raise self.fail(f"malformed reply to {verb}: correlation tag {m.group(1)!r}, expected {ctag}")
            body = [line.strip() for line in lines[2:-1]]
            if m.group(2) == "COMPLD":
                return body
            code = body[0] if body and re.fullmatch(r"[A-Z]{4}", body[0]) else "????"
            why = " ".join(b.strip("/* ") for b in body[1:] if b.startswith("/*"))
            what = denied or f"{verb} denied"
            raise self.fail(f"{what} ({code}{': ' + why if why else ''})" if m.group(2) == "DENY"
                            else f"{verb} not completed ({m.group(2)}, {code})")

    def _message(self, verb: str, deadline: float) -> list[str]:
        """The next complete message (a response ending in ``;`` or an
        acknowledgment ending in ``<``) as its non-blank lines."""
        while True:
            m = END_RE.search(self._buf)
            if m:
                text, self._buf = self._buf[:m.end()], self._buf[m.end():]
                lines = [line.rstrip() for line in text.replace("\r", "").split("\n") if line.strip()]
                if len(lines) < 2:
                    raise self.fail(f"malformed reply to {verb}: {text.strip()[:40]!r}")
                return lines
            if len(self._buf) > self.MAX_REPLY:
                self._drop()
                raise self.fail(f"malformed reply to {verb}: no terminator in {self.MAX_REPLY} bytes")
            left = deadline - time.monotonic()
            if left <= 0:
                self._drop()
                raise self.fail(f"no reply to {verb} within {self.timeout:g} s")
            try:
                self.sock.settimeout(left)
                data = self.sock.recv(65536)
            except socket.timeout:
                self._drop()
                raise self.fail(f"no reply to {verb} within {self.timeout:g} s") from None
            except OSError:
                self._drop()
                raise self.fail(f"connection lost during {verb}") from None
            if not data:
                self._drop()
                raise self.fail(f"connection closed by the device during {verb}")
            self._buf += data.decode("ascii", "replace")
