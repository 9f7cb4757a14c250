"""The emulated switches driven by clients we did not write: pyvisa with the
pyvisa-py backend for SCPI (``TCPIP::127.0.0.1::PORT::SOCKET``), ncclient
and scrapli-netconf for NETCONF (hello, get-config, edit-config, lock,
commit).  Every client call is bounded: scrapli runs in a thread joined with
a time-out, since a session the server ends is polled forever by its
paramiko transport."""

import threading

import pytest
from ocs_helpers import CREDS, Emulator

from permnet.ocs.netconf import NC, OPSW, serve_netconf
from permnet.ocs.scpi import serve_scpi
from permnet.ocs.switchcore import SwitchCore


def bounded(fn, seconds=20.0):
    """Run ``fn()`` in a thread; its result, or a test failure after ``seconds``."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001  re-raised in the test's thread
            out["exc"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"client did not finish within {seconds} s"
    if "exc" in out:
        raise out["exc"]
    return out["value"]


# ------------------------------------------------------------------ SCPI / pyvisa
def test_pyvisa_long_and_short_forms_and_ranges():
    pyvisa = pytest.importorskip("pyvisa")
    pytest.importorskip("pyvisa_py")
    core = SwitchCore(8)
    with Emulator(serve_scpi, core) as emu:
        def session():
            rm = pyvisa.ResourceManager("@py")
            inst = rm.open_resource(f"TCPIP::127.0.0.1::{emu.port}::SOCKET", read_termination="\r\n",
                                    write_termination="\n", timeout=3000)
            try:
                out = {"idn": inst.query("*IDN?")}
                inst.write(":OXC:SWITch:CONNect:ADD (@1:3),(@12:10)")     # ranges, one counting down
                out["err1"] = inst.query(":SYSTem:ERRor:NEXT?")
                out["long"] = inst.query(":OXC:SWITch:CONNect:STATe?")
                out["short"] = inst.query(":oxc:swit:conn:stat?")
                out["mixed"] = inst.query("oxc:SWITCH:connect:state?")
                inst.write(":OXC:SWITch:CONNect:SUBtract (@2:3)")
                out["port"] = inst.query(":OXC:SWITch:CONNect:PORT? 1")
                inst.write(":OXC:SWITC:CONN:ADD (@4),(@13)")                 # not a form of SWITch
                out["err2"] = inst.query(":SYST:ERR?")
                return out
            finally:
                inst.close()
                rm.close()

        out = bounded(session)
    assert out["idn"].startswith("PERMNET,")
    assert out["err1"] == '0,"No error"'
    assert out["long"] == out["short"] == out["mixed"] == "(@1,2,3),(@12,11,10)"
    assert out["port"] == "12"
    assert out["err2"].startswith("-113,")
    assert core.snapshot().tolist() == [3, -1, -1, -1, -1, -1, -1, -1]


# ------------------------------------------------------------------ NETCONF
EDIT = (f'<config xmlns="{NC}"><cross-connects xmlns="{OPSW}">'
        "<pair><ingress>1</ingress><egress>10</egress></pair>"
        "<pair><ingress>2</ingress><egress>9</egress></pair></cross-connects></config>")


def test_scrapli_netconf_hello_get_config_edit_lock_commit():
    pytest.importorskip("scrapli_netconf")
    from scrapli_netconf.driver import NetconfDriver as Scrapli
    core = SwitchCore(8)
    with Emulator(serve_netconf, core, credentials=CREDS) as emu:
        def session():
            conn = Scrapli(host="127.0.0.1", port=emu.port, auth_username=CREDS.user,
                           auth_password=CREDS.password, auth_strict_key=False, transport="paramiko",
                           timeout_socket=5, timeout_transport=5, timeout_ops=5)
            conn.open()
            try:
                out = {"version": conn.netconf_version.value, "caps": list(conn.server_capabilities)}
                out["empty"] = conn.get_config(source="running")
                for step in (lambda: conn.lock(target="candidate"), lambda: conn.lock(target="running"),
                             lambda: conn.edit_config(config=EDIT, target="candidate")):
                    r = step()
                    assert not r.failed, r.result
                out["before_commit"] = core.snapshot().tolist()
                out["commit"] = conn.commit()
                out["after"] = conn.get_config(source="running")
                conn.unlock(target="running")
                conn.unlock(target="candidate")
                return out
            finally:
                conn.close()

        out = bounded(session)
    assert out["version"] == "1.1"
    assert "urn:ietf:params:netconf:capability:confirmed-commit:1.1" in out["caps"]
    assert not out["empty"].failed and "<pair>" not in out["empty"].result
    assert out["before_commit"] == [-1] * 8                       # edits stay in the candidate
    assert not out["commit"].failed
    assert core.snapshot().tolist() == [1, 0] + [-1] * 6
    assert "<ingress>1</ingress>" in out["after"].result and "<egress>10</egress>" in out["after"].result


def test_ncclient_the_same_exchange():
    from ncclient import manager
    core = SwitchCore(8)
    with Emulator(serve_netconf, core, credentials=CREDS) as emu:
        def session():
            with manager.connect(host="127.0.0.1", port=emu.port, username=CREDS.user, password=CREDS.password,
                                 hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=5) as m:
                with m.locked("candidate"), m.locked("running"):
                    m.edit_config(target="candidate", config=EDIT)
                    m.commit()
                return m.get_config(source="running").data_xml

        xml = bounded(session)
    assert core.snapshot().tolist() == [1, 0] + [-1] * 6
    assert "<egress>9</egress>" in xml


@pytest.mark.parametrize("base11", [False, True])
def test_whitespace_before_a_message_is_not_an_error(base11):
    """scrapli sends ``\\n<?xml ...?>`` as its hello and a newline after each
    ``]]>]]>``: the emulator's XML parser refused that hello and closed the
    session, which scrapli's paramiko transport then polled forever."""
    import asyncio

    import asyncssh
    core = SwitchCore(8)
    with Emulator(serve_netconf, core, credentials=CREDS) as emu:
        async def run():
            async with asyncssh.connect("127.0.0.1", emu.port, username=CREDS.user, password=CREDS.password,
                                        known_hosts=None, client_keys=None, agent_path=None) as conn:
                w, r, _ = await conn.open_session(subsystem="netconf", encoding=None)
                buf = b""
                while b"]]>]]>" not in buf:
                    buf += await r.read(65536)
                cap = "urn:ietf:params:netconf:base:1." + ("1" if base11 else "0")
                w.write(f'\n<?xml version="1.0" encoding="utf-8"?>\n  <hello xmlns="{NC}"><capabilities>'
                        f"<capability>{cap}</capability></capabilities></hello>]]>]]>".encode() + b"\n")
                rpc = f'\n<rpc xmlns="{NC}" message-id="7"><get-config><source><running/></source>' \
                      f"</get-config></rpc>".encode()
                w.write(b"#%d\n%s\n##\n" % (len(rpc), rpc) if base11 else rpc + b"]]>]]>")
                reply = b""
                end = b"\n##\n" if base11 else b"]]>]]>"
                while end not in reply:
                    data = await r.read(65536)
                    assert data, "session closed"
                    reply += data
                return reply.decode()

        reply = asyncio.run(asyncio.wait_for(run(), 10))
    assert 'message-id="7"' in reply and "<data>" in reply
