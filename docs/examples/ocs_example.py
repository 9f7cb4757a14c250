"""TL1 and NETCONF emulators over one 4-port switch, driven by permnet's drivers (docs/howto/tl1.md)."""
import asyncio
import socket

from permnet.ocs.driver import Credentials
from permnet.ocs.netconf import NetconfDriver, serve_netconf
from permnet.ocs.switchcore import SwitchCore
from permnet.ocs.tl1 import Tl1Driver, serve_tl1

creds = Credentials.load()           # PERMNET_OCS_USER / PERMNET_OCS_PASSWORD


def session(driver_cls, address):
    with driver_cls(address, credentials=creds, timeout=5) as d:
        d.connect([(0, 2), (1, 0), (3, 3)])   # 0-based (ingress, egress) of the plane model
        d.disconnect([1])
        return d.size(), d.read().tolist()


def tl1_wire(address):
    """The same switch seen on the TL1 wire (Polatis numbering, egress = N + 1 .. 2N)."""
    host, port = address.split(":")
    with socket.create_connection((host, int(port)), timeout=5) as s:
        s.sendall(f'ACT-USER::{creds.user}:1::"{creds.password}";RTRV-PATCH:::2;'.encode())
        text = b""
        while text.count(b";") < 2:
            text += s.recv(4096)
    return text.decode().replace("\r", "").rsplit("\n\n", 1)[-1]   # the RTRV-PATCH response


async def main():
    core = SwitchCore(4, state="ocs-state.json")   # the light paths survive restarts
    for serve, driver_cls in ((serve_tl1, Tl1Driver), (serve_netconf, NetconfDriver)):
        core.clear()
        server = await serve(core, "127.0.0.1", 0, credentials=creds)   # 0: any free port
        print(server.protocol, await asyncio.to_thread(session, driver_cls, server.address))
        if server.protocol == "tl1":
            print(await asyncio.to_thread(tl1_wire, server.address))
        server.close()
        await server.wait_closed()

asyncio.run(main())
