"""Compiled fabrics, walked by an independent simulator, equal their logical planes."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fabric_helpers import walk_planes
from formats_helpers import partial_permutation
from permnet.gen.errors import PermnetError
from permnet.gen.fabric.clos import Clos, Leaf, design
from permnet.gen.fabric.compile import compile_fabric
from permnet.gen.fabric.inventory import Device
from permnet.gen.fabric.reconfig import reconfigure
from permnet.gen.fabric.simulate import breaks


def _walk(fab):
    return walk_planes(*fab.planes.shape, [d.ports for d in fab.devices], fab.xc, fab.cables,
                       fab.inputs, fab.outputs)


def _check_devices(fab):
    """Each device: a partial permutation; each port range inside the device, ranges disjoint."""
    for d, row in enumerate(fab.xc):
        used = row[row >= 0]
        assert len(np.unique(used)) == len(used)
        taken = np.zeros(fab.devices[d].ports, dtype=int)
        for s in np.nonzero(fab.slot_device == d)[0]:
            taken[fab.slot_offset[s]:fab.slot_offset[s] + fab.slot_size[s]] += 1
        assert taken.max(initial=0) <= 1 and fab.slot_offset[fab.slot_device == d].min(initial=0) >= 0
        # cross-connects stay inside one slot
        for s in np.nonzero(fab.slot_device == d)[0]:
            lo, hi = fab.slot_offset[s], fab.slot_offset[s] + fab.slot_size[s]
            seg = row[lo:hi]
            assert np.all((seg < 0) | ((seg >= lo) & (seg < hi)))
    # every egress port is cabled at most once, every ingress port fed at most once
    assert len({(a, b) for a, b, _, _ in fab.cables.tolist()}) == len(fab.cables)
    assert len({(c, d) for _, _, c, d in fab.cables.tolist()}) == len(fab.cables)


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 150), planes=st.integers(1, 4),
       dev=st.integers(2, 40), holes=st.integers(0, 5))
@settings(max_examples=40)
def test_every_compiled_fabric_realises_its_planes(seed, n, planes, dev, holes):
    rng = np.random.default_rng(seed)
    P = np.array([partial_permutation(rng, n, holes) for _ in range(planes)])
    # one device per switch of the network is always enough
    devices = [Device(f"d{i}", dev) for i in range(planes * len(list(design(n, dev).leaves())))]
    fab = compile_fabric(P, devices)
    got, passes = _walk(fab)
    assert np.array_equal(got, P)
    _check_devices(fab)
    depth = max(u.net.stages for u in fab.units)
    assert passes.max() <= depth
    if n <= dev:
        assert depth == 1
    elif n <= dev * dev:
        assert depth == 3


@given(seed=st.integers(0, 2**32 - 1), sizes=st.lists(st.sampled_from([4, 6, 8, 12, 16]), min_size=1, max_size=6),
       n=st.integers(2, 24), planes=st.integers(1, 6))
@settings(max_examples=30)
def test_mixed_inventories(seed, sizes, n, planes):
    rng = np.random.default_rng(seed)
    P = np.array([rng.permutation(n) for _ in range(planes)])
    enough = planes * len(list(design(n, min(sizes)).leaves()))
    devices = [Device(f"d{i}", s) for i, s in enumerate(sizes * enough)]
    fab = compile_fabric(P, devices)
    got, _ = _walk(fab)
    assert np.array_equal(got, P)
    _check_devices(fab)


def test_small_planes_share_one_device():
    P = np.array([[1, 2, 0], [2, 0, 1], [0, 1, 2]])
    fab = compile_fabric(P, [Device("big", 10), Device("other", 10)])
    assert fab.used.tolist() == [0]
    assert sorted(fab.slot_offset.tolist()) == [0, 3, 6]
    assert np.array_equal(_walk(fab)[0], P)


def test_three_and_five_stages():
    assert isinstance(design(64, 64), Leaf)
    net = design(4096, 64)
    assert isinstance(net, Clos) and (net.k, net.r, net.stages) == (64, 64, 3)
    net = design(4096, 16)
    assert net.stages == 5 and net.r == 256 and net.middle[0].r == 16


def test_too_few_devices_says_how_many():
    P = np.array([np.random.default_rng(1).permutation(100)])
    with pytest.raises(PermnetError, match=r"need 30 unidirectional devices of 10 ports.*has 5"):
        compile_fabric(P, [Device(f"s{i}", 10) for i in range(5)])


def test_bidirectional_devices_take_pairs_and_involutions():
    rng = np.random.default_rng(3)
    p = rng.permutation(10)
    inv = np.argsort(p)
    involution = np.array([1, 0, 3, 2, 5, 4, 7, 6, 9, 8])
    P = np.array([p, involution, inv])
    fab = compile_fabric(P, [Device("circ", 40, bidirectional=True)])
    kinds = sorted(u.kind for u in fab.units)
    assert kinds == ["bidi-involution", "bidi-pair"]
    row = fab.xc[0]
    m = row >= 0
    assert np.array_equal(row[row[m]], np.nonzero(m)[0])      # cross-connects pair ports
    got, passes = _walk(fab)
    assert np.array_equal(got, P) and passes.max() == 1
    # a plane without its inverse cannot go on a bidirectional device alone
    with pytest.raises(PermnetError, match="bidirectional"):
        compile_fabric(np.array([p]), [Device("circ", 40, bidirectional=True)])
    fab = compile_fabric(np.array([p]), [Device("circ", 40, bidirectional=True), Device("u", 10)])
    assert fab.units[0].kind == "switch" and np.array_equal(_walk(fab)[0], [p])


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(5, 80), dev=st.integers(3, 12))
@settings(max_examples=30)
def test_verify_catches_one_altered_crossconnect_and_names_its_device(seed, n, dev):
    rng = np.random.default_rng(seed)
    P = np.array([rng.permutation(n), rng.permutation(n)])
    fab = compile_fabric(P, [Device(f"d{i}", dev) for i in range(2 * len(list(design(n, dev).leaves())))])
    assert breaks(fab, fab.xc) == []
    d = int(rng.choice([u for u in fab.used if np.any(fab.xc[u] >= 0)]))
    conn = np.nonzero(fab.xc[d] >= 0)[0]
    i = int(rng.choice(conn))
    xc = [x.copy() for x in fab.xc]
    if rng.random() < 0.5 or len(conn) < 2:
        xc[d][i] = -1                                    # a lost cross-connect
    else:
        j = int(rng.choice(conn[conn != i]))             # two swapped egresses
        xc[d][i], xc[d][j] = xc[d][j], xc[d][i]
    got, _ = walk_planes(*P.shape, None, xc, fab.cables, fab.inputs, fab.outputs)
    broken_truth = {(y, k) for y, k in np.argwhere(got != P).tolist()}
    found = breaks(fab, xc)
    assert found and {(b.plane, b.node) for b in found} == broken_truth
    assert all(b.device == d for b in found)
    assert i in {b.ingress for b in found}


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(4, 100), dev=st.integers(3, 16),
       swaps=st.integers(0, 30), holes=st.integers(0, 4))
@settings(max_examples=30)
def test_reconfiguration_never_changes_more_than_compiling_afresh(seed, n, dev, swaps, holes):
    rng = np.random.default_rng(seed)
    P = np.array([rng.permutation(n) for _ in range(3)])
    devices = [Device(f"d{i}", dev) for i in range(3 * len(list(design(n, dev).leaves())))]
    fab = compile_fabric(P, devices)
    Q = P[[2, 0, 1]].copy()
    for _ in range(swaps):
        y, a, b = rng.integers(3), rng.integers(n), rng.integers(n)
        Q[y, [a, b]] = Q[y, [b, a]]
    for y in range(3):
        Q[y, rng.choice(n, size=min(holes, n - 1), replace=False)] = -1
    rec = reconfigure(fab, Q)
    got, _ = walk_planes(*Q.shape, None, rec.fabric.xc, rec.fabric.cables, rec.fabric.inputs, rec.fabric.outputs)
    # the new fabric realises the target, target plane assignment[y] at place y
    assert np.array_equal(got, Q[rec.assignment])
    assert np.array_equal(rec.fabric.cables, fab.cables)
    assert rec.changed <= rec.from_scratch_changed
    changed = sum(int(np.sum(a != b)) for a, b in zip(fab.xc, rec.fabric.xc))
    assert changed == rec.changed
    # the change lists, applied in order (disconnects first), turn old into new
    for d, ch in rec.changes.items():
        row = fab.xc[d].copy()
        for i in ch.disconnect:
            row[i] = -1
        for i, e in ch.connect:
            assert row[i] == -1 and e not in row          # ingress and egress free when connected
            row[i] = e
        assert np.array_equal(row, rec.fabric.xc[d])


def test_reconfiguring_to_the_same_planes_changes_nothing():
    rng = np.random.default_rng(5)
    P = np.array([rng.permutation(50) for _ in range(2)])
    fab = compile_fabric(P, [Device(f"d{i}", 8) for i in range(200)])
    rec = reconfigure(fab, P[::-1])
    assert rec.changed == 0 and rec.assignment == [1, 0]


def test_reconfigure_needs_the_same_shape():
    P = np.array([[1, 0, 2]])
    fab = compile_fabric(P, [Device("a", 4)])
    with pytest.raises(PermnetError, match="compile afresh"):
        reconfigure(fab, np.array([[1, 0, 2, 3]]))


def test_bidirectional_pairs_beyond_the_circulators_capacity_go_to_unidirectional_devices():
    rng = np.random.default_rng(9)
    ps = [rng.permutation(8) for _ in range(3)]
    P = np.array(ps + [np.argsort(p) for p in ps])          # three planes and their inverses
    fab = compile_fabric(P, [Device("circ", 16, bidirectional=True)] + [Device(f"u{i}", 8) for i in range(4)])
    assert sorted(u.kind for u in fab.units) == ["bidi-pair", "switch", "switch", "switch", "switch"]
    assert np.array_equal(_walk(fab)[0], P)


def test_inventory_tables_and_defaults():
    from permnet.gen.fabric.inventory import MODELS, parse_inventory

    devs = parse_inventory({"device": [{"name": "p", "model": "polatis-192", "count": 3},
                                       {"name": "c", "model": "circulator-136", "address": "10.0.0.1:830"},
                                       {"name": "t", "protocol": "tl1", "ports": 16, "port_base": 0,
                                        "egress_offset": 100}]})
    assert [d.name for d in devs] == ["p-1", "p-2", "p-3", "c", "t"]
    assert devs[0].egress_label(0) == 193 and devs[0].ingress_label(191) == 192
    assert devs[3].bidirectional and devs[3].egress_label(5) == devs[3].ingress_label(5) == 6
    assert devs[4].ingress_label(0) == 0 and devs[4].egress_label(0) == 100
    assert all(m.get("protocol") for m in MODELS.values())
    bad = [({"device": [{"name": "x", "ports": 8, "protocol": "scpi", "egress_offset": 100}]}, "Polatis"),
           ({"device": [{"name": "x", "model": "sonic-64", "port_base": 0}]}, "SONiC"),
           ({"device": [{"name": "x", "ports": 8, "count": 0}]}, "key 'count'"),
           ({"device": [{"ports": 8}]}, "missing key 'name'"),
           ({"device": [{"name": "x"}]}, "missing key 'ports'"),
           ({"devices": []}, "unknown top-level key"),
           ({"device": [{"name": "x", "ports": 8, "loss_db": "high"}]}, "key 'loss_db' must be a number"),
           ({"device": [{"name": "x", "ports": 8, "bidirectional": True, "egress_offset": 8}]}, "offset is 0")]
    for doc, msg in bad:
        with pytest.raises(PermnetError, match=msg):
            parse_inventory(doc)


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 30), pairs=st.integers(0, 2), invol=st.integers(0, 2),
       plain=st.integers(0, 2), circ=st.integers(0, 3), circ_ports=st.integers(4, 64), uni=st.integers(4, 16))
@settings(max_examples=30)
def test_mixed_bidirectional_inventories(seed, n, pairs, invol, plain, circ, circ_ports, uni):
    rng = np.random.default_rng(seed)
    planes = []
    for _ in range(pairs):
        p = rng.permutation(n)
        planes += [p, np.argsort(p)]
    for _ in range(invol):
        perm = rng.permutation(n - n % 2)
        inv = np.arange(n)
        inv[perm[0::2]], inv[perm[1::2]] = perm[1::2], perm[0::2]
        planes.append(inv)
    planes += [rng.permutation(n) for _ in range(plain)]
    if not planes:
        planes = [rng.permutation(n)]
    P = np.array(planes)
    devices = [Device(f"c{i}", circ_ports, bidirectional=True) for i in range(circ)]
    devices += [Device(f"u{i}", uni) for i in range(len(P) * len(list(design(n, uni).leaves())))]
    fab = compile_fabric(P, devices)
    got, _ = _walk(fab)
    assert np.array_equal(got, P)
    for d, dev in enumerate(fab.devices):
        row = fab.xc[d]
        m = row >= 0
        if dev.bidirectional:
            assert np.array_equal(row[row[m]], np.nonzero(m)[0]) and not np.any(row[m] == np.nonzero(m)[0])
    _check_devices(fab)


def test_ldi_4096_8_on_64_port_devices():
    from permnet.gen.planes.decompose import ldi_planes

    P = ldi_planes(4096, 8).planes
    fab = compile_fabric(P, [Device(f"ocs-{i}", 64) for i in range(1536)])
    assert len(fab.used) == 1536 and len(fab.cables) == 8 * 2 * 64 * 64
    got, passes = _walk(fab)
    assert np.array_equal(got, P) and passes.max() == 3


@pytest.mark.slow
def test_ldi_4096_8_on_16_port_devices_takes_five_stages():
    from permnet.gen.planes.decompose import ldi_planes

    P = ldi_planes(4096, 8).planes
    fab = compile_fabric(P, [Device(f"ocs-{i}", 16) for i in range(10240)])
    got, passes = _walk(fab)
    assert np.array_equal(got, P) and passes.max() == 5
