"""SCPI front end conformance, the SCPI driver against the emulator, faults,
malformed replies from a misbehaving server, concurrency and persistence."""

import threading
import time

import numpy as np
import pytest
from ocs_helpers import FakeServer, scpi_replies
from scpi_helpers import RawScpi, emulate

from permnet.ocs.driver import DeviceError, open_driver


@pytest.fixture
def emu8():
    with emulate(8) as emu:
        yield emu


def test_wire_protocol(emu8):
    c = RawScpi(emu8.addresses[0])
    core = emu8.cores[0]
    assert c.query("*IDN?").count(",") == 3
    assert c.query(":oxc:swit:size?") == "8x8"
    assert c.query(":oxc:swit:conn:stat?") == "(@),(@)"
    # set commands are silent: the next line read answers the next query
    c.send(":oxc:swit:conn:add (@1,2),(@12,9)")
    assert c.query("*OPC?") == "1"
    assert core.snapshot().tolist() == [3, 0, -1, -1, -1, -1, -1, -1]
    assert c.query(":oxc:swit:conn:stat?") == "(@1,2),(@12,9)"
    assert c.query(":oxc:swit:conn:port? 1") == "12"
    assert c.query(":oxc:swit:conn:port? 9") == "2"
    assert c.query(":oxc:swit:conn:port? 3") == "0"
    assert c.query(":syst:err?") == '0,"No error"'
    # one connection per port: a second one on egress 12 is refused and changes nothing
    c.send(":oxc:swit:conn:add (@3),(@12)")
    assert c.query(":syst:err?").startswith("-221,")
    assert c.query(":syst:err?") == '0,"No error"'
    assert core.snapshot().tolist() == [3, 0, -1, -1, -1, -1, -1, -1]
    c.send(":oxc:swit:conn:add (@3),(@3)")  # egress must be N+1..2N
    assert c.query(":syst:err?").startswith("-")
    c.send(":oxc:swit:conn:sub (@1)")
    assert c.query(":oxc:swit:conn:stat?") == "(@2),(@9)"
    c.send(":oxc:swit:conn:sub (@2),(@9)")
    assert c.query(":oxc:swit:conn:stat?") == "(@),(@)"
    c.send(":oxc:swit:conn:add (@4),(@13)")
    c.send(":oxc:swit:conn:only (@1,8),(@16,9)")  # replaces everything
    assert c.query("*OPC?") == "1"
    assert core.snapshot().tolist() == [7, -1, -1, -1, -1, -1, -1, 0]
    c.send(":oxc:swit:disc:all")
    assert c.query(":oxc:swit:conn:stat?") == "(@),(@)"
    c.send(":OXC:SWITch:CONNect:ADD (@2),(@10)")   # long forms, any case
    assert c.query(":OXC:SWIT:CONN:STATus?") == "(@2),(@10)"
    assert c.query(":SYSTem:ERRor?") == '0,"No error"'
    c.send(":bogus:command")
    assert c.query(":syst:err?").startswith("-113,")
    c.close()


def test_settle_time_hides_new_connections():
    with emulate(4, settle_s=0.3) as emu:
        c = RawScpi(emu.addresses[0])
        c.send(":oxc:swit:conn:add (@1),(@6)")
        assert c.query(":oxc:swit:conn:stat?") == "(@),(@)"
        assert emu.cores[0].status(0) == "tuning"
        time.sleep(0.35)
        assert c.query(":oxc:swit:conn:stat?") == "(@1),(@6)"
        c.close()


def test_driver_reads_what_the_core_holds(emu8):
    rng = np.random.default_rng(1)
    core = emu8.cores[0]
    with open_driver("scpi", emu8.addresses[0], batch=3, timeout=3) as d:
        assert d.size() == 8
        for _ in range(5):
            target = rng.permutation(8)
            target[rng.random(8) < 0.3] = -1
            d.disconnect(list(range(8)))
            d.connect([(i, int(e)) for i, e in enumerate(target) if e >= 0])
            assert core.snapshot().tolist() == target.tolist()
            assert d.read().tolist() == target.tolist()
        before = d.commands
        d.connect([])
        d.disconnect(list(range(8)))  # 8 ingresses in batches of 3 -> 3 set commands, 3 error checks
        assert d.commands - before == 6


def test_driver_errors_name_the_device():
    with emulate(8, faults=["refuse"]) as emu:
        with pytest.raises(DeviceError, match=emu.addresses[0]):
            open_driver("scpi", emu.addresses[0], timeout=2).open()
    with emulate(8, faults=["deny:2"]) as emu:
        with open_driver("scpi", emu.addresses[0], timeout=2, name="sw7") as d:
            d.connect([(0, 1)])
            with pytest.raises(DeviceError, match=r"^sw7 \(scpi\): .*denied"):
                d.connect([(1, 2)])
            assert emu.cores[0].snapshot().tolist()[:2] == [1, -1]
    with emulate(8, faults=["drop:1"]) as emu:
        with open_driver("scpi", emu.addresses[0], timeout=2) as d:
            with pytest.raises(DeviceError, match="closed|lost"):
                d.connect([(0, 1)])
        assert (emu.cores[0].snapshot() == -1).all()


