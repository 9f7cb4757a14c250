"""The HIL suite runs against the Verilator model (built once per session,
cached in build/hil-sim across sessions) and, with ``--hil-url URL``,
against a board; the board parameters are read from the device."""

import shutil
from pathlib import Path

import pytest

BUILD = Path(__file__).resolve().parents[2] / "build" / "hil-sim"
MODEL = {"design": "all", "ports": 8, "width": 8, "size": 8, "M": 18, "S": 3, "opt": "-O0"}
# the one network model of the suite: LDI(8,2) on crossbar planes loadable over the link, with
# 4 hop-indexed VCs (so a ring + reverse-ring plane set, 4 hops, can be swapped in)
NET_MODEL = {"design": "network", "M": 8, "S": 2, "width": 8, "planes": "crossbar", "vcs": 4, "opt": "-O1"}


def _need_verilator():
    if shutil.which("verilator") is None:
        try:
            from permnet.hdl.hil.verilator import verilator_path
            verilator_path()
        except Exception:
            pytest.skip("verilator not available")


def _build(model: dict):
    """The Verilator model of ``model`` (``HilTop`` keywords and ``opt``), cached in :data:`BUILD`."""
    _need_verilator()
    from permnet.hdl.hil.verilator import build

    params = dict(model)
    return build(BUILD, design=params.pop("design"), **params)


@pytest.fixture(scope="session")
def hil_model():
    return _build(MODEL)


@pytest.fixture(scope="session")
def hil_model_params():
    """``HilTop`` keyword arguments of the session model (for its register map)."""
    return {k: v for k, v in MODEL.items() if k != "opt"}


@pytest.fixture(scope="session")
def hil_server(hil_model):
    from permnet.hdl.hil.verilator import SimServer

    with SimServer(hil_model, max_seconds=600) as srv:
        yield srv


@pytest.fixture(scope="session", params=["sim", "board"])
def hil_url(request):
    if request.param == "board":
        url = request.config.getoption("--hil-url")
        if not url:
            pytest.skip("no --hil-url given")
        return url
    return request.getfixturevalue("hil_server").url


@pytest.fixture(scope="session")
def net_model():
    """The network model (:data:`NET_MODEL`), built once per session (cached across sessions)."""
    return _build(NET_MODEL)


@pytest.fixture(scope="session")
def net_url(net_model):
    from permnet.hdl.hil.verilator import SimServer

    with SimServer(net_model, max_seconds=1200) as srv:
        yield srv.url
