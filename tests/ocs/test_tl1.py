"""TL1 driver against the TL1 front end of the emulated switch: the state
walked through connects/disconnects is checked against an independent
dictionary model and against the core, the wire numbering against the
Polatis convention, faults and malformed replies give one-line DeviceErrors."""

import re
import socket
import threading
import time

import numpy as np
import pytest
from ocs_helpers import CREDS, WRONG, Emulator, FakeServer

from permnet.ocs.driver import DeviceError, open_driver
from permnet.ocs.switchcore import SwitchCore
from permnet.ocs.tl1 import Tl1Driver, parse_port_list, serve_tl1, split_fields


def emulator(ports=16, **kw):
    opts = {k: kw.pop(k) for k in ("reply_filter", "delay_ms") if k in kw}
    return Emulator(serve_tl1, SwitchCore(ports, **kw), credentials=CREDS, **opts)


def driver(emu, **kw):
    kw.setdefault("timeout", 3.0)
    return Tl1Driver(emu.address, credentials=CREDS, **kw)


def raw(port, *commands, wait=0.3):
    """Send raw TL1 text, return everything received (bounded)."""
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        out = b""
        for c in commands:
            s.sendall(c.encode())
            end = time.monotonic() + wait
            while time.monotonic() < end:
                s.settimeout(max(0.01, end - time.monotonic()))
                try:
                    data = s.recv(65536)
                except socket.timeout:
                    break
                if not data:
                    break
                out += data
                if out.rstrip().endswith(b";"):
                    break
        return out.decode()


def plane(model, n):
    row = np.full(n, -1, np.int64)
    for i, e in model.items():
        row[i] = e
    return row


# ------------------------------------------------------------------ syntax
def test_split_fields_and_port_lists():
    assert split_fields('ACT-USER::"a:b":7::"p;\\"w";') == ["ACT-USER", "", "a:b", "7", "", 'p;"w']
    assert parse_port_list("1&3&&5&9", 100) == [1, 3, 4, 5, 9]
    for bad in ("", "1&", "5&&2", "a", "1,2"):
        with pytest.raises(ValueError):
            parse_port_list(bad, 100)


# ------------------------------------------------------------------ roundtrip
def test_roundtrip_192_ports_walks_the_state():
    n, rng = 192, np.random.default_rng(7)
    with emulator(n) as emu, driver(emu) as d:
        assert d.size() == n and (d.read() == -1).all()
        model = {}
        perm = rng.permutation(n)
        order = rng.permutation(n)
        for chunk in np.array_split(order, 5):            # connect in steps, checking each
            pairs = [(int(i), int(perm[i])) for i in chunk]
            d.connect(pairs)
            model.update(pairs)
            got = d.read()
            assert (got == plane(model, n)).all()
            assert (got == emu.core.snapshot()).all()
        assert sorted(d.read()) == list(range(n))         # a full permutation
        gone = [int(i) for i in rng.choice(n, 70, replace=False)]
        d.disconnect(gone)
        for i in gone:
            del model[i]
        assert (d.read() == plane(model, n)).all()
        # reconnect the freed ingresses to the freed egresses, rotated
        free_e = sorted(set(range(n)) - set(model.values()))
        new = list(zip(sorted(gone), free_e[1:] + free_e[:1]))
        d.connect(new)
        model.update(new)
        assert (d.read() == plane(model, n)).all()


def test_wire_numbering_is_polatis():
    """Ingress 1..N, egress N+1..2N: plane (0 -> 0) is patch 1,N+1."""
    n = 8
    with emulator(n) as emu:
        with driver(emu) as d:
            d.connect([(0, 0), (7, 3)])
        text = raw(emu.port, 'ACT-USER::operator:1::"%s";' % CREDS.password.replace("\\", "\\\\")
                   .replace('"', '\\"'), "RTRV-PATCH:::2;")
        assert re.findall(r'"(\d+),(\d+)"', text) == [("1", "9"), ("8", "12")]
        assert re.search(r"^M  2 COMPLD\r$", text, re.M)


