"""The HIL suite runs against the Verilator model (built once per session,
cached in build/hil-sim across sessions) and, with ``--hil-url URL``,
against a board; the board parameters are read from the device."""

import shutil
from pathlib import Path

import pytest

BUILD = Path(__file__).resolve().parents[2] / "build" / "hil-sim"
MODEL = {"design": "all", "ports": 8, "width": 8, "size": 8, "M": 18, "S": 3, "opt": "-O0"}


@pytest.fixture(scope="session")
def hil_model():
    if shutil.which("verilator") is None:
        try:
            from permnet.hdl.hil.verilator import verilator_path
            verilator_path()
        except Exception:
            pytest.skip("verilator not available")
    from permnet.hdl.hil.verilator import build

    params = dict(MODEL)
    return build(BUILD, design=params.pop("design"), **params)


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
