"""The HIL network design with deflection routers on run-time planes (issue 41), in the Amaranth
simulator through the bridge: the ejection ports and stages it was built with read back from
``netgen_info``/``info2``; planes and productive masks written over the link, a swap requested
through ``netplanes_swap`` commits at once (no drain), and the active planes and masks read back
through the windows are the ones of the file's planes, computed here from the planes alone
(breadth-first distances), not by the code under test."""

from collections import deque

import pytest

import hil_helpers as H
from hil_helpers import run_stream
from permnet.hdl.hil.top import HilTop

M, S, E, P = 4, 2, 1, 2      # LDI(4,2): the smallest network, a fast simulation; E and P not the defaults
RING = [[(n + 1) % M for n in range(M)], [(n - 1) % M for n in range(M)]]   # ring + reverse ring
DBITS = (M - 1).bit_length()              # a crossbar entry: destination | enable << DBITS

# register addresses, written out from the register map's documentation (permnet hil regmap)
NETGEN_INFO, NETGEN_INFO2, NETGEN_CTRL = 0x6000, 0x6001, 0x6002
NP_INFO, NP_INFO2, PLANE_ADDR, PLANE_DATA, RT_ADDR, RT_DATA = 0x7000, 0x7001, 0x7002, 0x7003, 0x7005, 0x7006
SWAP, STATUS, SWAP_CYCLES, PLANE_WIN, RT_WIN = 0x7008, 0x700A, 0x700B, 0x7100, 0x7200


def ring_masks():
    """mask[n][d]: bit y set iff plane y's link out of n shortens the ring distance to d."""
    def dist(a, b):
        seen, todo = {a: 0}, deque([a])
        while todo:
            u = todo.popleft()
            for row in RING:
                if row[u] not in seen:
                    seen[row[u]] = seen[u] + 1
                    todo.append(row[u])
        return seen[b]
    return [[sum(1 << y for y in range(S) if d != n and dist(RING[y][n], d) == dist(n, d) - 1) for d in range(M)]
            for n in range(M)]


def plane_words(kind):
    """Each plane's configuration entries: a crossbar's written out (destination | enable), a
    Beneš network's from the plane loader."""
    if kind == "crossbar":
        return [[RING[y][n] | 1 << DBITS for n in range(M)] for y in range(S)]
    words = load_writes_of(RING, kind)
    return [[d for p, _, d in sorted(words) if p == y] for y in range(S)]


def load_writes_of(planes, kind):
    from permnet.gen.planes import runtime

    return runtime.config_writes(kind, runtime.check_planes(planes, M, S), "benes")


@pytest.fixture(scope="module", params=["crossbar", pytest.param("benes", marks=pytest.mark.slow)])
def session(request):
    kind = request.param
    dut = HilTop("network", M=M, S=S, width=8, planes=kind, switching="deflection", ejection=E, stages=P,
                 idle_timeout=64)
    masks, words = ring_masks(), plane_words(kind)
    reqs = [H.plain_read(NETGEN_INFO, 2), H.plain_read(NP_INFO, 2), H.plain_write(NETGEN_CTRL, [3])]
    for y in range(S):
        reqs += [H.plain_write(PLANE_ADDR, [y << 16]), H.plain_write(PLANE_DATA, words[y], fixed=True)]
    for n in range(M):
        reqs += [H.plain_write(RT_ADDR, [n << 16]), H.plain_write(RT_DATA, masks[n], fixed=True)]
    reqs += [H.plain_read(STATUS, 2), H.plain_write(SWAP, [1]), H.plain_read(STATUS, 2)]
    for y in range(S):
        reqs += [H.plain_write(PLANE_ADDR, [y << 16]), H.plain_read(PLANE_WIN, len(words[y]))]
    for n in range(M):
        reqs += [H.plain_write(RT_ADDR, [n << 16]), H.plain_read(RT_WIN, M)]
    got = run_stream(dut, reqs, quiet_cycles=20)
    reads = [H.words_of(g) for r, g in zip(reqs, got) if r[0] in (2, 4)]      # plain reads' answers
    return kind, reads, masks, words


def test_the_design_reports_its_ejection_ports_and_stages(session):
    kind, reads, _, words = session
    info, info2 = reads[0]
    assert info == M | S << 16 | 0 << 24 | P << 28          # VCs 0: deflection routers, [31:28] stages
    assert info2 >> 24 == E and info2 & 0xFF == 8            # ejection ports, payload bits
    np_info, np_info2 = reads[1]
    assert np_info & 0xFF == {"crossbar": 1, "benes": 2}[kind] and np_info >> 16 == len(words[0])
    assert np_info2 & 0xFFFF == M                            # one mask per destination


def test_the_swap_commits_without_a_drain_and_reads_back(session):
    kind, reads, masks, words = session
    before, after = reads[2], reads[3]
    assert before[0] >> 16 == 0 and after[0] >> 16 == 1      # swaps since the clear
    assert not after[0] & 1 and after[0] & 2 and after[1] == 0   # never draining; idle; nothing left to drain
    assert reads[4:4 + S] == words
    assert reads[4 + S:] == masks
    assert masks != [[0] * M] * M and masks[0][1] == 1 and masks[0][3] == 2
