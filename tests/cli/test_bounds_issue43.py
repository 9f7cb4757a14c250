"""Issue 43: requests with no bound on the work they ask for (the RTL's VCs, buffers, plane
ports and widths, trace spans and cycles, the HIL options) and RTL options that were accepted
and ignored: each is refused at once, one line and exit 2, nothing written."""

import numpy as np
import pytest

from cli_runner import run

ROUTER = ["rtl", "router", "-M", "8", "-S", "2", "-o", "r.v"]
NETWORK = ["rtl", "network", "-M", "8", "-S", "2", "-o", "n.v"]


@pytest.fixture
def folder(tmp_path):
    run("planes", "ldi", "--nodes", "8", "--degree", "2", "-o", "p.json", cwd=tmp_path)
    (tmp_path / "late.trace").write_text(f"{10 ** 18} 0 1 2\n")
    return tmp_path


@pytest.mark.parametrize("args,needle", [
    ([*ROUTER, "--vcs", "0"], "--vcs must be in 1..64, got 0"),                # was "the default": a whole run
    ([*ROUTER, "--vcs", "100000"], "--vcs must be in 1..64"),
    ([*ROUTER, "--buffer", str(1 << 40)], "--buffer must be a power of two in 2..1024"),
    ([*ROUTER, "--buffer", "1024"], "S*vcs*buffer <= 2048 flit slots"),
    (["synth", "router", "-M", "8", "-S", "2", "--vcs", "0"], "--vcs must be in 1..64"),
    (["synth", "router", "-M", "8", "-S", "2", "--pnr-seed", "99999999999999999999"], "--pnr-seed"),
    ([*NETWORK, "--vcs", "0"], "--vcs must be in 1..64"),
    ([*NETWORK, "--endpoints", "stream", "--lanes", "0"], "--lanes must be 1 or 2"),
    ([*NETWORK, "--planes-file", "p.json", "--topology", "hypercube"], "replaces the topology"),
    ([*NETWORK, "--span", "1000000000000"], "--span must be 1..65536"),
    ([*NETWORK, "--trace", "late.trace"], "late.trace:1: cycle must be 0..10^7"),
    (["netsim", "-M", "8", "-S", "2", "--trace", "late.trace"], "late.trace:1: cycle must be 0..10^7"),
    (["rtl", "planes", "--kind", "crossbar", "--network", "waksman", "--planes", "p.json", "-o", "x.v"],
     "--network is an option of --kind benes"),
    (["rtl", "planes", "--planes", "p.json", "--fwd-width", "1000000", "-o", "x.v"], "--fwd-width must be 1..1024"),
    (["rtl", "planes", "--planes", "p.json", "--bwd-width", "4096", "-o", "x.v"], "--bwd-width must be 1..1024"),
    (["hil", "regmap", "--design", "network", "--ports", "64", "--slots", "8"],
     "--ports, --slots: not for the network design (options of the crossbar design)"),
    (["hil", "regmap", "--idle-timeout", str(10 ** 20)], "--idle-timeout"),
    (["hil", "regmap", "--design", "nexthop", "--nh-pipeline", "1000000"], "--nh-pipeline"),
    (["board", "icebreaker", "--design", "hil", "--hil-design", "network", "-M", "64", "-S", "4", "--planes",
      "crossbar", "--no-build", "-o", "b"], "M*S*vcs <= 512 VC buffers"),
])
def test_refused_at_once(args, needle, folder):
    before = sorted(p.name for p in folder.iterdir())
    p = run(*args, check=False, cwd=folder, timeout=60)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert p.stderr.startswith("permnet: error:") and p.stderr.count("\n") == 1 and needle in p.stderr, p.stderr
    assert sorted(x.name for x in folder.iterdir()) == before


def test_a_plane_of_too_many_ports_is_refused_before_elaboration(tmp_path):
    """The audit's plane had 300,000 ports (rtl/synth planes ran for minutes at 1 GB); 2048 is
    past the bound as well and quicker to write."""
    from permnet import ocsconfig

    n = 2048
    ocsconfig.write_files(ocsconfig.OcsConfig(np.array([(np.arange(n) + 1) % n]), {}), tmp_path / "big.json")
    for cmd in (["rtl", "planes", "--planes", "big.json", "-o", "big.v"], ["synth", "planes", "--planes", "big.json"]):
        p = run(*cmd, check=False, cwd=tmp_path, timeout=60)
        assert p.returncode == 2 and "at most 1024 ports, got planes of 2048" in p.stderr, p.stderr
    assert [x.name for x in tmp_path.iterdir()] == ["big.json"]


def test_hil_options_that_apply_still_work(tmp_path):
    """The checks refuse only what a design ignores."""
    p = run("hil", "regmap", "--design", "network", "-M", "8", "-S", "2", "--width", "8", "--idle-timeout", "4096",
            cwd=tmp_path)
    assert "netgen" in p.stdout
    run("hil", "regmap", "--design", "all", "--ports", "16", "--size", "8", "--nh-pipeline", "3", cwd=tmp_path)


@pytest.mark.parametrize("args", [
    ["rtl", "planes", "--planes", "p.json", "-o", "p.json"],
    [*NETWORK[:-2], "--planes-file", "p.json", "-o", "p.json"],
    ["plan", "-M", "8", "-S", "2", "--traffic", "d.csv", "-o", "d.csv"],
])
def test_output_over_its_input_is_refused(args, folder):
    (folder / "d.csv").write_text("src,dst,weight\n0,1,1\n2,3,1\n")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    p = run(*args, check=False, cwd=folder, timeout=60)
    assert p.returncode == 2 and "would replace the input" in p.stderr and p.stderr.count("\n") == 1, p.stderr
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