def test_server_set_semantics_ranges_and_egress_numbers():
    n = 8
    with emulator(n) as emu:
        pw = CREDS.password.replace("\\", "\\\\").replace('"', '\\"')
        text = raw(emu.port, f'ACT-USER::operator:1::"{pw}";', "ENT-PATCH::1&&4,9&&12:2;",
                   "ENT-PATCH::5,9:3;", "DLT-PATCH::10&3:4;", "DLT-PATCH::7:5;", "ENT-PATCH::9,1:6;",
                   "FROB-IT:::7;")
        assert "M  2 COMPLD" in text
        assert re.search(r"M  3 DENY\r\n   SAIN", text)      # egress 9 already used
        assert "M  4 COMPLD" in text                           # by egress 10 and by ingress 3
        assert re.search(r"M  5 DENY\r\n   SROF", text)      # ingress 7 has no patch
        assert re.search(r"M  6 DENY\r\n   IIAC", text)      # swapped sides
        assert re.search(r"M  7 DENY\r\n   ICNV", text)
        assert emu.core.snapshot().tolist() == [0, -1, -1, 3, -1, -1, -1, -1]


# ------------------------------------------------------------------ login
def test_login_required_and_wrong_password_denied(monkeypatch):
    with emulator(8) as emu:
        text = raw(emu.port, "RTRV-PATCH:::42;")
        assert re.search(r"M  42 DENY\r\n   PLNA", text)
        with pytest.raises(DeviceError) as ei:
            Tl1Driver(emu.address, credentials=WRONG, timeout=2).open()
        msg = str(ei.value)
        assert "login denied" in msg and emu.address in msg and "\n" not in msg
        assert WRONG.password not in msg and CREDS.password not in msg
        monkeypatch.delenv("PERMNET_OCS_USER", raising=False)
        monkeypatch.delenv("PERMNET_OCS_PASSWORD", raising=False)
        with pytest.raises(DeviceError, match="no credentials"):
            Tl1Driver(emu.address, timeout=2).open()
        # credentials from the environment, through the protocol registry
        monkeypatch.setenv("PERMNET_OCS_USER", CREDS.user)
        monkeypatch.setenv("PERMNET_OCS_PASSWORD", CREDS.password)
        with open_driver("tl1", emu.address, timeout=2) as d:
            assert d.size() == 8 and repr(CREDS.password) not in repr(d.__dict__)


