"""Time-multiplexed fabrics: every slot realises its planes; guard times from switch_ms."""

import numpy as np
from hypothesis import given, settings, strategies as st

from fabric_helpers import walk_planes
from permnet.gen.fabric.clos import design
from permnet.gen.fabric.inventory import Device
from permnet.gen.fabric.tdm import compile_tdm


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 40), P=st.integers(2, 6), per=st.integers(1, 3),
       dev=st.integers(4, 20))
@settings(max_examples=25)
def test_every_slot_realises_its_planes_with_guard_times(seed, n, P, per, dev):
    rng = np.random.default_rng(seed)
    planes = np.array([rng.permutation(n) for _ in range(P)])
    schedule = [{"duration_us": 50000.0, "planes": list(range(s, min(s + per, P)))} for s in range(0, P, per)]
    W = max(len(s["planes"]) for s in schedule)
    count = W * len(list(design(n, dev).leaves()))
    devices = [Device(f"d{i}", dev, switch_ms=float(1 + i % 7)) for i in range(count)]
    slots = compile_tdm(planes, schedule, devices)
    for i, slot in enumerate(slots):
        f = slot.fabric
        got, _ = walk_planes(*f.planes.shape, None, f.xc, f.cables, f.inputs, f.outputs)
        assert sorted(slot.place_of) == schedule[i]["planes"]
        for y, place in slot.place_of.items():
            assert np.array_equal(got[place], planes[y])
        assert np.array_equal(f.cables, slots[0].fabric.cables)       # same cabling in every slot
        before = slots[i - 1].fabric.xc
        switching = [d for d in range(len(devices)) if not np.array_equal(before[d], f.xc[d])]
        assert slot.devices_switching == len(switching)
        assert slot.guard_ms == max((devices[d].switch_ms for d in switching), default=0.0)
        assert slot.device_guard_ms == {devices[d].name: devices[d].switch_ms for d in switching}
    if len(slots) == 1:
        assert slots[0].guard_ms == 0.0
