"""NETCONF driver (ncclient) against the NETCONF-over-SSH front end of the
emulated switch: the state walked through edit-configs is checked against an
independent model and the core; the server's framing (1.0 and 1.1) and
edit-config operations are checked with a raw SSH client; faults and
malformed replies give one-line DeviceErrors."""

import asyncio
import re
import time

import asyncssh
import numpy as np
import pytest
from ocs_helpers import CREDS, KNOWN_HOSTS, WRONG, Emulator

from permnet.ocs.driver import DeviceError, open_driver
from permnet.ocs.netconf import NC, OPSW, NetconfDriver, serve_netconf
from permnet.ocs.switchcore import SwitchCore


def emulator(ports=16, **kw):
    opts = {k: kw.pop(k) for k in ("reply_filter", "delay_ms", "candidate", "max_failures", "lockout_s",
                                   "host_key", "known_hosts") if k in kw}
    return Emulator(serve_netconf, SwitchCore(ports, **kw), credentials=CREDS, **opts)


def driver(emu, **kw):
    kw.setdefault("timeout", 3.0)
    return NetconfDriver(emu.address, credentials=CREDS, **kw)


def plane(model, n):
    row = np.full(n, -1, np.int64)
    for i, e in model.items():
        row[i] = e
    return row


# ------------------------------------------------------------ a raw NETCONF client
EOM = b"]]>]]>"


async def _raw_session(port, rpcs, base11=False, timeout=8.0):
    """Hello exchange then one reply per rpc, speaking the framing by hand."""
    async def run():
        async with asyncssh.connect("127.0.0.1", port, username=CREDS.user, password=CREDS.password,
                                    known_hosts=None, client_keys=None, agent_path=None) as conn:
            w, r, _ = await conn.open_session(subsystem="netconf", encoding=None)
            buf = b""
            while EOM not in buf:
                buf += await r.read(65536)
            server_hello, _, buf = buf.partition(EOM)
            caps = "urn:ietf:params:netconf:base:1.0" + (
                "</capability><capability>urn:ietf:params:netconf:base:1.1" if base11 else "")
            w.write(f'<hello xmlns="{NC}"><capabilities><capability>{caps}</capability>'
                    f"</capabilities></hello>".encode() + EOM)
            replies = []
            for k, body in enumerate(rpcs):
                rpc = f'<rpc message-id="{k + 1}" xmlns="{NC}">{body}</rpc>'.encode()
                if base11:   # split into two chunks on purpose
                    h = len(rpc) // 2
                    w.write(b"\n#%d\n%s\n#%d\n%s\n##\n" % (h, rpc[:h], len(rpc) - h, rpc[h:]))
                    while not re.search(rb"\n##\n$", buf):
                        buf += await r.read(65536)
                    chunks = re.findall(rb"\n#(\d+)\n", buf)
                    assert chunks, buf
                    data, pos = b"", 0
                    while True:
                        m = re.compile(rb"\n#(\d+|#)\n").match(buf, pos)
                        if m.group(1) == b"#":
                            break
                        size = int(m.group(1))
                        data += buf[m.end():m.end() + size]
                        pos = m.end() + size
                    replies.append(data.decode())
                    buf = buf[m.end():]
                else:
                    w.write(rpc + EOM)
                    while EOM not in buf:
                        buf += await r.read(65536)
                    reply, _, buf = buf.partition(EOM)
                    replies.append(reply.decode())
            return server_hello.decode(), replies
    return await asyncio.wait_for(run(), timeout)


def raw(port, rpcs, base11=False):
    return asyncio.run(_raw_session(port, rpcs, base11))


def edit(body, default=None):
    d = f"<default-operation>{default}</default-operation>" if default else ""
    return (f'<edit-config><target><running/></target>{d}<config><cross-connects xmlns="{OPSW}">'
            f"{body}</cross-connects></config></edit-config>")


def pair(i, e=None, op=None):
    attr = f' xmlns:nc="{NC}" nc:operation="{op}"' if op else ""
    eg = f"<egress>{e}</egress>" if e is not None else ""
    return f"<pair{attr}><ingress>{i}</ingress>{eg}</pair>"


GET_CONFIG = "<get-config><source><running/></source></get-config>"


def pairs_in(xml):
    return [(int(a), int(b)) for a, b in re.findall(r"<ingress>(\d+)</ingress><egress>(\d+)</egress>", xml)]