def test_refused_port_is_one_line():
    s = socket.create_server(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with pytest.raises(DeviceError, match="connection refused"):
        Tl1Driver(f"127.0.0.1:{port}", credentials=CREDS, timeout=1).open()


# ------------------------------------------------------------------ faults
def test_fault_refuse():
    with emulator(8, faults="refuse") as emu:
        with pytest.raises(DeviceError, match="refused"):
            driver(emu).open()
        assert (emu.core.snapshot() == -1).all()


def test_fault_drop_mid_command_leaves_earlier_commands():
    with emulator(8, faults="drop:2") as emu:
        with driver(emu) as d:
            d.connect([(0, 1)])
            with pytest.raises(DeviceError, match="closed by the device during ENT-PATCH"):
                d.connect([(1, 2)])
        assert emu.core.snapshot().tolist() == [1] + [-1] * 7
        with driver(emu) as d:                            # the switch still answers
            assert d.read().tolist() == [1] + [-1] * 7


def test_fault_deny_changes_nothing_and_session_continues():
    with emulator(8, faults="deny:1") as emu, driver(emu) as d:
        with pytest.raises(DeviceError, match=r"ENT-PATCH denied \(SROF"):
            d.connect([(0, 1), (2, 3)])
        assert (d.read() == -1).all()
        d.connect([(0, 1)])
        assert d.read().tolist() == [1] + [-1] * 7


def test_fault_freeze_shorter_and_longer_than_timeout():
    with emulator(8, faults="freeze:0.6") as emu, driver(emu, timeout=3) as d:
        t = time.monotonic()
        d.connect([(0, 1)])
        assert time.monotonic() - t >= 0.5
        assert d.read()[0] == 1
    with emulator(8, faults="freeze:4") as emu:
        d = driver(emu, timeout=0.7)
        d.open()
        t = time.monotonic()
        with pytest.raises(DeviceError, match="no reply to ENT-PATCH within 0.7 s"):
            d.connect([(0, 1)])
        assert time.monotonic() - t < 2.5
        d.close()


def test_fault_misapply_is_visible_in_the_read_back():
    with emulator(8, faults="misapply") as emu, driver(emu) as d:
        d.connect([(0, 5), (1, 6)])
        got = d.read()
        assert got.tolist() == emu.core.snapshot().tolist()
        assert got[1] == 6 and got[0] not in (5, 6, -1)       # the first pair landed elsewhere


# ------------------------------------------------------------------ malformed replies
def _filter(verb_wanted, fn):
    return lambda verb, text: fn(text) if verb == verb_wanted else text


@pytest.mark.parametrize("verb,fn,match", [
    ("RTRV-PATCH", lambda t: t.replace("COMPLD\r\n", 'COMPLD\r\n   "1,99"\r\n'), "not in 9..16"),
    ("RTRV-PATCH", lambda t: t.replace("COMPLD\r\n", 'COMPLD\r\n   "1,9"\r\n   "1,10"\r\n'), "listed twice"),
    ("RTRV-PATCH", lambda t: t.replace("COMPLD\r\n", 'COMPLD\r\n   "2,9"\r\n   "3,9"\r\n'), "egress port listed twice"),
    ("RTRV-PATCH", lambda t: t.replace("COMPLD\r\n", "COMPLD\r\n   1-9 garbage\r\n"), "malformed reply"),
    ("RTRV-PATCH", lambda t: re.sub(r"M  \d+ ", "M  999 ", t), "correlation tag"),
    ("RTRV-PATCH", lambda t: t.replace("COMPLD", "COMPLETED"), "malformed reply"),
    ("RTRV-PATCH", lambda t: t[:len(t) // 2], "no reply to RTRV-PATCH"),       # truncated, then silence
    ("RTRV-PATCH", lambda t: "\x00\xff garbage\r\n;", "malformed reply"),
    ("RTRV-NETYPE", lambda t: t.replace("8X8", "8X9"), "no NxN size"),
])
def test_malformed_replies(verb, fn, match):
    with emulator(8, reply_filter=_filter(verb, fn)) as emu:
        d = driver(emu, timeout=1.0)
        d.open()
        try:
            with pytest.raises(DeviceError, match=match) as ei:
                d.read()
            assert "\n" not in str(ei.value) and emu.address in str(ei.value)
        finally:
            d.close()


def test_garbage_device_and_silent_device():
    with FakeServer(lambda data: b"HTTP/1.1 400 Bad Request\r\n\r\n;\r\n") as fake:
        with pytest.raises(DeviceError, match="malformed reply to ACT-USER"):
            Tl1Driver(fake.address, credentials=CREDS, timeout=1).open()
    with FakeServer(lambda data: b"") as fake:
        t = time.monotonic()
        with pytest.raises(DeviceError, match="no reply to ACT-USER within 0.5 s"):
            Tl1Driver(fake.address, credentials=CREDS, timeout=0.5).open()
        assert time.monotonic() - t < 2


def test_acknowledgments_and_autonomous_messages_are_skipped():
    def answer(data):
        m = re.search(rb":(\d+):", data) or re.search(rb":(\d+);", data)
        ctag = m.group(1)
        return (b"IP " + ctag + b"\r\n<"
                + b"\r\n\n   SW 26-01-01 00:00:00\r\n*C 17 REPT ALM\r\n   \"1:CR,LOS\"\r\n;"
                + b"\r\n\n   SW 26-01-01 00:00:00\r\nM  " + ctag + b" COMPLD\r\n;")
    with FakeServer(answer) as fake:
        d = Tl1Driver(fake.address, credentials=CREDS, timeout=1)
        d.open()                              # ACT-USER answered after an ack and an alarm
        d.close()


# ------------------------------------------------------------------ restart, concurrency


def test_two_clients_racing_to_remove_one_patch():
    n = 8
    with emulator(n) as emu:
        with driver(emu) as d:
            d.connect([(3, 5)])
        # exactly one succeeds, the other is denied
        results = []

        def race(i):
            try:
                with driver(emu) as d:
                    d.disconnect([i])
                    results.append(("ok", i))
            except DeviceError as exc:
                results.append(("err", str(exc)))
        ts = [threading.Thread(target=race, args=(3,)) for _ in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(10)
        assert sorted(r[0] for r in results) == ["err", "ok"]
        assert emu.core.snapshot()[3] == -1