def test_freeze_longer_than_timeout_is_a_timeout_and_the_command_is_dropped():
    with emulate(8, faults=["freeze:1.0"]) as emu:
        d = open_driver("scpi", emu.addresses[0], timeout=0.3)
        d.open()
        t = time.monotonic()
        with pytest.raises(DeviceError, match="no answer"):
            d.connect([(0, 1)])
        assert time.monotonic() - t < 1.5
        d.close()
        time.sleep(1.0)
        assert (emu.cores[0].snapshot() == -1).all()
        with open_driver("scpi", emu.addresses[0], timeout=2) as d2:  # the switch answers again
            d2.connect([(0, 1)])
            assert d2.read()[0] == 1


@pytest.mark.parametrize("stat, what", [
    (b"hello world\r\n", "malformed"),
    (b"(@1,2),(@9\r\n", "malformed"),            # truncated list
    (b"(@1,2),(@9)\r\n", "malformed"),           # counts differ
    (b"(@1),(@3)\r\n", "malformed"),             # egress outside N+1..2N
    (b"(@1,1),(@9,10)\r\n", "malformed"),        # ingress twice
    (b"(@1),(@9", "closed"),                     # line cut short, then hang-up
    (b"\xff\xfe\r\n", "garbled"),
    (None, "closed"),
])
def test_malformed_replies(stat, what):
    replies = {"*idn?": b"FAKE,OCS,1,1\r\n", ":oxc:swit:size?": b"8x8\r\n", ":oxc:swit:conn:stat?": stat}
    with FakeServer(scpi_replies(replies), lines=True) as srv:
        d = open_driver("scpi", srv.address, timeout=2, name="fake1")
        d.open()
        with pytest.raises(DeviceError, match=f"^fake1 \\(scpi\\): .*{what}"):
            d.read()
        d.close()


@pytest.mark.parametrize("replies, what", [
    ({"*idn?": b"FAKE,OCS,1,1\r\n", ":oxc:swit:size?": b"8x9\r\n"}, "size"),
    ({"*idn?": b"FAKE,OCS,1,1\r\n", ":oxc:swit:size?": b"lots\r\n"}, "size"),
    ({"*idn?": b"garbage\r\n"}, "IDN"),
    ({"*idn?": b"FAKE,OCS,1,1\r\n", ":oxc:swit:size?": b"8\r\n", ":syst:err?": b"what\r\n"}, "syst:err"),
])
def test_malformed_replies_elsewhere(replies, what):
    with FakeServer(scpi_replies(replies), lines=True) as srv:
        with pytest.raises(DeviceError, match=what):
            with open_driver("scpi", srv.address, timeout=2) as d:
                d.size()
                d.connect([(0, 0)])


def test_silent_server_times_out():
    with FakeServer(scpi_replies({"*idn?": b""}), lines=True) as srv:  # never answers
        t = time.monotonic()
        with pytest.raises(DeviceError, match="no answer"):
            open_driver("scpi", srv.address, timeout=0.3).open()
        assert time.monotonic() - t < 2


def test_concurrent_clients():
    n, k = 64, 8
    with emulate(n) as emu:
        errors = []

        def worker(j):
            try:
                with open_driver("scpi", emu.addresses[0], timeout=5, batch=2) as d:
                    ins = range(j * n // k, (j + 1) * n // k)
                    d.connect([(i, (i * 5 + 3) % n) for i in ins])
                    d.read()
            except Exception as exc:  # collected and asserted below
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(j,)) for j in range(k)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        assert not errors
        assert emu.cores[0].snapshot().tolist() == [(i * 5 + 3) % n for i in range(n)]


def test_state_survives_restart(tmp_path):
    state = tmp_path / "sw.state"
    with emulate(8, state=str(state)) as emu:
        with open_driver("scpi", emu.addresses[0]) as d:
            d.connect([(0, 5), (3, 2)])
    with emulate(8, state=str(state)) as emu:
        with open_driver("scpi", emu.addresses[0]) as d:
            assert d.read().tolist() == [5, -1, -1, 2, -1, -1, -1, -1]


def test_misapply_is_silent_even_for_a_full_permutation():
    with emulate(4, faults=["misapply"]) as emu:
        with open_driver("scpi", emu.addresses[0]) as d:
            want = [2, 0, 3, 1]
            d.connect(list(enumerate(want)))      # no error reported
            got = d.read().tolist()
            assert got != want and sorted(got) == [0, 1, 2, 3]
