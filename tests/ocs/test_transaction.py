"""The apply -> read back -> verify -> roll back transaction against emulated
switches (loopback), with each fault kind injected on one device in turn:
afterwards every device holds exactly the old or exactly the new state, and
the report says which."""

import threading

import numpy as np
import pytest

from permnet.gen.planes.decompose import ldi_planes
from permnet.ocs.driver import Credentials
from permnet.ocs.emulator import Emulator
from permnet.ocs.switchcore import Faults, SwitchCore
from permnet.ocs.transaction import Target, apply_targets, plan_changes

CREDS = Credentials("operator", "pw-for-tests")
PORTS = 192


@pytest.fixture(scope="module")
def fleet():
    """24 emulated 192-port TL1 switches."""
    emus = [Emulator("tl1", SwitchCore(PORTS), credentials=CREDS).start() for _ in range(24)]
    yield emus
    for e in emus:
        e.stop()


def targets(emus, planes, timeout=2.0):
    return [Target(f"sw{k}", "tl1", e.address, planes[k], None, CREDS, timeout) for k, e in enumerate(emus)]


def reset(emus, planes):
    for e, p in zip(emus, planes):
        e.core.faults = Faults()
        e.core.only([(i, int(x)) for i, x in enumerate(p) if x >= 0])


OLD = ldi_planes(PORTS, 24, "residue").planes
NEW = ldi_planes(PORTS, 24, "colouring").planes      # a different decomposition: most ports change


def test_plan_touches_only_what_changes():
    live = np.array([1, 0, -1, 3, -1])
    want = np.array([1, 2, 0, -1, -1])
    p = plan_changes(live, want)
    assert p.disconnect == [1, 3] and p.connect == [(1, 2), (2, 0)] and p.unchanged == 1


def test_plan_refuses_an_egress_held_outside_the_owned_ports():
    from permnet.gen.errors import PermnetError
    with pytest.raises(PermnetError, match="egress 0 is held by ingress 3"):
        plan_changes(np.array([-1, -1, -1, 0]), np.array([0, -1, -1, -1]), np.array([1, 1, 1, 0], bool))


def test_full_apply_then_reconfigure(fleet):
    reset(fleet, np.full((24, PORTS), -1))
    rep = apply_targets(targets(fleet, OLD), parallel=8, settle_s=1)
    assert rep.verified, rep.lines()
    for e, p in zip(fleet, OLD):
        assert np.array_equal(e.core.snapshot(), p)
    rep = apply_targets(targets(fleet, NEW), parallel=8, settle_s=1)
    assert rep.verified and not rep.rolled_back
    d = rep.as_dict()
    changed = int(sum((OLD[k] != NEW[k]).sum() for k in range(24)))
    assert d["added"] == d["removed"] == changed and d["unchanged"] == 24 * PORTS - changed
    for e, p in zip(fleet, NEW):
        assert np.array_equal(e.core.snapshot(), p)


@pytest.mark.parametrize("fault", ["refuse", "drop:2", "deny:1", "misapply", "freeze:2"])
# the first device in make test; the last (23) under -m slow (each case waits 2-5 s on timeouts)
@pytest.mark.parametrize("victim", [0, pytest.param(23, marks=pytest.mark.slow)])
def test_a_fault_on_one_device_leaves_every_device_all_old(fleet, fault, victim):
    # 8 devices when the victim is the first (one wave of 8 parallel sessions: each rolled-back
    # device waits one time-out before its last look, and 24 devices took three such waves),
    # all 24 when it is the last
    emus = fleet[:max(8, victim + 1)]
    reset(emus, OLD)
    emus[victim].core.faults = Faults.parse(fault)
    # 1 s per answer: a healthy emulator on a busy 2-core machine once took over 0.5 s to answer
    # the first read (and the run refused as if unreachable); the frozen one stays silent for 2 s
    rep = apply_targets(targets(emus, NEW, timeout=1.0), parallel=8, settle_s=1)
    assert not rep.verified and len(rep.devices) == len(emus)
    for k, (e, r) in enumerate(zip(emus, rep.devices)):
        got = e.core.snapshot()
        assert np.array_equal(got, OLD[k]), (k, fault)
        assert r.status == "old", (k, r)
    assert fault == "refuse" or rep.rolled_back
    assert rep.unreachable == (fault == "refuse")       # refused at step 1: nothing was sent anywhere
    assert rep.devices[victim].error and f"sw{victim}" in rep.devices[victim].error
    fleet[victim].core.faults = Faults()


def test_owned_ports_only_are_touched(fleet):
    e = fleet[0]
    reset([e], [OLD[0]])
    want = OLD[0].copy()
    owned = np.zeros(PORTS, bool)
    owned[:8] = True
    want[:8] = -1                                 # clear only the first 8 ingresses
    rep = apply_targets([Target("sw0", "tl1", e.address, want, owned, CREDS, 2.0)], settle_s=1)
    assert rep.verified
    got = e.core.snapshot()
    assert (got[:8] == -1).all() and np.array_equal(got[8:], OLD[0][8:])


def test_a_killed_apply_then_a_new_apply_converges(fleet):
    reset(fleet[:4], OLD[:4])
    fleet[2].core.faults = Faults.parse("drop:1")
    first = apply_targets(targets(fleet[:4], NEW[:4], timeout=0.5), settle_s=1)
    assert first.rolled_back
    fleet[2].core.faults = Faults()
    second = apply_targets(targets(fleet[:4], NEW[:4]), settle_s=1)
    assert second.verified
    for e, p in zip(fleet[:4], NEW[:4]):
        assert np.array_equal(e.core.snapshot(), p)


def test_concurrent_transactions_on_disjoint_ports_of_one_switch(fleet):
    e = fleet[5]
    reset([e], [np.full(PORTS, -1)])
    results = []

    def run(lo):
        owned = np.zeros(PORTS, bool)
        owned[lo:lo + 96] = True
        want = np.full(PORTS, -1)
        want[lo:lo + 96] = np.arange(lo, lo + 96)[::-1]
        results.append(apply_targets([Target(f"half{lo}", "tl1", e.address, want, owned, CREDS, 5.0)],
                                     settle_s=1))
    threads = [threading.Thread(target=run, args=(lo,)) for lo in (0, 96)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    got = e.core.snapshot()
    assert np.array_equal(got[:96], np.arange(96)[::-1]) and np.array_equal(got[96:], np.arange(96, 192)[::-1])