# ------------------------------------------------------------------ roundtrip
def test_roundtrip_192_ports_walks_the_state():
    n, rng = 192, np.random.default_rng(11)
    with emulator(n) as emu, driver(emu) as d:
        assert d.size() == n and (d.read() == -1).all()
        model, perm = {}, rng.permutation(n)
        for chunk in np.array_split(rng.permutation(n), 4):
            pairs = [(int(i), int(perm[i])) for i in chunk]
            d.connect(pairs)
            model.update(pairs)
            got = d.read()
            assert (got == plane(model, n)).all() and (got == emu.core.snapshot()).all()
        gone = [int(i) for i in rng.choice(n, 50, replace=False)]
        d.disconnect(gone)
        for i in gone:
            del model[i]
        assert (d.read() == plane(model, n)).all()
        free_e = sorted(set(range(n)) - set(model.values()))
        new = list(zip(sorted(gone), free_e[1:] + free_e[:1]))
        d.connect(new)
        model.update(new)
        assert (d.read() == plane(model, n)).all()


@pytest.mark.parametrize("base11", [False, True])
def test_framing_and_edit_operations_on_the_wire(base11):
    """Polatis numbering (ingress 1..N, egress N+1..2N) and the RFC 6241
    operations, through hand-made 1.0 or chunked 1.1 frames."""
    n = 8
    with emulator(n) as emu:
        hello, replies = raw(emu.port, [
            edit(pair(1, 9) + pair(2, 10) + pair(3, 11)),                 # 1 merge
            edit(pair(4, 9)),                                             # 2 egress 9 in use
            edit(pair(2, 12)),                                            # 3 merge modifies ingress 2
            edit(pair(1, 13, "create")),                                  # 4 exists
            edit(pair(5, op="delete")),                                   # 5 missing
            edit(pair(5, op="remove") + pair(3, op="delete")),            # 6 ok
            edit(pair(9, 1)),                                             # 7 ports swapped
            GET_CONFIG,                                                   # 8
            edit(pair(6, 16) + pair(7, 15), default="replace"),           # 9 replace everything
            GET_CONFIG,                                                   # 10
            "<frobnicate/>",                                              # 11
            "<get><filter type=\"subtree\"><port-config xmlns=\"%s\"/></filter></get>" % OPSW,  # 12
        ], base11=base11)
        assert "urn:ietf:params:netconf:base:1.1" in hello and "optical-switch" in hello
        r = replies
        assert all(f'message-id="{k + 1}"' in x for k, x in enumerate(r))
        assert "<ok/>" in r[0]
        assert "<error-tag>operation-failed</error-tag>" in r[1]
        assert "<ok/>" in r[2]
        assert "<error-tag>data-exists</error-tag>" in r[3]
        assert "<error-tag>data-missing</error-tag>" in r[4]
        assert "<ok/>" in r[5]
        assert "<error-tag>invalid-value</error-tag>" in r[6]
        assert sorted(pairs_in(r[7])) == [(1, 9), (2, 12)]
        assert "<ok/>" in r[8]
        assert sorted(pairs_in(r[9])) == [(6, 16), (7, 15)]
        assert "operation-not-supported" in r[10]
        assert re.findall(r"<port-id>(\d+)</port-id>", r[11]) == [str(p) for p in range(1, 17)]
        assert emu.core.snapshot().tolist() == [-1] * 5 + [7, 6, -1]


# ------------------------------------------------------------------ login
def test_wrong_password_denied_without_leaking_it(monkeypatch):
    with emulator(8) as emu:
        with pytest.raises(DeviceError) as ei:
            NetconfDriver(emu.address, credentials=WRONG, timeout=3).open()
        msg = str(ei.value)
        assert "login denied" in msg and emu.address in msg and "\n" not in msg
        assert WRONG.password not in msg and CREDS.password not in msg
        monkeypatch.setenv("PERMNET_OCS_USER", CREDS.user)
        monkeypatch.setenv("PERMNET_OCS_PASSWORD", CREDS.password)
        monkeypatch.setenv("PERMNET_KNOWN_HOSTS", KNOWN_HOSTS)
        with open_driver("netconf", emu.address, timeout=3) as d:
            assert d.size() == 8


