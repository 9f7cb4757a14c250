"""NETCONF (RFC 6241) over SSH (RFC 6242) with the Polatis ``optical-switch``
YANG model: an asyncssh server front end over
:class:`~permnet.ocs.switchcore.SwitchCore` and the :class:`NetconfDriver`
(built on ``ncclient``).

Data model (namespace :data:`OPSW`)::

    <cross-connects>
      <pair><ingress>1</ingress><egress>17</egress></pair>   (key: ingress)
      ...
    </cross-connects>
    <port-config><port><port-id>1</port-id></port> ... </port-config>   (get only)

and, in ``get`` (operational state) only, an emulator extension: each pair
carries ``<status>established|tuning</status>`` (``tuning`` while settling).

with the Polatis numbering (ingress ``1..N``, egress ``N+1..2N``).

Server: the ``netconf`` SSH subsystem, password authentication against one
account (after ``max_failures`` failed logins in a row a peer is locked out
for ``lockout_s`` seconds, every failure answered 0.2 s late), a host key
generated per run or kept in a file (``host_key``), optionally added to a
known_hosts file (``known_hosts``); ``hello`` advertises ``base:1.0``,
``base:1.1``, ``:writable-running``, ``:candidate`` and
``:confirmed-commit:1.1``; after the hello exchange the session uses chunked
framing (RFC 6242 section 4.2) when both sides advertise ``base:1.1``, else
the ``]]>]]>`` end-of-message framing; white space before a message is
ignored (scrapli-netconf starts its hello with a newline).
Operations: ``get-config`` (running, candidate), ``get``, ``edit-config``
(running or candidate; ``default-operation`` merge/replace/none;
``operation`` merge, replace, create, delete, remove on ``cross-connects``
or a ``pair``), ``commit`` (RFC 6241 8.3.4, 8.4: ``confirmed``,
``confirm-timeout``, ``persist``, ``persist-id``; an unconfirmed commit
reverts when its timer expires or, without ``persist``, when its session
ends), ``cancel-commit``, ``discard-changes``, ``lock``/``unlock`` of
running and candidate (released with the session; a candidate lock's
uncommitted changes are discarded with it), ``close-session``.  Errors are
``rpc-error`` replies with the RFC 6241 appendix A tags (``invalid-value``,
``data-exists``, ``data-missing``, ``lock-denied`` with the holder's
``session-id`` in ``error-info``, ``in-use``, ``operation-failed``,
``operation-not-supported``, ...).  An ``edit-config`` is all or nothing.

Faults (:class:`~permnet.ocs.switchcore.Faults`): ``refuse`` closes each new
SSH connection, ``drop`` closes the channel on the N-th ``edit-config``
before it acts, ``deny`` answers it with ``operation-failed``, ``freeze``
sleeps before handling it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import socket
import threading
import time
from pathlib import Path
from xml.etree import ElementTree as ET
from xml.sax.saxutils import escape

import numpy as np

from permnet.gen.errors import PermnetError, require
from permnet.ocs.driver import Credentials, DeviceError, Driver, register
from permnet.ocs.frontend import (LoginGuard, ServerHandle, emulator_credentials, peer_of, plane_from_labels, to_device,
                                  to_plane)
from permnet.ocs.switchcore import SwitchCore, SwitchRefused

__all__ = ["serve_netconf", "NetconfDriver", "NC", "OPSW", "DEFAULT_PORT"]

DEFAULT_PORT = 830
NC = "urn:ietf:params:xml:ns:netconf:base:1.0"
OPSW = "http://www.polatis.com/yang/optical-switch"
BASE10 = "urn:ietf:params:netconf:base:1.0"
BASE11 = "urn:ietf:params:netconf:base:1.1"
CAPABILITIES = (BASE10, BASE11, "urn:ietf:params:netconf:capability:writable-running:1.0",
                f"{OPSW}?module=optical-switch")
CANDIDATE = "urn:ietf:params:netconf:capability:candidate:1.0"
CONFIRMED = "urn:ietf:params:netconf:capability:confirmed-commit:1.1"
DEFAULT_CONFIRM_TIMEOUT = 600            # seconds, RFC 6241 section 8.4.5.1
NCCLIENT_TICK_S = 0.01
EOM = b"]]>]]>"
MAX_MESSAGE = 16 << 20
OPERATION = f"{{{NC}}}operation"


def _q(ns: str, tag: str) -> str:
    return f"{{{ns}}}{tag}"


# ------------------------------------------------------------------ framing
class FramingError(Exception):
    pass


class _Framer:
    """RFC 6242 message framing over an async ``read() -> bytes``."""

    def __init__(self, read):
        self.read, self.buf, self.chunked = read, b"", False

    async def _more(self) -> bool:
        data = await self.read(65536)
        if not data:
            return False
        self.buf += data
        if len(self.buf) > MAX_MESSAGE:
            raise FramingError("message too long")
        return True

    async def next(self) -> bytes | None:
        """The next message, or ``None`` at end of input."""
        if not self.chunked:
            while EOM not in self.buf:
                if not await self._more():
                    return None
            msg, _, self.buf = self.buf.partition(EOM)
            return msg
        parts = []
        while True:
            while True:
                m = re.match(rb"\n#(#\n|([1-9][0-9]{0,9})\n)", self.buf)
                if m:
                    break
                if len(self.buf) >= 13 and not re.match(rb"\n#[#0-9]", self.buf):
                    raise FramingError("bad chunk header")
                if not await self._more():
                    return None
            if m.group(1) == b"#\n":
                self.buf = self.buf[m.end():]
                return b"".join(parts)
            size = int(m.group(2))
            if size > MAX_MESSAGE:
                raise FramingError("chunk too long")
            while len(self.buf) < m.end() + size:
                if not await self._more():
                    return None
            parts.append(self.buf[m.end():m.end() + size])
            self.buf = self.buf[m.end() + size:]

    def frame(self, data: bytes) -> bytes:
        if self.chunked:
            return b"\n#%d\n%s\n##\n" % (len(data), data)
        return data + EOM


# ------------------------------------------------------------------ server
class RpcError(Exception):
    def __init__(self, tag: str, message: str, etype: str = "application", info: str = ""):
        super().__init__(message)
        self.tag, self.message, self.etype, self.info = tag, message, etype, info

    def xml(self) -> str:
        info = f"<error-info>{self.info}</error-info>" if self.info else ""
        return (f"<rpc-error><error-type>{self.etype}</error-type><error-tag>{self.tag}</error-tag>"
                f"<error-severity>error</error-severity>"
                f"<error-message xml:lang=\"en\">{escape(self.message)}</error-message>{info}</rpc-error>")


class _Pending:
    """A confirmed commit waiting for its confirmation (RFC 6241 section 8.4)."""

    def __init__(self, rollback: np.ndarray, sid: int, persist: str | None, timer):
        self.rollback, self.sid, self.persist, self.timer = rollback, sid, persist, timer


class _NetconfServer:
    """The datastores (running = the switch core, candidate = a copy until
    committed), the locks and the confirmed-commit timer, shared by every
    session of one front end."""

    def __init__(self, core: SwitchCore, credentials: Credentials, delay_s: float, reply_filter=None, *,
                 candidate: bool = True, max_failures: int = 3, lockout_s: float = 30.0):
        self.core, self.creds, self.delay_s, self.reply_filter = core, credentials, delay_s, reply_filter
        self.handle: ServerHandle | None = None
        self.session_id = 0
        self.has_candidate = candidate
        self.capabilities = CAPABILITIES + ((CANDIDATE, CONFIRMED) if candidate else ())
        self.candidate: np.ndarray | None = None      # None: equal to running
        self.locks: dict[str, int] = {}               # datastore -> session id
        self.pending: _Pending | None = None
        self.guard = LoginGuard(credentials, max_failures, lockout_s)

    # --- SSH side
    def ssh_server_factory(self):
        import asyncssh
        outer = self

        class _SSH(asyncssh.SSHServer):
            def connection_made(self, conn):
                self.conn = conn
                self.peer = peer_of(conn)
                if outer.core.faults.refuse:
                    conn.close()
                    return
                outer.handle.sessions.add(conn)

            def connection_lost(self, exc):
                outer.handle.sessions.discard(self.conn)

            def begin_auth(self, username):
                return True

            def password_auth_supported(self):
                return True

            async def validate_password(self, username, password):
                ok = outer.guard.login(self.peer, username, password)
                if not ok:
                    await asyncio.sleep(outer.guard.delay_s)    # slows guessing even before the lock-out
                return ok

        return _SSH()

    async def process(self, process) -> None:
        if process.subsystem != "netconf":
            process.exit(1)
            return
        self.session_id += 1
        sid = self.session_id
        framer = _Framer(process.stdin.read)
        try:
            hello = (f'<?xml version="1.0" encoding="UTF-8"?><hello xmlns="{NC}"><capabilities>'
                     + "".join(f"<capability>{escape(c)}</capability>" for c in self.capabilities)
                     + f"</capabilities><session-id>{sid}</session-id></hello>")
            process.stdout.write(framer.frame(hello.encode()))
            msg = await framer.next()
            if msg is None:
                return
            caps = self.client_capabilities(msg)
            if caps is None:
                return
            if BASE11 in caps:
                framer.chunked = True
            while True:
                msg = await framer.next()
                if msg is None:
                    return
                await self.core.faults.thaw()          # a frozen switch serves nobody
                name, reply = await self.dispatch(msg, sid)
                if reply == "drop":
                    process.channel.close()
                    return
                if self.delay_s:
                    await asyncio.sleep(self.delay_s)
                if self.reply_filter is not None:
                    reply = self.reply_filter(name, reply)
                process.stdout.write(framer.frame(reply.encode()))
                await process.stdout.drain()
                if name == "close-session":
                    process.exit(0)
                    return
        except (FramingError, ConnectionError, asyncio.IncompleteReadError, BrokenPipeError):
            pass
        except Exception:  # noqa: BLE001  the emulator survives a broken session
            pass
        finally:
            self.end_session(sid)
            try:
                process.exit(0)
            except Exception:  # noqa: BLE001
                pass

    def end_session(self, sid: int) -> None:
        """RFC 6241: a session's locks end with it (an uncommitted candidate
        it locked is discarded, 8.3.5.2), and a confirmed commit it issued
        without ``persist`` is rolled back at once (8.4.1)."""
        for store in [s for s, holder in self.locks.items() if holder == sid]:
            del self.locks[store]
            if store == "candidate":
                self.candidate = None
        if self.pending is not None and self.pending.sid == sid and self.pending.persist is None:
            self.revert()

    @staticmethod
    def client_capabilities(msg: bytes) -> set[str] | None:
        try:
            root = ET.fromstring(msg.lstrip())
        except ET.ParseError:
            return None
        if root.tag != _q(NC, "hello"):
            return None
        caps = {(c.text or "").strip() for c in root.iter(_q(NC, "capability"))}
        return caps if BASE10 in caps or BASE11 in caps else None

    # --- RPCs
    async def dispatch(self, msg: bytes, sid: int = 0) -> tuple[str, str]:
        try:
            rpc = ET.fromstring(msg.lstrip())
        except ET.ParseError:
            return "", self.reply({}, RpcError("malformed-message", "not well-formed XML", "rpc").xml())
        attrs = {k: v for k, v in rpc.attrib.items() if not k.startswith("{")}
        if rpc.tag != _q(NC, "rpc") or len(rpc) != 1:
            return "", self.reply(attrs, RpcError("malformed-message", "expected one operation in <rpc>",
                                                  "rpc").xml())
        if "message-id" not in attrs:
            return "", self.reply(attrs, RpcError("missing-attribute", "message-id missing", "rpc").xml())
        op = rpc[0]
        name = op.tag.rpartition("}")[2] if op.tag.startswith(f"{{{NC}}}") else op.tag
        try:
            if name == "get-config":
                source = self.source(op)
                return name, self.reply(attrs, self.data(op, ("cross-connects",), row=self.store(source)))
            if name == "get":
                return name, self.reply(attrs, self.data(op, ("cross-connects", "port-config"), status=True))
            if name == "edit-config":
                target, container, pairs = self.parse_edit(op)
                self.check_lock(target, sid)
                fault = await self.core.faults.before_set()
                if fault == "drop":
                    return name, "drop"
                if fault == "deny":
                    raise RpcError("operation-failed", "command denied by the switch")
                new = self.edited(self.store(target), container, pairs)
                if target == "candidate":
                    self.candidate = new
                else:
                    self.install(new)
                return name, self.reply(attrs, "<ok/>")
            if name == "commit":
                self.commit(op, sid)
                return name, self.reply(attrs, "<ok/>")
            if name == "cancel-commit":
                self.cancel_commit(op, sid)
                return name, self.reply(attrs, "<ok/>")
            if name == "discard-changes":
                self.need_candidate(name)
                self.check_lock("candidate", sid)
                self.candidate = None
                return name, self.reply(attrs, "<ok/>")
            if name == "lock":
                self.lock(self.datastore(op, "target"), sid)
                return name, self.reply(attrs, "<ok/>")
            if name == "unlock":
                self.unlock(self.datastore(op, "target"), sid)
                return name, self.reply(attrs, "<ok/>")
            if name == "close-session":
                return name, self.reply(attrs, "<ok/>")
            raise RpcError("operation-not-supported", f"operation {name!r} not supported", "protocol")
        except RpcError as exc:
            return name, self.reply(attrs, exc.xml())

    @staticmethod
    def reply(attrs: dict, inner: str) -> str:
        extra = "".join(f' {k}="{escape(v, {chr(34): "&quot;"})}"' for k, v in attrs.items())
        return f'<?xml version="1.0" encoding="UTF-8"?><rpc-reply xmlns="{NC}"{extra}>{inner}</rpc-reply>'

    @staticmethod
    def datastore(op, which: str) -> str:
        node = op.find(_q(NC, which))
        if node is None or len(node) != 1:
            raise RpcError("missing-element", f"<{which}> with one datastore expected", "protocol")
        return node[0].tag.rpartition("}")[2]

    def need_candidate(self, what: str) -> None:
        if not self.has_candidate:
            raise RpcError("operation-not-supported", f"{what}: no candidate datastore on this device", "protocol")

    def known_store(self, store: str, what: str) -> str:
        if store == "running" or (store == "candidate" and self.has_candidate):
            return store
        raise RpcError("invalid-value", f"{what}: no datastore {store!r} (running"
                       f"{', candidate' if self.has_candidate else ''})", "protocol")

    def source(self, op) -> str:
        return self.known_store(self.datastore(op, "source"), "source")

    def store(self, name: str) -> np.ndarray:
        """The contents of datastore ``name`` (a copy)."""
        if name == "candidate" and self.candidate is not None:
            return self.candidate.copy()
        return self.core.snapshot()

    # --- locks (RFC 6241 section 7.5, 7.6)
    def lock(self, store: str, sid: int) -> None:
        self.known_store(store, "lock")
        holder = self.locks.get(store)
        if holder is not None:
            raise RpcError("lock-denied", f"{store} is locked by session {holder}", "protocol",
                           f"<session-id>{holder}</session-id>")
        if store == "candidate" and self.candidate is not None \
                and not np.array_equal(self.candidate, self.core.snapshot()):
            raise RpcError("lock-denied", "the candidate has uncommitted changes", "protocol",
                           "<session-id>0</session-id>")
        self.locks[store] = sid

    def unlock(self, store: str, sid: int) -> None:
        self.known_store(store, "unlock")
        if self.locks.get(store) != sid:
            raise RpcError("operation-failed", f"{store} is not locked by this session", "protocol")
        del self.locks[store]
        if store == "candidate":
            self.candidate = None

    def check_lock(self, store: str, sid: int) -> None:
        holder = self.locks.get(store)
        if holder is not None and holder != sid:
            raise RpcError("in-use", f"{store} is locked by session {holder}", "protocol",
                           f"<session-id>{holder}</session-id>")

    # --- commit (RFC 6241 sections 8.3.4, 8.4)
    def commit(self, op, sid: int) -> None:
        self.need_candidate("commit")
        self.check_lock("running", sid)
        confirmed = op.find(_q(NC, "confirmed")) is not None
        persist = op.findtext(_q(NC, "persist"))
        persist_id = op.findtext(_q(NC, "persist-id"))
        pending = self.pending
        if pending is not None:
            # a follow-up commit: from the issuing session, or with the persist token
            if pending.persist is not None:
                if persist_id != pending.persist:
                    raise RpcError("invalid-value", "a persistent confirmed commit is pending: give its "
                                   "persist-id", "protocol")
            elif pending.sid != sid:
                raise RpcError("in-use", f"a confirmed commit of session {pending.sid} is pending", "protocol",
                               f"<session-id>{pending.sid}</session-id>")
        elif persist_id is not None:
            raise RpcError("invalid-value", "no confirmed commit is pending", "protocol")
        timeout = DEFAULT_CONFIRM_TIMEOUT
        if confirmed:
            text = op.findtext(_q(NC, "confirm-timeout"))
            if text is not None:
                try:
                    timeout = int(text.strip())
                except ValueError:
                    timeout = 0
                if not 1 <= timeout <= 2 ** 32 - 1:
                    raise RpcError("invalid-value", "confirm-timeout must be a positive number of seconds",
                                   "protocol")
        rollback = pending.rollback if pending is not None else self.core.snapshot()
        if self.candidate is not None:
            self.install(self.candidate)
        self.candidate = None
        if pending is not None:
            pending.timer.cancel()
            self.pending = None
        if confirmed:
            token = object()
            timer = asyncio.get_running_loop().call_later(timeout, self._expire, token)
            self.pending = _Pending(rollback, sid, persist, timer)
            self.pending.token = token

    def _expire(self, token) -> None:
        if self.pending is not None and getattr(self.pending, "token", None) is token:
            self.revert()

    def cancel_commit(self, op, sid: int) -> None:
        self.need_candidate("cancel-commit")
        pending = self.pending
        if pending is None:
            raise RpcError("operation-failed", "no confirmed commit is pending", "protocol")
        persist_id = op.findtext(_q(NC, "persist-id"))
        if pending.persist is not None and persist_id != pending.persist:
            raise RpcError("invalid-value", "give the persist-id of the pending commit", "protocol")
        if pending.persist is None and pending.sid != sid:
            raise RpcError("in-use", f"the pending commit belongs to session {pending.sid}", "protocol")
        self.revert()

    def revert(self) -> None:
        """Put running back as it was before the pending confirmed commit."""
        pending, self.pending = self.pending, None
        if pending is None:
            return
        pending.timer.cancel()
        self.candidate = None
        try:
            self.install(pending.rollback)
        except RpcError:
            pass

    # --- data
    def data(self, op, tops: tuple[str, ...], status: bool = False, row: np.ndarray | None = None) -> str:
        flt = op.find(_q(NC, "filter"))
        if flt is not None:
            if flt.get("type", "subtree") != "subtree":
                raise RpcError("operation-not-supported", "only subtree filters", "protocol")
            wanted = {c.tag for c in flt}
            tops = tuple(t for t in tops if _q(OPSW, t) in wanted)
        n = self.core.ports
        out = []
        if "cross-connects" in tops:
            row = self.core.snapshot() if row is None else row
            pairs = "".join(
                "<pair><ingress>%d</ingress><egress>%d</egress>%s</pair>" % (
                    *to_device(n, int(i), int(row[i])),
                    f"<status>{self.core.status(int(i))}</status>" if status else "")
                for i in np.flatnonzero(row >= 0))
            out.append(f'<cross-connects xmlns="{OPSW}">{pairs}</cross-connects>')
        if "port-config" in tops:
            ports = "".join(f"<port><port-id>{p}</port-id></port>" for p in range(1, 2 * n + 1))
            out.append(f'<port-config xmlns="{OPSW}">{ports}</port-config>')
        return "<data>" + "".join(out) + "</data>"

    def parse_edit(self, op):
        """(target, container operation, [(pair operation, ingress, egress|None)])
        with 0-based ports; validation of the request alone (no state)."""
        target = self.known_store(self.datastore(op, "target"), "target")
        dflt = op.find(_q(NC, "default-operation"))
        default = (dflt.text or "").strip() if dflt is not None else "merge"
        if default not in ("merge", "replace", "none"):
            raise RpcError("invalid-value", f"default-operation {default!r}", "protocol")
        cfg = op.find(_q(NC, "config"))
        if cfg is None:
            # ncclient's examples (and many scripts) send <config> in no namespace; devices take it
            cfg = op.find("config")
        if cfg is None:
            raise RpcError("missing-element", "<config> missing", "protocol")
        n = self.core.ports
        container, pairs = None, []
        for top in cfg:
            if top.tag != _q(OPSW, "cross-connects"):
                raise RpcError("unknown-element", f"unknown element {top.tag}")
            container = self.operation(top, default)
            inherited = "merge" if container in ("replace", "create") else container
            for pair in top:
                if pair.tag != _q(OPSW, "pair"):
                    raise RpcError("unknown-element", f"unknown element {pair.tag}")
                pop = self.operation(pair, inherited)
                try:
                    i = int((pair.findtext(_q(OPSW, "ingress")) or "").strip())
                    etext = pair.findtext(_q(OPSW, "egress"))
                    e = int(etext.strip()) if etext is not None else None
                except ValueError:
                    raise RpcError("invalid-value", "ingress and egress must be port numbers") from None
                if e is None and pop in ("merge", "replace", "create"):
                    raise RpcError("missing-element", f"pair with ingress {i} has no egress")
                try:
                    pi, pe = to_plane(n, i, e)
                except ValueError as exc:
                    raise RpcError("invalid-value", str(exc)) from None
                pairs.append((pop, pi, pe))
        return target, container, pairs

    @staticmethod
    def operation(node, inherited: str) -> str:
        op = node.get(OPERATION, inherited)
        if op not in ("merge", "replace", "create", "delete", "remove", "none"):
            raise RpcError("bad-attribute", f"operation {op!r}", "protocol")
        return op

    def edited(self, cur: np.ndarray, container, pairs) -> np.ndarray:
        """``cur`` with the edit applied (all or nothing: an error changes nothing)."""
        n = self.core.ports
        new = cur.copy()
        if container in ("delete", "remove", "replace"):
            if container == "delete" and not (cur >= 0).any():
                raise RpcError("data-missing", "no cross-connects to delete")
            new[:] = -1
        elif container == "create" and (cur >= 0).any():
            raise RpcError("data-exists", "cross-connects already exist")
        for op, i, e in pairs:
            if op == "none":
                continue
            if op in ("delete", "remove"):
                if op == "delete" and (new[i] < 0 or (e is not None and new[i] != e)):
                    raise RpcError("data-missing", f"no cross-connect on ingress {i + 1}")
                new[i] = -1
                continue
            if op == "create" and new[i] >= 0:
                raise RpcError("data-exists", f"ingress {i + 1} already connected")
            new[i] = e
        used = new[new >= 0]
        if len(np.unique(used)) != len(used):
            vals, counts = np.unique(used, return_counts=True)
            e = int(vals[counts > 1][0])
            owners = [int(k) + 1 for k in np.flatnonzero(new == e)]
            raise RpcError("operation-failed",
                           f"egress port {e + n + 1} requested by ingress ports {owners[0]} and {owners[1]}")
        return new

    def install(self, new: np.ndarray) -> None:
        """Make the switch hold ``new`` (only the changed ports are touched)."""
        core = self.core
        try:
            with core.lock:
                cur = core.snapshot()
                removed = [int(i) for i in np.flatnonzero((cur >= 0) & (new != cur))]
                added = [(int(i), int(new[i])) for i in np.flatnonzero((new >= 0) & (new != cur))]
                if removed:
                    core.disconnect(removed)
                try:
                    if added:
                        core.connect(added)
                except SwitchRefused as exc:
                    core.connect([(i, int(cur[i])) for i in removed])
                    raise RpcError("operation-failed", str(exc)) from None
        except RpcError:
            raise
        except Exception as exc:  # noqa: BLE001  e.g. the state file cannot be written
            raise RpcError("operation-failed", f"internal error ({type(exc).__name__})") from None


async def serve_netconf(core: SwitchCore, host: str = "127.0.0.1", port: int = 0, *,
                        credentials: Credentials | None = None, delay_ms: float = 0.0,
                        reply_filter=None, host_key=None, known_hosts=None, candidate: bool = True,
                        max_failures: int = 3, lockout_s: float = 30.0) -> ServerHandle:
    """Start the NETCONF-over-SSH front end of ``core`` on ``host:port``
    (0 = any free port) in the running event loop.  ``credentials`` is the
    one account accepted (default: from ``PERMNET_OCS_USER``/``..._PASSWORD``);
    ``delay_ms`` delays every reply; ``reply_filter(operation, xml) -> xml``
    rewrites replies (to emulate a misbehaving device in tests).

    ``host_key``: an ``asyncssh`` private key, or a file holding one (created
    with a new Ed25519 key if missing); default a new key per call.
    ``known_hosts``: a file to which the line ``[host]:port <key>`` is added
    (so a client can pin the key).  ``candidate``: offer the candidate
    datastore and confirmed commit.  ``max_failures`` failed logins in a row
    from one peer lock it out for ``lockout_s`` seconds."""
    import asyncssh
    require(0 <= delay_ms <= 60_000, "delay_ms must be in 0..60000")
    srv = _NetconfServer(core, emulator_credentials(credentials, "NETCONF"), delay_ms / 1000.0, reply_filter,
                         candidate=candidate, max_failures=max_failures, lockout_s=lockout_s)
    key = load_host_key(host_key)
    if known_hosts is not None:
        known_host_lines(known_hosts)           # refused before the port is bound, not after
    acceptor = await asyncssh.create_server(
        srv.ssh_server_factory, host, port, server_host_keys=[key], process_factory=srv.process,
        encoding=None, allow_pty=False, x11_forwarding=False, agent_forwarding=False,
        login_timeout=30)
    bound = acceptor.sockets[0].getsockname()[1]
    srv.handle = ServerHandle(acceptor, bound, host, "netconf")
    srv.handle.host_key = key
    if known_hosts is not None:
        add_known_host(known_hosts, host, bound, key.export_public_key("openssh").decode().split()[:2])
    return srv.handle


def load_host_key(host_key=None):
    """An asyncssh private key: ``host_key`` itself, read from the file
    ``host_key`` (a new Ed25519 key is written there, mode 600, if the file
    does not exist), or a new key in memory (``None``)."""
    import asyncssh
    if host_key is None:
        return asyncssh.generate_private_key("ssh-ed25519")
    if not isinstance(host_key, (str, os.PathLike)):
        return host_key
    path = Path(host_key)
    if path.exists():
        try:
            return asyncssh.read_private_key(str(path))
        except (OSError, ValueError, asyncssh.KeyImportError):
            raise PermnetError(f"host key {path}: not an OpenSSH private key") from None
    key = asyncssh.generate_private_key("ssh-ed25519")
    from permnet.fileio import atomic_write
    atomic_write(path, key.export_private_key("openssh").decode())
    os.chmod(path, 0o600)
    return key


def known_host_name(host: str, port: int) -> str:
    """The host field of a known_hosts line (OpenSSH: ``[host]:port`` unless port 22)."""
    return host if int(port) == 22 else f"[{host}]:{int(port)}"


def known_host_lines(path) -> list[str]:
    """The lines of a known_hosts file (none if it does not exist); one that
    cannot be read as text is refused in one line."""
    p = Path(path)
    if not p.exists():
        return []
    try:
        return p.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise PermnetError(f"known hosts {p}: not a known_hosts file (not UTF-8 text)") from None
    except OSError as exc:
        raise PermnetError(f"known hosts {p}: {exc.strerror or type(exc).__name__}") from None


def add_known_host(path, host: str, port: int, key: list[str]) -> None:
    """Add (or replace) the line ``[host]:port keytype base64`` in a known_hosts file."""
    from permnet.fileio import atomic_write
    name = known_host_name(host, port)
    p = Path(path)
    lines = known_host_lines(p)
    lines = [ln for ln in lines if ln.split(" ", 1)[0] != name]
    lines.append(f"{name} {key[0]} {key[1]}")
    atomic_write(p, "\n".join(lines) + "\n")


# ------------------------------------------------------------------ driver
def _quiet_library_loggers() -> None:
    """paramiko and ncclient log (with tracebacks) from their reader threads
    when a device closes a session; with no handler configured Python's
    last-resort handler would print those to stderr.  Errors reach the caller
    as one-line :class:`DeviceError` instead; an application that configures
    logging still sees the records."""
    for name in ("paramiko", "ncclient"):
        lg = logging.getLogger(name)
        if not any(isinstance(h, logging.NullHandler) for h in lg.handlers):
            lg.addHandler(logging.NullHandler())


def _fast_ncclient_sends() -> None:
    """ncclient's session thread sends a queued request only between two
    ``select`` calls of ``TICK`` = 0.1 s on the socket, so every RPC waits
    up to 0.1 s before it leaves (measured: 100 ms per get-config against
    the emulator, 10 ms with this).  A tick of 10 ms costs 100 idle wake-ups a
    second per open session."""
    import ncclient.transport.session as ncsession
    ncsession.TICK = min(getattr(ncsession, "TICK", 0.1), NCCLIENT_TICK_S)


@register
class NetconfDriver(Driver):
    """NETCONF session (``ncclient``) to a switch with the Polatis
    ``optical-switch`` model.  ``read`` is a ``get-config`` of
    ``cross-connects``, ``connect`` an ``edit-config`` merge of pairs,
    ``disconnect`` an ``edit-config`` with ``operation="delete"`` pairs; the
    port count comes from ``port-config`` (``get``), which must list exactly
    the ports ``1..2N``.  Every ncclient error becomes a :class:`DeviceError`
    naming the device and the operation (never the credentials).

    Host key: checked against ``credentials.known_hosts`` (default
    ``$PERMNET_KNOWN_HOSTS``, else ``~/.ssh/known_hosts``) before the password
    is sent; an unknown key fails unless ``credentials.trust_new`` (then the
    key is recorded in that file), a changed key always fails.

    Transaction (RFC 6241): before its first edit the driver locks
    ``running`` (and ``candidate``); when the device offers ``:candidate``
    and ``:confirmed-commit`` the edits go to the candidate, and the next
    ``read``/``settling`` first sends ``<commit><confirmed/>`` with
    ``confirm_timeout`` seconds, so running changes but reverts by itself
    unless confirmed.  A clean end of the ``with`` block reads running back
    and confirms (``<commit/>``) only if it equals the committed candidate,
    else cancels the commit (the device reverts at once); an exception in the
    block cancels it; a controller that dies leaves the device to revert
    within ``confirm_timeout``.  The locks end with the session."""

    protocol = "netconf"
    default_port = DEFAULT_PORT
    batch = 256

    def __init__(self, address: str, *, confirm_timeout: float = 60.0, **kw):
        super().__init__(address, **kw)
        require(1 <= confirm_timeout <= 86400, f"confirm timeout {confirm_timeout:g} s not in 1..86400")
        self.confirm_timeout = int(round(confirm_timeout))
        self.m = None
        self._size: int | None = None
        self._secret: str | None = None
        self.use_candidate = False
        self._locked: list[str] = []
        self._dirty = False                     # edits in the candidate not yet committed
        self._committed: np.ndarray | None = None   # the candidate of a confirmed commit awaiting its confirm

    def fail(self, what: str):
        if self._secret:
            what = what.replace(self._secret, "***")
        return super().fail(what)

    # --- session
    def _host_key_policy(self, creds: Credentials):
        """(file, trust_new, pinned base64 key or None) for this device."""
        path = Path(creds.known_hosts or os.environ.get("PERMNET_KNOWN_HOSTS") or
                    os.path.expanduser("~/.ssh/known_hosts"))
        pinned = None
        if path.exists():
            import paramiko
            try:
                keys = paramiko.HostKeys(str(path))
            except (OSError, paramiko.SSHException, ValueError) as exc:
                raise self.fail(f"known hosts {path}: unreadable ({type(exc).__name__})") from None
            for name in (known_host_name(self.host, self.port), self.host if self.port == 22 else None):
                entry = keys.lookup(name) if name else None
                if entry:
                    pinned = next(iter(entry.values())).get_base64()
                    break
        elif not creds.trust_new and creds.known_hosts:
            raise self.fail(f"known hosts {path}: no such file (give --trust-new-host-key to create it)")
        return path, creds.trust_new, pinned

    def open(self) -> None:
        from ncclient import manager
        from ncclient.transport.errors import AuthenticationError, SSHError, SSHUnknownHostError
        _quiet_library_loggers()
        _fast_ncclient_sends()
        creds = self.credentials or Credentials.load()
        if creds is None:
            raise self.fail("no credentials (set PERMNET_OCS_USER and PERMNET_OCS_PASSWORD)")
        self._secret = creds.password or None
        known, trust_new, pinned = self._host_key_policy(creds)
        seen: dict = {}
        try:
            sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        except ConnectionRefusedError:
            raise self.fail("connection refused") from None
        except socket.timeout:
            raise self.fail(f"no connection within {self.timeout:g} s") from None
        except OSError as exc:
            raise self.fail(f"cannot connect ({exc.strerror or type(exc).__name__})") from None
        # paramiko's banner/auth waits are not tied to ``timeout``: run the
        # session set-up in a thread, bounded here; on expiry shut the socket,
        # which ends paramiko's reader at once.
        result: dict = {}

        def unknown_host(host, fingerprint):
            seen["fingerprint"] = fingerprint
            return trust_new and pinned is None

        def setup():
            try:
                result["m"] = manager.connect(host=self.host, port=self.port, sock=sock, username=creds.user,
                                              password=creds.password, hostkey_verify=True,
                                              hostkey_b64=pinned, unknown_host_cb=unknown_host,
                                              ssh_config=None, look_for_keys=False, allow_agent=False,
                                              timeout=self.timeout)
            except BaseException as exc:  # noqa: BLE001  handed to the caller's thread
                result["exc"] = exc

        worker = threading.Thread(target=setup, name=f"netconf-open-{self.name}", daemon=True)
        worker.start()
        worker.join(2 * self.timeout)
        if worker.is_alive():
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
            worker.join(1.0)
            raise self.fail(f"no SSH/NETCONF session within {2 * self.timeout:g} s")
        exc = result.get("exc")
        if exc is not None:
            sock.close()
            if isinstance(exc, SSHUnknownHostError):
                fp = seen.get("fingerprint", "?")
                if pinned is not None:
                    raise self.fail(f"host key CHANGED (MD5 {fp}) from the one in {known}; refusing to log "
                                    f"in (remove the old line if the change is expected)") from None
                raise self.fail(f"unknown host key (MD5 {fp}), not in {known}; pin it with --known-hosts "
                                f"FILE or accept it once with --trust-new-host-key") from None
            if isinstance(exc, AuthenticationError):
                raise self.fail("login denied") from None
            if isinstance(exc, SSHError):
                raise self.fail("SSH session failed before NETCONF started (connection closed or not SSH)") \
                    from None
            raise self.fail(f"cannot open a NETCONF session ({type(exc).__name__})") from None
        self.m = result["m"]
        self.m.timeout = self.timeout
        if pinned is None and trust_new:
            key = self.m._session._transport.get_remote_server_key()
            try:
                add_known_host(known, self.host, self.port, [key.get_name(), key.get_base64()])
            except OSError as exc:
                self.close()
                raise self.fail(f"cannot record the host key in {known}: {exc.strerror}") from None
        caps = self.m.server_capabilities
        self.use_candidate = ":candidate" in caps and ":confirmed-commit" in caps

    def close(self) -> None:
        if self.m is None:
            return
        m, self.m = self.m, None
        try:
            if m.connected:
                m.timeout = min(self.timeout, 2.0)
                m.close_session()
        except Exception:  # noqa: BLE001  closing a broken session
            pass
        finally:
            try:
                m._session.close()
            except Exception:  # noqa: BLE001
                pass

    def __exit__(self, exc_type, *rest):
        try:
            if self.m is not None and (self._dirty or self._committed is not None):
                if exc_type is None:
                    self.finish()
                else:
                    self._cancel()
        finally:
            self.close()

    # --- transaction
    def _lock(self) -> None:
        """Lock the datastores this session writes (once, before the first edit)."""
        if self._locked:
            return
        for store in (("candidate", "running") if self.use_candidate else ("running",)):
            self._rpc(f"lock {store}", self.m.lock, target=store)
            self._locked.append(store)

    def _commit_pending(self) -> None:
        """Send the candidate's edits to running as a confirmed commit."""
        if not self._dirty:
            return
        self._committed = self._datastore_plane("candidate")
        self._rpc("commit confirmed", self.m.commit, confirmed=True, timeout=str(self.confirm_timeout))
        self._dirty = False

    def finish(self) -> None:
        """Commit what is pending, read running back and confirm the commit if
        it holds exactly the committed candidate; else cancel the commit (the
        device reverts) and raise."""
        self._commit_pending()
        if self._committed is None:
            return
        back = self._datastore_plane("running")
        if not np.array_equal(back, self._committed):
            self._cancel()
            raise self.fail("running differs from the committed candidate after the confirmed commit; "
                            "commit cancelled, the device reverted")
        self._rpc("commit (confirming)", self.m.commit)
        self._committed = None

    def _cancel(self) -> None:
        """Best effort: undo uncommitted edits and a commit awaiting its confirm."""
        try:
            if self._committed is not None:
                self._rpc("cancel-commit", self.m.cancel_commit)
            elif self._dirty:
                self._rpc("discard-changes", self.m.discard_changes)
        except DeviceError:
            pass
        self._committed, self._dirty = None, False

    # --- one exchange
    def _rpc(self, what: str, call, *args, **kw) -> ET.Element:
        from ncclient.operations.errors import TimeoutExpiredError
        from ncclient.operations.rpc import RPCError
        from ncclient.transport.errors import TransportError
        if self.m is None:
            raise self.fail("not connected")
        try:
            reply = call(*args, **kw)
        except RPCError as exc:
            msg = " ".join((exc.message or "").split())
            raise self.fail(f"{what} denied ({exc.tag}{': ' + msg if msg else ''})") from None
        except TimeoutExpiredError:
            self._abandon()
            raise self.fail(f"no reply to {what} within {self.timeout:g} s") from None
        except TransportError:
            self._abandon()
            raise self.fail(f"connection lost during {what}") from None
        except Exception as exc:  # noqa: BLE001  ncclient parse/operation errors
            self._abandon()
            detail = " ".join(str(exc).split())[:80]
            raise self.fail(f"malformed reply to {what} ({type(exc).__name__}"
                            f"{': ' + detail if detail else ''})") from None
        if not getattr(reply, "ok", False):
            raise self.fail(f"{what} denied ({getattr(reply.error, 'tag', '?')})")
        try:
            root = ET.fromstring(reply.xml.encode() if isinstance(reply.xml, str) else reply.xml)
        except ET.ParseError:
            raise self.fail(f"malformed reply to {what}: not XML") from None
        if root.tag != _q(NC, "rpc-reply"):
            raise self.fail(f"malformed reply to {what}: root {root.tag!r}")
        return root

    def _abandon(self) -> None:
        if self.m is not None:
            m, self.m = self.m, None
            try:
                m._session.close()
            except Exception:  # noqa: BLE001
                pass

    def _data(self, what: str, root: ET.Element) -> ET.Element:
        data = root.find(_q(NC, "data"))
        if data is None:
            raise self.fail(f"malformed reply to {what}: no <data>")
        return data

    # --- state
    def size(self) -> int:
        if self._size is None:
            flt = ("subtree", f'<port-config xmlns="{OPSW}"/>')
            data = self._data("get", self._rpc("get", self.m.get, filter=flt))
            ids = []
            for p in data.iter(_q(OPSW, "port")):
                try:
                    ids.append(int((p.findtext(_q(OPSW, "port-id")) or "").strip()))
                except ValueError:
                    raise self.fail("malformed reply to get: port-id is not a number") from None
            n = len(ids) // 2
            if n < 2 or sorted(ids) != list(range(1, 2 * n + 1)):
                raise self.fail(f"malformed reply to get: port-config lists {len(ids)} ports, not 1..2N")
            self._size = n
        return self._size

    def _datastore_plane(self, source: str) -> np.ndarray:
        n = self.size()
        flt = ("subtree", f'<cross-connects xmlns="{OPSW}"/>')
        data = self._data("get-config", self._rpc("get-config", self.m.get_config, source=source, filter=flt))
        try:
            pairs = [(int((pair.findtext(_q(OPSW, "ingress")) or "").strip()),
                      int((pair.findtext(_q(OPSW, "egress")) or "").strip()))
                     for pair in data.iter(_q(OPSW, "pair"))]
            return plane_from_labels(n, pairs)
        except ValueError as exc:
            raise self.fail(f"malformed reply to get-config: {str(exc) or 'bad pair'}") from None

    def read(self) -> np.ndarray:
        self._commit_pending()
        return self._datastore_plane("running")

    def wait_settled(self, seconds: float, poll: float = 0.05) -> None:
        """As :meth:`Driver.wait_settled`; the confirmed commit this starts
        lasts at least the wait plus the read-back and the confirm, so a long
        ``--settle-s`` cannot let the device revert while permnet still works."""
        if self._dirty:
            self.confirm_timeout = max(self.confirm_timeout, int(seconds + 4 * self.timeout) + 30)
        super().wait_settled(seconds, poll)

    def settling(self) -> list[int]:
        """0-based ingresses whose cross-connect is not yet established
        (``get``: pair ``status`` ``tuning``)."""
        self._commit_pending()
        n = self.size()
        flt = ("subtree", f'<cross-connects xmlns="{OPSW}"/>')
        data = self._data("get", self._rpc("get", self.m.get, filter=flt))
        out = []
        for pair in data.iter(_q(OPSW, "pair")):
            if (pair.findtext(_q(OPSW, "status")) or "").strip() == "tuning":
                try:
                    out.append(to_plane(n, int((pair.findtext(_q(OPSW, "ingress")) or "").strip()))[0])
                except ValueError:
                    raise self.fail("malformed reply to get: bad ingress") from None
        return out

    def _edit(self, body: str) -> None:
        self._lock()
        config = (f'<nc:config xmlns:nc="{NC}"><cross-connects xmlns="{OPSW}">{body}</cross-connects>'
                  f"</nc:config>")
        target = "candidate" if self.use_candidate else "running"
        self._rpc("edit-config", self.m.edit_config, target=target, config=config)
        self._dirty = self.use_candidate

    def connect(self, pairs) -> None:
        n = self.size()
        pairs = [(int(i), int(e)) for i, e in pairs]
        for i, e in pairs:
            require(0 <= i < n and 0 <= e < n, f"{self.name}: pair ({i}, {e}) outside 0..{n - 1}")
        for k in range(0, len(pairs), self.batch):
            self._edit("".join("<pair><ingress>%d</ingress><egress>%d</egress></pair>" % to_device(n, i, e)
                               for i, e in pairs[k:k + self.batch]))

    def disconnect(self, ingresses) -> None:
        n = self.size()
        ingresses = [int(i) for i in ingresses]
        for i in ingresses:
            require(0 <= i < n, f"{self.name}: ingress {i} outside 0..{n - 1}")
        for k in range(0, len(ingresses), self.batch):
            self._edit("".join(f'<pair nc:operation="delete" xmlns:nc="{NC}"><ingress>{i + 1}</ingress></pair>'
                               for i in ingresses[k:k + self.batch]))
