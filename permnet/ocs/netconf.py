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
account, a host key generated in memory per run; ``hello`` advertises
``base:1.0``, ``base:1.1`` and ``:writable-running``; after the hello
exchange the session uses chunked framing (RFC 6242 section 4.2) when both
sides advertise ``base:1.1``, else the ``]]>]]>`` end-of-message framing.
Operations: ``get-config`` (running), ``get``, ``edit-config`` (running;
``default-operation`` merge/replace/none; ``operation`` merge, replace,
create, delete, remove on ``cross-connects`` or a ``pair``), ``lock``,
``unlock``, ``close-session``.  Errors are ``rpc-error`` replies with the
RFC 6241 appendix A tags (``invalid-value``, ``data-exists``,
``data-missing``, ``operation-failed``, ``operation-not-supported``, ...).
An ``edit-config`` is all or nothing.

Faults (:class:`~permnet.ocs.switchcore.Faults`): ``refuse`` closes each new
SSH connection, ``drop`` closes the channel on the N-th ``edit-config``
before it acts, ``deny`` answers it with ``operation-failed``, ``freeze``
sleeps before handling it.
"""

from __future__ import annotations

import asyncio
import logging
import re
import socket
import threading
from xml.etree import ElementTree as ET
from xml.sax.saxutils import escape

import numpy as np

from permnet.gen.errors import require
from permnet.ocs.driver import Credentials, Driver, register
from permnet.ocs.frontend import ServerHandle, check_login, emulator_credentials, plane_from_labels, to_device, to_plane
from permnet.ocs.switchcore import SwitchCore, SwitchRefused

__all__ = ["serve_netconf", "NetconfDriver", "NC", "OPSW", "DEFAULT_PORT"]

DEFAULT_PORT = 830
NC = "urn:ietf:params:xml:ns:netconf:base:1.0"
OPSW = "http://www.polatis.com/yang/optical-switch"
BASE10 = "urn:ietf:params:netconf:base:1.0"
BASE11 = "urn:ietf:params:netconf:base:1.1"
CAPABILITIES = (BASE10, BASE11, "urn:ietf:params:netconf:capability:writable-running:1.0",
                f"{OPSW}?module=optical-switch")
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
    def __init__(self, tag: str, message: str, etype: str = "application"):
        super().__init__(message)
        self.tag, self.message, self.etype = tag, message, etype

    def xml(self) -> str:
        return (f"<rpc-error><error-type>{self.etype}</error-type><error-tag>{self.tag}</error-tag>"
                f"<error-severity>error</error-severity>"
                f"<error-message xml:lang=\"en\">{escape(self.message)}</error-message></rpc-error>")


class _NetconfServer:
    def __init__(self, core: SwitchCore, credentials: Credentials, delay_s: float, reply_filter=None):
        self.core, self.creds, self.delay_s, self.reply_filter = core, credentials, delay_s, reply_filter
        self.handle: ServerHandle | None = None
        self.session_id = 0

    # --- SSH side
    def ssh_server_factory(self):
        import asyncssh
        outer = self

        class _SSH(asyncssh.SSHServer):
            def connection_made(self, conn):
                self.conn = conn
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

            def validate_password(self, username, password):
                return check_login(outer.creds, username, password)

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
                     + "".join(f"<capability>{escape(c)}</capability>" for c in CAPABILITIES)
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
                name, reply = await self.dispatch(msg)
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
            try:
                process.exit(0)
            except Exception:  # noqa: BLE001
                pass

    @staticmethod
    def client_capabilities(msg: bytes) -> set[str] | None:
        try:
            root = ET.fromstring(msg)
        except ET.ParseError:
            return None
        if root.tag != _q(NC, "hello"):
            return None
        caps = {(c.text or "").strip() for c in root.iter(_q(NC, "capability"))}
        return caps if BASE10 in caps or BASE11 in caps else None

    # --- RPCs
    async def dispatch(self, msg: bytes) -> tuple[str, str]:
        try:
            rpc = ET.fromstring(msg)
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
                self.check_source(op)
                return name, self.reply(attrs, self.data(op, ("cross-connects",)))
            if name == "get":
                return name, self.reply(attrs, self.data(op, ("cross-connects", "port-config"), status=True))
            if name == "edit-config":
                plan = self.parse_edit(op)
                fault = await self.core.faults.before_set()
                if fault == "drop":
                    return name, "drop"
                if fault == "deny":
                    raise RpcError("operation-failed", "command denied by the switch")
                try:
                    self.apply_edit(*plan)
                except RpcError:
                    raise
                except Exception as exc:  # noqa: BLE001  e.g. the state file cannot be written
                    raise RpcError("operation-failed", f"internal error ({type(exc).__name__})") from None
                return name, self.reply(attrs, "<ok/>")
            if name in ("close-session", "lock", "unlock"):
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

    def check_source(self, op) -> None:
        if self.datastore(op, "source") != "running":
            raise RpcError("invalid-value", "only the running datastore exists", "protocol")

    def data(self, op, tops: tuple[str, ...], status: bool = False) -> str:
        flt = op.find(_q(NC, "filter"))
        if flt is not None:
            if flt.get("type", "subtree") != "subtree":
                raise RpcError("operation-not-supported", "only subtree filters", "protocol")
            wanted = {c.tag for c in flt}
            tops = tuple(t for t in tops if _q(OPSW, t) in wanted)
        n = self.core.ports
        out = []
        if "cross-connects" in tops:
            row = self.core.snapshot()
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
        """(container operation, [(pair operation, ingress, egress|None)])
        with 0-based ports; validation of the request alone (no state)."""
        if self.datastore(op, "target") != "running":
            raise RpcError("invalid-value", "only the running datastore is writable", "protocol")
        dflt = op.find(_q(NC, "default-operation"))
        default = (dflt.text or "").strip() if dflt is not None else "merge"
        if default not in ("merge", "replace", "none"):
            raise RpcError("invalid-value", f"default-operation {default!r}", "protocol")
        cfg = op.find(_q(NC, "config"))
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
        return container, pairs

    @staticmethod
    def operation(node, inherited: str) -> str:
        op = node.get(OPERATION, inherited)
        if op not in ("merge", "replace", "create", "delete", "remove", "none"):
            raise RpcError("bad-attribute", f"operation {op!r}", "protocol")
        return op

    def apply_edit(self, container, pairs) -> None:
        core, n = self.core, self.core.ports
        with core.lock:
            cur = core.snapshot()
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


async def serve_netconf(core: SwitchCore, host: str = "127.0.0.1", port: int = 0, *,
                        credentials: Credentials | None = None, delay_ms: float = 0.0,
                        reply_filter=None) -> ServerHandle:
    """Start the NETCONF-over-SSH front end of ``core`` on ``host:port``
    (0 = any free port) in the running event loop.  ``credentials`` is the
    one account accepted (default: from ``PERMNET_OCS_USER``/``..._PASSWORD``);
    ``delay_ms`` delays every reply; ``reply_filter(operation, xml) -> xml``
    rewrites replies (to emulate a misbehaving device in tests)."""
    import asyncssh
    require(0 <= delay_ms <= 60_000, "delay_ms must be in 0..60000")
    srv = _NetconfServer(core, emulator_credentials(credentials, "NETCONF"), delay_ms / 1000.0, reply_filter)
    key = asyncssh.generate_private_key("ssh-ed25519")
    acceptor = await asyncssh.create_server(
        srv.ssh_server_factory, host, port, server_host_keys=[key], process_factory=srv.process,
        encoding=None, allow_pty=False, x11_forwarding=False, agent_forwarding=False,
        login_timeout=30)
    bound = acceptor.sockets[0].getsockname()[1]
    srv.handle = ServerHandle(acceptor, bound, host, "netconf")
    return srv.handle


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


@register
class NetconfDriver(Driver):
    """NETCONF session (``ncclient``) to a switch with the Polatis
    ``optical-switch`` model.  ``read`` is a ``get-config`` of
    ``cross-connects``, ``connect`` an ``edit-config`` merge of pairs,
    ``disconnect`` an ``edit-config`` with ``operation="delete"`` pairs; the
    port count comes from ``port-config`` (``get``), which must list exactly
    the ports ``1..2N``.  Every ncclient error becomes a :class:`DeviceError`
    naming the device and the operation (never the credentials)."""

    protocol = "netconf"
    default_port = DEFAULT_PORT
    batch = 256

    def __init__(self, address: str, **kw):
        super().__init__(address, **kw)
        self.m = None
        self._size: int | None = None
        self._secret: str | None = None

    def fail(self, what: str):
        if self._secret:
            what = what.replace(self._secret, "***")
        return super().fail(what)

    # --- session
    def open(self) -> None:
        from ncclient import manager
        from ncclient.transport.errors import AuthenticationError, SSHError
        _quiet_library_loggers()
        creds = self.credentials or Credentials.load()
        if creds is None:
            raise self.fail("no credentials (set PERMNET_OCS_USER and PERMNET_OCS_PASSWORD)")
        self._secret = creds.password or None
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

        def setup():
            try:
                result["m"] = manager.connect(host=self.host, port=self.port, sock=sock, username=creds.user,
                                              password=creds.password, hostkey_verify=False,
                                              look_for_keys=False, allow_agent=False, timeout=self.timeout)
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
            if isinstance(exc, AuthenticationError):
                raise self.fail("login denied") from None
            if isinstance(exc, SSHError):
                raise self.fail("SSH session failed before NETCONF started (connection closed or not SSH)") \
                    from None
            raise self.fail(f"cannot open a NETCONF session ({type(exc).__name__})") from None
        self.m = result["m"]
        self.m.timeout = self.timeout

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

    def read(self) -> np.ndarray:
        n = self.size()
        flt = ("subtree", f'<cross-connects xmlns="{OPSW}"/>')
        data = self._data("get-config", self._rpc("get-config", self.m.get_config, source="running", filter=flt))
        try:
            pairs = [(int((pair.findtext(_q(OPSW, "ingress")) or "").strip()),
                      int((pair.findtext(_q(OPSW, "egress")) or "").strip()))
                     for pair in data.iter(_q(OPSW, "pair"))]
            return plane_from_labels(n, pairs)
        except ValueError as exc:
            raise self.fail(f"malformed reply to get-config: {str(exc) or 'bad pair'}") from None

    def settling(self) -> list[int]:
        """0-based ingresses whose cross-connect is not yet established
        (``get``: pair ``status`` ``tuning``)."""
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
        config = (f'<nc:config xmlns:nc="{NC}"><cross-connects xmlns="{OPSW}">{body}</cross-connects>'
                  f"</nc:config>")
        self._rpc("edit-config", self.m.edit_config, target="running", config=config)

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
