"""Channel dependency graph (issue 14): hop-indexed VCs make LDI acyclic;
one VC leaves a cycle whose every step is a real dependency, checked against
routes walked from ldi.route."""

import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from netsim_helpers import dependency_set, ldi_routes, run_main
from permnet.gen.analysis import deadlock
from permnet.gen.planes.decompose import ldi_planes
from permnet.gen.routing import tables


@st.composite
def ldi_params(draw, max_nodes=300):
    S = draw(st.integers(2, 9))
    M = draw(st.integers(S + 1, max_nodes))
    return M, S


@settings(max_examples=40, deadline=None)
@given(ldi_params())
def test_hop_indexed_vcs_make_ldi_acyclic(params):
    M, S = params
    net = tables.network("ldi", M, S)
    rep = deadlock.analyse(net.table)
    assert rep.acyclic and rep.cycle == [] and rep.vcs == net.table.max_hops
    # and the VC index grows along every dependency, the reason it is acyclic
    C = rep.channels
    deps = deadlock.dependencies(net.table, rep.vcs)
    a, b = np.divmod(deps, C)
    assert np.all(b % rep.vcs > a % rep.vcs)


def _check_cycle(M, S, rep, routes, planes):
    """Each consecutive pair (and last -> first) is used by some route walked from ldi.route."""
    real = dependency_set(routes, planes, rep.vcs)
    cyc = [((int(n), int(y)), int(v)) for (n, y), v in rep.cycle]
    assert len(cyc) >= 1
    for a, b in zip(cyc, cyc[1:] + cyc[:1]):
        assert (a, b) in real, (a, b)
        (n, y), _ = a
        assert planes[y][n] == b[0][0]      # the link of a ends where b starts


@settings(max_examples=25, deadline=None)
@given(ldi_params(max_nodes=60))
def test_one_vc_cycle_is_made_of_real_dependencies(params):
    M, S = params
    planes = ldi_planes(M, S).planes
    routes = ldi_routes(M, S)
    rep = deadlock.analyse(tables.network("ldi", M, S).table, vcs=1)
    real = dependency_set(routes, planes, 1)
    g = nx.DiGraph()
    g.add_edges_from(real)
    assert rep.acyclic == nx.is_directed_acyclic_graph(g)        # independent verdict (networkx)
    assert rep.dependencies == len(real)
    if M >= S * S and (M, S) != (4, 2):
        assert not rep.acyclic
    if not rep.acyclic:
        _check_cycle(M, S, rep, routes, planes)


@pytest.mark.parametrize("M,S", [(9, 3), (16, 4), (64, 8), (27, 3), (100, 7)])
def test_one_vc_is_cyclic_and_the_routing_needs_h(M, S):
    t = tables.network("ldi", M, S).table
    assert not deadlock.analyse(t, vcs=1).acyclic
    assert deadlock.analyse(t, vcs=t.max_hops).acyclic


def test_ldi_4_2_is_the_one_acyclic_case_with_one_vc():
    """LDI(4,2): plane 0 is (0)(1 2)(3), two of its eight channels are self-loops
    that no route uses, and the six dependencies left form no cycle. It is the
    only (M, S) with M >= S*S, S <= 9, M <= 300 for which one VC suffices
    (checked exhaustively when this test was written)."""
    planes = ldi_planes(4, 2).planes
    assert [int(planes[0][i]) for i in (0, 3)] == [0, 3]
    real = dependency_set(ldi_routes(4, 2), planes, 1)
    g = nx.DiGraph()
    g.add_edges_from(real)
    assert nx.is_directed_acyclic_graph(g)
    assert deadlock.analyse(tables.network("ldi", 4, 2).table, vcs=1).acyclic


def test_torus_dimension_order_needs_every_hop_vc():
    t = tables.network("torus", 36, 4).table          # 6x6, longest DOR route 6 hops
    assert t.max_hops == 6
    assert deadlock.analyse(t, vcs=6).acyclic
    rep = deadlock.analyse(t, vcs=5)
    assert not rep.acyclic
    # the cycle goes round a ring of the torus: the links close up
    for ((n, y), _), ((m, _), _) in zip(rep.cycle, rep.cycle[1:] + rep.cycle[:1]):
        assert t.planes[y][n] == m


def test_cli_json_and_exit_codes(capsys):
    def run_cli(a):
        return run_main(a, capsys)

    r = run_cli(["deadlock", "--topology", "ldi", "--nodes", "16", "--degree", "4", "--json"])
    assert r.exit_code == 0
    d = json.loads(r.output)
    assert d["acyclic"] is True and d["cycle"] == []
    r = run_cli(["deadlock", "-M", "16", "-S", "4", "--vcs", "1", "--json"])
    d = json.loads(r.output)
    assert r.exit_code == 0 and d["acyclic"] is False and len(d["cycle"]) >= 1
    (n, y), v = d["cycle"][0]
    assert v == 0 and 0 <= n < 16 and 0 <= y < 4
    assert run_cli(["deadlock", "-M", "16", "-S", "4", "--vcs", "1", "--require-acyclic"]).exit_code == 1
    assert run_cli(["deadlock", "-M", "16", "-S", "4", "--require-acyclic"]).exit_code == 0
    r = run_cli(["deadlock", "--topology", "debruijn", "-M", "64", "-S", "4", "--vcs", "2", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["acyclic"] is False


@pytest.mark.parametrize("args", [["-M", "16", "-S", "4", "--vcs", "0"], ["--topology", "torus", "-M", "64", "-S", "5"],
                                  ["--topology", "kautz", "-M", "64", "-S", "4"], ["-M", "3", "-S", "4"],
                                  ["--topology", "chordal", "-M", "12"]])
def test_cli_bad_input(args, capsys):
    r = run_main(["deadlock"] + args, capsys)
    assert r.exit_code == 2
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("permnet: error:")
