"""Run emulated switches: one protocol front end (SCPI, TL1, NETCONF) over a
:class:`~permnet.ocs.switchcore.SwitchCore`, in a background thread with its
own event loop, on loopback.  Used by ``permnet ocs emulate``, by the tests
as a fixture and by the benchmark.

    with Emulator("tl1", SwitchCore(16), credentials=creds) as emu:
        with open_driver("tl1", emu.address, credentials=creds) as d: ...

Front ends are found by protocol name in :data:`FRONTENDS` (``module:function``
of a coroutine ``serve(core, host, port, **opts) -> ServerHandle``).
"""

from __future__ import annotations

import asyncio
import importlib
import ipaddress
import threading

from permnet.gen.errors import PermnetError, require
from permnet.ocs.switchcore import SwitchCore

__all__ = ["FRONTENDS", "frontend", "Emulator", "parse_listen"]

FRONTENDS = {
    "scpi": "permnet.ocs.scpi:serve_scpi",
    "tl1": "permnet.ocs.tl1:serve_tl1",
    "netconf": "permnet.ocs.netconf:serve_netconf",
}


def frontend(protocol: str):
    """The ``serve_*`` coroutine function of ``protocol``."""
    require(protocol in FRONTENDS, f"unknown protocol {protocol!r}; choose from {', '.join(FRONTENDS)}")
    module, _, func = FRONTENDS[protocol].partition(":")
    try:
        return getattr(importlib.import_module(module), func)
    except (ImportError, AttributeError):
        raise PermnetError(f"the {protocol} emulator is not available in this build") from None


def parse_listen(text: str, allow_remote: bool = False) -> tuple[str, int]:
    """``HOST:PORT`` (``PORT`` alone means 127.0.0.1); only loopback unless ``allow_remote``."""
    host, _, port = text.rpartition(":")
    host = host or "127.0.0.1"
    try:
        port_n = int(port)
    except ValueError:
        raise PermnetError(f"--listen {text!r}: expected HOST:PORT") from None
    require(0 <= port_n <= 65535, f"--listen {text!r}: port out of range")
    if not allow_remote:
        try:
            loop = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loop = host == "localhost"
        require(loop, f"--listen {text!r}: the emulator binds loopback only (127.0.0.1)")
    return host, port_n


class Emulator:
    """One emulated switch; ``start()``/``stop()`` or ``with``.  ``restart()``
    drops every session and starts a new front end over the same core (a
    management-plane restart: the light paths stay)."""

    def __init__(self, protocol: str, core: SwitchCore, host: str = "127.0.0.1", port: int = 0, **opts):
        self.protocol, self.core, self.host, self.requested_port = protocol, core, host, port
        self.serve = frontend(protocol)
        if protocol == "netconf" and opts.get("host_key") is None:
            from permnet.ocs.netconf import load_host_key
            opts["host_key"] = load_host_key(None)       # one key for the emulator's life (restarts keep it)
        self.opts = opts
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread: threading.Thread | None = None
        self.handle = None

    @property
    def port(self) -> int:
        return self.handle.port

    @property
    def address(self) -> str:
        return f"{self.host}:{self.handle.port}"

    def start(self, timeout: float = 10.0) -> "Emulator":
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True, name=f"ocs-{self.protocol}")
        self.thread.start()
        fut = asyncio.run_coroutine_threadsafe(
            self.serve(self.core, self.host, self.requested_port or 0, **self.opts), self.loop)
        try:
            self.handle = fut.result(timeout)
        except OSError as exc:
            self._halt(timeout)
            raise PermnetError(f"cannot listen on {self.host}:{self.requested_port}: {exc.strerror}") from None
        except Exception:
            self._halt(timeout)
            raise
        if not self.requested_port:
            self.requested_port = self.handle.port     # a restart comes back on the same port
        return self

    def _halt(self, timeout: float) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout)
        if not self.thread.is_alive():
            self.loop.close()
        self.loop = self.thread = None

    def stop(self, timeout: float = 5.0) -> None:
        if self.loop is None:
            return

        async def down():
            self.handle.close()
            await self.handle.wait_closed(timeout / 2)
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            if tasks:
                await asyncio.wait(tasks, timeout=timeout / 4)

        try:
            asyncio.run_coroutine_threadsafe(down(), self.loop).result(timeout)
        except Exception:  # noqa: BLE001  bounded shutdown whatever state the loop is in
            pass
        finally:
            self._halt(timeout)

    def restart(self) -> None:
        self.stop()
        self.start()

    def __enter__(self) -> "Emulator":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def serve_until(protocol: str, ports: int, listen: str, *, state=None, delay_ms: float = 0.0,
                settle_ms: float = 0.0, fault: str | None = None, seconds: float = 3600.0, credentials=None,
                ready=None, host_key=None, known_hosts=None) -> None:
    """Run one emulator until ``seconds`` have passed or the process is
    interrupted (``permnet ocs emulate``); ``ready(emulator)`` is called once it listens."""
    import time

    host, port = parse_listen(listen)
    core = SwitchCore(ports, settle_s=settle_ms / 1000, state=state, faults=fault)
    opts = {"delay_ms": delay_ms}
    if protocol != "scpi" or credentials is not None:
        opts["credentials"] = credentials
    if protocol == "netconf":
        opts.update(host_key=host_key, known_hosts=known_hosts)
    else:
        require(host_key is None and known_hosts is None, "--host-key and --known-hosts are for --protocol netconf")
    with Emulator(protocol, core, host, port, **opts) as emu:
        if ready is not None:
            ready(emu)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))
