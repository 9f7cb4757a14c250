"""The full loop through the socket into the Verilator model of the HIL top
level (and a board with --hil-url): every answer is checked against an
independent reference -- the planes that were loaded, the Beneš
permutation that was routed, the reference next-hop function, the PRBS
expectations of the configuration."""

import json

import numpy as np
import pytest

from permnet.hil import Link
from permnet.verify import compare


@pytest.fixture
def link(hil_url):
    with Link(hil_url, timeout=1.0) as lk:
        yield lk


def random_plane(rng, n, holes=0):
    row = rng.permutation(n)
    row[rng.choice(n, size=holes, replace=False)] = -1
    return row


def test_identification_scratch_and_counters(link):
    info = link.info()
    assert info.framed and link.framed
    for v in (0, 0xFFFFFFFF, 0x5A5AA5A5):
        link.set_reg("sys", "scratch", v)
        assert link.reg("sys", "scratch") == v
    c1 = link.reg("sys", "cycles")
    c2 = link.reg("sys", "cycles")
    assert c2 != c1


def test_plain_uartbone_mode(hil_url):
    with Link(hil_url, timeout=1.0, framed=False) as lk:
        lk.write(0x0003, [0x0BADF00D])
        assert lk.read(0x0000, 4) [0] == 0x504E484C
        assert lk.read(0x0003)[0] == 0x0BADF00D


def test_crossbar_readback_matches_loaded_planes(link):
    info = link.info().crossbar
    if info is None or info["slots"] != 1:
        pytest.skip("single-slot crossbar needed")
    rng = np.random.default_rng(11)
    n = info["ports"]
    for holes in (0, 1, n // 2):
        plane = random_plane(rng, n, holes)[None, :]
        link.load_crossbar(plane)
        link.commit_crossbar()
        rb = link.readback_crossbar()
        assert compare(plane, rb.connections).ok
        assert np.array_equal(rb.planes, plane)


def test_readback_shows_the_active_not_the_shadow_configuration(link):
    info = link.info().crossbar
    if info is None or info["slots"] != 1:
        pytest.skip("single-slot crossbar needed")
    n = info["ports"]
    a = np.arange(n)[None, :]
    b = a.copy()
    b[0, [1, 2]] = b[0, [2, 1]]           # ingress 1 and 2 swap egresses
    link.load_crossbar(a)
    link.commit_crossbar()
    link.load_crossbar(b)                 # loaded, not committed
    rep = compare(b, link.readback_crossbar().connections)
    assert not rep.ok
    text = "\n".join(rep.lines())
    assert "ingress 1 -> [1], intended 2" in text and "ingress 2 -> [2], intended 1" in text
    link.commit_crossbar()
    assert compare(b, link.readback_crossbar().connections).ok


@pytest.mark.parametrize("poly", [7, 31])
def test_prbs_through_the_active_configuration(link, poly):
    info = link.info().crossbar
    if info is None or info["slots"] != 1:
        pytest.skip("single-slot crossbar needed")
    n = info["ports"]
    plane = np.roll(np.arange(n), 3)       # ingress i -> egress (i + 3) mod n
    dark = int(plane[0])
    plane[0] = -1                         # ingress 0 unconnected: its egress receives nothing
    link.load_crossbar(plane[None, :])
    link.commit_crossbar()
    words = 2000
    res = link.run_prbs("xbar", words, poly)
    assert res.words == [words] * n
    for e in range(n):
        if e == dark:
            assert res.errors[e] > words // 2      # zeros from a disconnected egress are errors
        else:
            assert res.errors[e] == 0
    # one flipped bit on ingress 5 shows on the egress it drives, and only there
    res = link.run_prbs("xbar", words, poly, inject=5)
    hit = int(plane[5])
    assert 1 <= res.errors[hit] <= 3
    assert all(res.errors[e] == 0 for e in range(n) if e not in (hit, dark))


def test_benes_realises_the_routed_permutation(link):
    info = link.info().benes
    if info is None:
        pytest.skip("no Beneš network")
    rng = np.random.default_rng(5)
    for _ in range(3):
        perm = rng.permutation(info["size"])
        link.load_benes(perm)
        link.commit_benes()
        assert np.array_equal(link.readback_benes(), perm)
    res = link.run_prbs("benes", 500, 31)
    assert res.words == [500] * info["size"] and not any(res.errors)


def test_nexthop_against_reference_walk(link):
    """Walk every (source, dest) pair with the device's decisions: each walk
    reaches dest within h hops along links of LDI(M, S) (eq. 1)."""
    info = link.info().nexthop
    if info is None or info["table"]:
        pytest.skip("closed-form next-hop unit needed")
    M, S, h = info["M"], info["S"], info["h"]
    for src in range(M):
        for dst in range(M):
            node = src
            for hop in range(h):
                if node == dst:
                    break
                (lk, nxt), = link.probe_nexthop([(node, dst, hop)])
                assert 0 <= lk < S and nxt == (S * node + lk) % M
                node = nxt
            assert node == dst, (src, dst)


def test_cli_hil_run(hil_url, tmp_path, capsys):
    from permnet.cli import main

    info = Link(hil_url, timeout=1.0).info()
    if info.crossbar is None:
        pytest.skip("no crossbar")
    n = info.crossbar["ports"]
    planes = [np.roll(np.arange(n), k).tolist() for k in range(2)]
    cfg = tmp_path / "cfg.json"
    from permnet import ocsconfig

    ocsconfig.write(ocsconfig.OcsConfig(np.array(planes)), cfg)
    code = main(["hil", "run", "--url", hil_url, "--config", str(cfg), "--plane", "1", "--prbs", "300", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["verified"] is True
    assert out["hil"]["nexthop"] is None or out["hil"]["nexthop"]["mismatches"] == []
    assert out["missing"] == [] and out["conflicting"] == []


def test_prbs_after_an_aborted_run(link):
    """Issue 29: a run left going by an aborted `hil run` made the next one fail with 0 error words."""
    info = link.info().crossbar
    if info is None or info["slots"] != 1:
        pytest.skip("single-slot crossbar needed")
    n = info["ports"]
    link.load_crossbar(np.roll(np.arange(n), 1)[None, :])
    link.commit_crossbar()
    link.set_reg("xbar_prbs", "ctrl", 2)
    link.set_reg("xbar_prbs", "run", 1 << 30)       # as a command killed mid-run leaves it
    res = link.run_prbs("xbar", 500, 7)
    assert res.words == [500] * n and res.errors == [0] * n
