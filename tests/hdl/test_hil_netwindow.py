"""The netplanes read-back windows of the network design (HilTop, Amaranth simulation, bytes
through the bridge): planes and route tables loaded over the link and swapped in read back
through ``plane_win`` / ``rt_win`` in burst reads (framed and plain UARTBone) as the planes of
the file say; the route tables read back route every pair along the ring to its destination in
the ring distance; the single registers ``plane_rb`` / ``rt_rb`` agree with the windows."""

import pytest

import hil_helpers as H
from hil_helpers import run_stream
from permnet.hdl.hil.top import HilTop
from permnet.planeload import swap_load

M, S, VCS = 4, 2, 2          # LDI(4,2) (routes of 2 hops at most): the smallest network, a fast simulation
RING = [[(n + 1) % M for n in range(M)], [(n - 1) % M for n in range(M)]]   # ring + reverse ring: 2 hops
DBITS = (M - 1).bit_length()              # a crossbar entry: destination | enable << DBITS
HOP_BITS = VCS.bit_length()               # a route key: hop << DBITS | dst, 1 << (HOP_BITS + DBITS) per node
RT_ENTRIES = 1 << (HOP_BITS + DBITS)

# register addresses, written out from the register map's documentation (permnet hil regmap)
NETGEN_CTRL = 0x6002
PLANE_ADDR, PLANE_DATA, PLANE_RB, RT_ADDR, RT_DATA, RT_RB = 0x7002, 0x7003, 0x7004, 0x7005, 0x7006, 0x7007
SWAP, STATUS, PLANE_WIN, RT_WIN = 0x7008, 0x700A, 0x7100, 0x7200


@pytest.fixture(scope="module")
def session():
    """One simulation: clear and hold a run, load the ring planes and their route tables through
    the auto-incrementing data registers, swap, then read everything back."""
    dut = HilTop("network", M=M, S=S, width=8, planes="crossbar", vcs=VCS, idle_timeout=64)
    words = swap_load(RING, dut.net, "crossbar")
    reqs = [H.plain_write(NETGEN_CTRL, [3])]                                  # clear, hold
    for y in range(S):
        reqs += [H.plain_write(PLANE_ADDR, [y << 16]),
                 H.plain_write(PLANE_DATA, [d for p, _, d in sorted(words.planes) if p == y], fixed=True)]
    for n in range(M):
        reqs += [H.plain_write(RT_ADDR, [n << 16]),
                 H.plain_write(RT_DATA, [d for u, _, d in sorted(words.routes) if u == n], fixed=True)]
    reqs += [H.plain_write(SWAP, [1]), H.plain_read(STATUS, 1)]
    marks = {"status": len(reqs) - 1}
    seq = iter(range(1, 200))
    for y in range(S):                                       # framed bursts, one per plane
        reqs += [H.framed_write(next(seq), PLANE_ADDR, [y << 16]), H.framed_read(next(seq), PLANE_WIN, M)]
        marks[f"plane{y}"] = len(reqs) - 1
    half = RT_ENTRIES // 2
    for n in range(M):                                       # one window setting per node: two bursts
        reqs += [H.framed_write(next(seq), RT_ADDR, [n << 16]),
                 H.framed_read(next(seq), RT_WIN, half), H.framed_read(next(seq), RT_WIN + half, half)]
        marks[f"rt{n}"] = len(reqs) - 1
    # plain UARTBone bursts from an entry inside the table, and the single registers
    reqs += [H.plain_write(PLANE_ADDR, [1 << 16 | 1]), H.plain_read(PLANE_WIN, 3), H.plain_read(PLANE_RB, 1)]
    marks["plain_plane"] = len(reqs) - 2
    reqs += [H.plain_write(RT_ADDR, [3 << 16 | 5]), H.plain_read(RT_WIN, 7), H.plain_read(RT_RB, 1)]
    marks["plain_rt"] = len(reqs) - 2
    got = run_stream(dut, reqs, quiet_cycles=8)
    return got, marks


def _framed_words(data):
    status, _, words = H.parse_response(data)
    assert status == 0
    return words


def test_the_swap_committed(session):
    got, marks = session
    status = H.words_of(got[marks["status"]])[0]
    assert status >> 16 == 1 and not status & 1


def test_plane_window_reads_the_planes_of_the_file(session):
    got, marks = session
    for y in range(S):
        assert _framed_words(got[marks[f"plane{y}"]]) == [RING[y][n] | 1 << DBITS for n in range(M)]


def test_route_windows_walk_every_pair_along_the_ring(session):
    """Every (src, dst) pair followed through the read-back tables (entry at hop << DBITS | dst:
    arrived [0], plane [..1]) and the file's planes arrives at dst after the ring distance."""
    got, marks = session
    rt = {n: _framed_words(got[marks[f"rt{n}"] - 1]) + _framed_words(got[marks[f"rt{n}"]]) for n in range(M)}
    assert all(len(v) == RT_ENTRIES for v in rt.values())
    for s in range(M):
        for d in range(M):
            u, hop = s, 0
            while not rt[u][hop << DBITS | d] & 1:
                u = RING[rt[u][hop << DBITS | d] >> 1][u]
                hop += 1
                assert hop <= VCS, (s, d)
            assert u == d and hop == min((d - s) % M, (s - d) % M), (s, d, u, hop)


def test_plain_bursts_start_inside_the_table_and_single_registers_agree(session):
    got, marks = session
    plane = H.words_of(got[marks["plain_plane"]])
    assert plane == [RING[1][n] | 1 << DBITS for n in range(1, 4)]
    assert H.words_of(got[marks["plain_plane"] + 1]) == plane[:1]          # plane_rb at plane_addr
    rt_words = _framed_words(got[marks["rt3"] - 1]) + _framed_words(got[marks["rt3"]])
    assert H.words_of(got[marks["plain_rt"]]) == rt_words[5:12]
    assert H.words_of(got[marks["plain_rt"] + 1]) == rt_words[5:6]