def test_refused_port_is_one_line():
    import socket
    s = socket.create_server(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with pytest.raises(DeviceError, match="connection refused"):
        NetconfDriver(f"127.0.0.1:{port}", credentials=CREDS, timeout=1).open()


# ------------------------------------------------------------------ faults
def test_fault_refuse(capfd):
    with emulator(8, faults="refuse") as emu:
        with pytest.raises(DeviceError, match="SSH session failed") as ei:
            driver(emu).open()
        assert "\n" not in str(ei.value)
        assert (emu.core.snapshot() == -1).all()
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize("candidate", [True, False])
def test_fault_drop_closes_the_session(candidate):
    # with a candidate datastore the first edit was never committed: the
    # dropped session leaves running as it was; without, the first edit is live
    expect = [-1] * 8 if candidate else [1] + [-1] * 7
    with emulator(8, faults="drop:2", candidate=candidate) as emu:
        with driver(emu) as d:
            assert d.use_candidate == candidate
            d.connect([(0, 1)])
            with pytest.raises(DeviceError, match="connection lost during edit-config"):
                d.connect([(1, 2)])
        assert emu.core.snapshot().tolist() == expect
        with driver(emu) as d:
            assert d.read().tolist() == expect


def test_fault_deny_is_an_rpc_error_and_changes_nothing():
    with emulator(8, faults="deny:1") as emu, driver(emu) as d:
        with pytest.raises(DeviceError, match=r"edit-config denied \(operation-failed"):
            d.connect([(0, 1), (2, 3)])
        assert (d.read() == -1).all()
        d.connect([(0, 1)])
        assert d.read().tolist() == [1] + [-1] * 7


def test_fault_freeze_longer_than_timeout():
    with emulator(8, faults="freeze:4") as emu:
        d = driver(emu, timeout=0.8)
        d.open()
        t = time.monotonic()
        with pytest.raises(DeviceError, match="no reply to edit-config within 0.8 s"):
            d.connect([(0, 1)])
        assert time.monotonic() - t < 3
        d.close()


def test_fault_freeze_shorter_than_timeout():
    with emulator(8, faults="freeze:0.5") as emu, driver(emu, timeout=3) as d:
        t = time.monotonic()
        d.connect([(0, 1)])
        assert time.monotonic() - t >= 0.4 and d.read()[0] == 1


def test_fault_misapply_is_visible_in_the_read_back_and_not_confirmed():
    with emulator(8, faults="misapply") as emu:
        with pytest.raises(DeviceError, match="differs from the committed candidate.*reverted"):
            with driver(emu) as d:
                d.connect([(0, 5), (1, 6)])
                got = d.read()
                assert got.tolist() == emu.core.snapshot().tolist()
                assert got[1] == 6 and got[0] not in (5, 6, -1)
        assert (emu.core.snapshot() == -1).all()         # cancel-commit put running back


# ------------------------------------------------------------------ malformed replies
def _filter(op, fn):
    return lambda name, xml: fn(xml) if name == op else xml


def _add_pairs(extra):
    return lambda x: x.replace("</cross-connects>", extra + "</cross-connects>").replace(
        f'<cross-connects xmlns="{OPSW}"/>', f'<cross-connects xmlns="{OPSW}">{extra}</cross-connects>')


@pytest.mark.parametrize("op,fn,match", [
    ("get-config", _add_pairs("<pair><ingress>1</ingress><egress>99</egress></pair>"), "not in 9..16"),
    ("get-config", _add_pairs("<pair><ingress>1</ingress><egress>9</egress></pair>"
                              "<pair><ingress>1</ingress><egress>10</egress></pair>"), "ingress 1 listed twice"),
    ("get-config", _add_pairs("<pair><ingress>2</ingress><egress>9</egress></pair>"
                              "<pair><ingress>3</ingress><egress>9</egress></pair>"), "egress port listed twice"),
    ("get-config", _add_pairs("<pair><ingress>x</ingress><egress>9</egress></pair>"), "malformed reply"),
    ("get-config", lambda x: x.replace("<data>", "<dater>").replace("</data>", "</dater>"), "no <data>"),
    ("get-config", lambda x: x.replace('message-id="', 'message-id="9'), "malformed reply to get-config.*message-id"),
    ("get-config", lambda x: "this is not xml <<<", "get-config"),
    ("get", lambda x: x.replace("<port><port-id>16</port-id></port>", ""), "port-config lists 15 ports"),
])
def test_malformed_replies(op, fn, match, capfd):
    with emulator(8, reply_filter=_filter(op, fn)) as emu:
        d = driver(emu, timeout=1.0)
        d.open()
        try:
            with pytest.raises(DeviceError, match=match) as ei:
                d.read()
            assert "\n" not in str(ei.value) and emu.address in str(ei.value)
        finally:
            d.close()
    assert "Traceback" not in capfd.readouterr().err


# ------------------------------------------------------------------ restart, concurrency






def test_silent_and_garbage_devices_do_not_hang(capfd):
    from ocs_helpers import FakeServer
    with FakeServer(lambda data: b"") as fake:               # accepts TCP, never greets
        t = time.monotonic()
        with pytest.raises(DeviceError, match="no SSH/NETCONF session within 1 s"):
            NetconfDriver(fake.address, credentials=CREDS, timeout=0.5).open()
        assert time.monotonic() - t < 3
    with FakeServer(lambda data: None) as fake:              # closes on the client's banner
        with pytest.raises(DeviceError, match="SSH session failed|no SSH/NETCONF session"):
            NetconfDriver(fake.address, credentials=CREDS, timeout=1).open()
    assert "Traceback" not in capfd.readouterr().err




def test_emulator_needs_an_account(monkeypatch):
    from permnet.gen.errors import PermnetError
    monkeypatch.delenv("PERMNET_OCS_USER", raising=False)
    monkeypatch.delenv("PERMNET_OCS_PASSWORD", raising=False)
    with pytest.raises(PermnetError, match="needs an account"):
        asyncio.run(serve_netconf(SwitchCore(4)))
