"""Demand files: sparse and dense CSV, .npy; every bad input one PermnetError."""

import io

import numpy as np
import pytest

from permnet.gen.errors import PermnetError
from permnet.gen.traffic.demand import check_demand, parse_demand_npy, parse_demand_text


def test_sparse_csv_adds_repeated_pairs_and_ignores_the_diagonal():
    D = parse_demand_text("src,dst,weight\n0,1,2\n# comment\n\n0,1,1.5\n2,2,9\n3,0,1e-3\n", 4)
    want = np.zeros((4, 4))
    want[0, 1], want[3, 0] = 3.5, 1e-3
    assert np.array_equal(D, want)


def test_headerless_sparse_and_dense_csv():
    assert parse_demand_text("0,1,2\n1,0,1\n", 5)[0, 1] == 2.0
    dense = parse_demand_text("0,1,2\n3,0,4\n5,6,7\n", 3)          # M = 3: three columns are dense
    assert dense.tolist() == [[0, 1, 2], [3, 0, 4], [5, 6, 0]]
    assert parse_demand_text("src,dst,weight\n0,2,1\n", 3)[0, 2] == 1.0


def test_npy_round_trip():
    rng = np.random.default_rng(0)
    A = rng.random((6, 6))
    buf = io.BytesIO()
    np.save(buf, A)
    D = parse_demand_npy(buf.getvalue(), 6)
    np.fill_diagonal(A, 0)
    assert np.array_equal(D, A)


@pytest.mark.parametrize("text,M,msg", [
    ("src,dst,weight\n0,1,-1\n", 4, "negative"),
    ("src,dst,weight\n0,1,nan\n", 4, "not finite"),
    ("src,dst,weight\n0,1,inf\n", 4, "not finite"),
    ("src,dst,weight\n0,4,1\n", 4, "out of range"),
    ("src,dst,weight\n-1,2,1\n", 4, "out of range"),
    ("src,dst,weight\n0,x,1\n", 4, "not an integer"),
    ("src,dst,weight\n0,1\n", 4, "expected src,dst,weight"),
    ("0,1\n1,0\n2,2\n", 3, "not square"),
    ("0,1,2,3\n1,0,1,1\n", 4, "not square"),
    ("0,1\n1,0\n", 3, "2 x 2 matrix for M=3"),
    ("0,1,2\n1,0\n", 4, "different lengths"),
    ("src,dst,weight\n1,1,5\n", 4, "no demand"),
    ("", 4, "no data"),
    ("0,a\n1,0\n", 2, "not a number"),
])
def test_bad_text_is_one_line(text, M, msg):
    with pytest.raises(PermnetError, match=msg) as e:
        parse_demand_text(text, M)
    assert "\n" not in str(e.value)


def test_bad_arrays():
    with pytest.raises(PermnetError, match="not square"):
        check_demand(np.ones((3, 4)))
    with pytest.raises(PermnetError, match="2 dimensions"):
        check_demand(np.ones(4))
    with pytest.raises(PermnetError, match="for M=5"):
        check_demand(np.ones((4, 4)), 5)
    with pytest.raises(PermnetError, match="not a readable"):
        parse_demand_npy(b"not numpy", 4)
    with pytest.raises(PermnetError, match="real numbers"):
        check_demand(np.array([["a", "b"], ["c", "d"]]))
