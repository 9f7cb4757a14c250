"""``permnet board --design hil``: the network design's build script routes with nextpnr's router2
(a whole network, as ``synth network`` does); the other designs keep nextpnr's default router."""

import pytest

from permnet.hdl.boards import build_board


def _nextpnr_line(plan) -> str:
    """The nextpnr command of the build plan's script (the files ``--no-build`` writes)."""
    script = plan.files["build_permnet_hil.sh"]
    script = script.decode() if isinstance(script, bytes) else script
    return next(line for line in script.splitlines() if line.startswith('"$NEXTPNR_ECP5"'))


@pytest.mark.parametrize("params,router2", [({"design": "network", "M": 4, "S": 2, "switching": "deflection"}, True),
                                            ({"design": "crossbar"}, False)])
def test_the_network_design_routes_with_router2(tmp_path, params, router2):
    line = _nextpnr_line(build_board("ulx3s", tmp_path, run_tools=False, design="hil", hil_params=params))
    assert "--timing-allow-fail" in line
    assert ("--router router2" in line) == router2
