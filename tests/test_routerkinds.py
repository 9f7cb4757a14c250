"""The router kinds' registry (permnet/routerkinds.py): every command that builds or simulates a
network refuses, in one line and with exit status 2, the options another kind owns; the tables of
the lower layers (the simulator's models, the HIL design's routers, the host driver's decoding)
name the same switchings; a kind registered in a test reaches the dispatch of every command's
library call without a change to the callers."""

import importlib
from dataclasses import replace

import pytest

from permnet import routerkinds
from permnet.cli import main
from permnet.gen.errors import PermnetError

# the commands of each registry command, cheap argv up to the options under test (the refusal comes
# before anything is built, simulated or written)
ARGV = {
    "router": [["rtl", "router", "-M", "8", "-S", "2", "-o", "r.v"],
               ["synth", "router", "-M", "8", "-S", "2"]],
    "network": [["rtl", "network", "-M", "8", "-S", "2", "--endpoints", "stream", "-o", "n.v"],
                ["synth", "network", "-M", "8", "-S", "2", "--endpoints", "stream"]],
    "netsim": [["netsim", "-M", "8", "-S", "2", "--cycles", "20", "--warmup", "0"]],
    "hil": [["hil", "regmap", "--design", "network", "-M", "8", "-S", "2"],
            ["hil", "sim", "--design", "network", "-M", "8", "-S", "2", "--listen", "127.0.0.1:0"],
            ["rtl", "hil", "--design", "network", "-M", "8", "-S", "2", "-o", "h.v"],
            ["board", "ulx3s", "--design", "hil", "--hil-design", "network", "-M", "8", "-S", "2", "--no-build",
             "-o", "b"]],
}

# a valid value for every option some kind owns (what click accepts; the kind must refuse it)
VALUES = {"vcs": "3", "buffer": "8", "lanes": "2", "eject": "vc", "max_size": "2", "link_stages": "1",
          "credit_stages": "1", "allocator": "input-first", "plane_stages": "1", "trace": "t.txt", "packets": "9",
          "span": "9", "seed": "1", "ejection": "port", "ejection_width": "1", "stages": "2",
          "deflection_allocator": "ideal", "deflect": "nearest", "side_buffer": "2",
          "priority": "random"}


def _command(argv):
    """The click command ``argv`` names."""
    module = importlib.import_module(f"permnet.cli.{argv[0]}")
    return module.group.commands[argv[1]] if argv[1] in getattr(module.group, "commands", {}) else module.group


def _flag(argv, name):
    return max(next(p for p in _command(argv).params if p.name == name).opts, key=len)


def _cases():
    for command, argvs in ARGV.items():
        for kind in routerkinds.KINDS:
            for switching in kind.switchings_for(command):
                mine = set(kind.owns.get(command, ()))
                for other in routerkinds.KINDS:
                    for name in other.owns.get(command, ()):
                        if other is not kind and name not in mine:
                            for argv in argvs:
                                yield pytest.param(argv, switching, name, other,
                                                   id=f"{' '.join(argv[:2])}-{switching}-{name}")


@pytest.mark.parametrize("argv,switching,name,owner", list(_cases()))
def test_every_command_refuses_the_options_of_other_kinds_in_one_line(argv, switching, name, owner, tmp_path,
                                                                      monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    flag = _flag(argv, name)
    assert main([*argv, "--switching", switching, flag, VALUES[name]]) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("permnet: error:") and flag in lines[0], err
    # the kind's own message names its switching; without one the message names the owner's
    command = "netsim" if argv[0] == "netsim" else "hil" if "hil" in argv else argv[1]
    named = switching if command in routerkinds.router_kind(switching).refuses else owner.switchings_for(command)[0]
    assert f"--switching {named}" in lines[0], err
    assert list(tmp_path.iterdir()) == []


# issue 41: what means nothing for a bufferless router, refused in every command that has it (written
# out here, independently of the registry, so an option missing from it fails)
BUFFERLESS = [(argv, flag, value) for argv in ARGV["router"] + ARGV["network"] + ARGV["netsim"]
              for flag, value in (("--vcs", "3"), ("--buffer", "8"), ("--credit-stages", "1"),
                                  ("--allocator", "input-first"), ("--lanes", "2"))] + \
             [(argv, "--vcs", "3") for argv in ARGV["hil"]] + \
             [(argv, flag, "1") for argv in ARGV["router"] + ARGV["network"] for flag in ("--link-stages", "--max-size")]


@pytest.mark.parametrize("argv,flag,value", BUFFERLESS, ids=[f"{' '.join(a[:2])}{f}" for a, f, _ in BUFFERLESS])
def test_deflection_refuses_what_a_bufferless_router_has_not(argv, flag, value, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "--switching", "deflection", flag, value]) == 2
    err = capsys.readouterr().err.strip()
    assert flag in err and "--switching deflection" in err and len(err.splitlines()) == 1, err


@pytest.mark.parametrize("argv", [ARGV["router"][0], ARGV["network"][0], ARGV["netsim"][0], ARGV["hil"][0]])
def test_an_option_of_the_deflection_router_names_its_switching(argv, tmp_path, monkeypatch, capsys):
    """Without --switching the VC router is built; a deflection option says which switching it needs."""
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "--ejection-width", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--ejection-width" in err and "--switching deflection" in err and len(err.splitlines()) == 1


def test_the_lower_layers_name_the_same_switchings():
    """The simulator's models, the HIL design's routers and the host driver's decoding are keyed by
    the switchings the kinds declare for those commands; the CLI offers exactly those."""
    from permnet.cli import hil as hil_cli
    from permnet.cli import netsim as netsim_cli
    from permnet.hdl.hil.top import NETWORK_DESIGNS
    from permnet.hil.netrun import DEVICE_ROUTERS
    from permnet.sim.netsim.run import MODELS

    assert set(routerkinds.switchings("netsim")) == set(MODELS) == {"vct", "wormhole", "deflection"}
    assert set(routerkinds.switchings("hil")) == set(NETWORK_DESIGNS) == set(DEVICE_ROUTERS) == {"vct",
                                                                                                   "deflection"}
    assert all(routers.switching == s for s, routers in DEVICE_ROUTERS.items())
    choices = {"netsim": next(p for p in netsim_cli.group.params if p.name == "switching").type.choices,
               "hil": next(p for p in hil_cli.group.commands["regmap"].params if p.name == "switching").type.choices}
    for argv in ARGV["router"] + ARGV["network"]:
        choices[argv[1]] = next(p for p in _command(argv).params if p.name == "switching").type.choices
    for command, got in choices.items():
        assert tuple(got) == routerkinds.switchings(command), command


def test_owned_options_are_options_of_their_commands():
    """A kind's options are parameters of every command of its registry command (no typo that would
    leave an option unchecked)."""
    for command, argvs in ARGV.items():
        for argv in argvs:
            names = {p.name for p in _command(argv).params}
            for kind in routerkinds.KINDS:
                assert set(kind.owns.get(command, ())) <= names, (kind.name, argv[:2])
                assert "{options}" in kind.refuses.get(command, "{options}")


@pytest.fixture
def fake_kind(monkeypatch):
    """A third kind: one switching ``fake``, one option of its own per command, builders that
    return what they were given, and the VC model under its name in the simulator."""
    from permnet.sim.netsim import run as sim_run

    def built(what):
        return lambda target="generic", **options: (what, target, options)

    kind = routerkinds.RouterKind(
        "fake", ("fake",), owns={c: ("fake_option",) for c in routerkinds.COMMANDS},
        router_rtl=built("router"), network_rtl=built("network"),
        hil_params=lambda switching, **options: {"switching": switching, "fake": options},
        netsim_defaults={"packet_size": 2})
    monkeypatch.setattr(routerkinds, "KINDS", [*routerkinds.KINDS, kind])
    vc = sim_run.MODELS["vct"]
    monkeypatch.setitem(sim_run.MODELS, "fake", replace(vc, check=lambda cfg, h: replace(
        vc.check(replace(cfg, switching="vct"), h), switching="fake")))
    return kind


def test_a_new_kind_reaches_the_dispatch(fake_kind):
    from permnet.cli.rtl_modules import gen_network, gen_router, hil_params

    what, target, options = gen_router("ecp5", M=8, S=2, switching="fake", vcs=None, ejection_width=None,
                                       fake_option=7)
    # the other kinds' options are not handed to it; its own are
    assert (what, target) == ("router", "ecp5") and options == {"M": 8, "S": 2, "switching": "fake",
                                                               "fake_option": 7}
    assert gen_network(M=8, S=2, switching="fake", planes_file=None, stages=None)[0] == "network"
    params = hil_params(design="network", ports=8, width=8, slots=1, size=8, mask_text="0", network="benes", M=8,
                        S=2, nh_pipeline=2, plain=False, idle_timeout=None, switching="fake")
    assert params["switching"] == "fake" and params["M"] == 8 and "vcs" not in params["fake"]
    assert routerkinds.switchings("router")[-1] == "fake"


def test_a_new_kind_refuses_and_is_refused(fake_kind):
    with pytest.raises(PermnetError, match=r"^--vcs needs --switching vct or wormhole$"):
        routerkinds.check_options("fake", "router", {"vcs": "--vcs"})
    with pytest.raises(PermnetError, match=r"^--fake-option needs --switching fake$"):
        routerkinds.check_options("vct", "netsim", {"fake_option": "--fake-option"})
    # the deflection router's own message lists the new kind's option too
    with pytest.raises(PermnetError, match=r"drop --fake-option$"):
        routerkinds.check_options("deflection", "router", {"fake_option": "--fake-option"})


def test_a_new_kind_runs_in_netsim(fake_kind):
    """``permnet.netsim.run`` takes the new kind's defaults and the simulator its model."""
    from permnet.netsim import NetsimRequest, run
    from permnet.sim.netsim import Config

    rep = run(NetsimRequest(["ldi"], 8, 2, load="0.05"), Config(switching="fake", warmup=0, cycles=50))
    point = rep.sweeps[0].points[0]
    assert point.delivered > 0 and point.accepted_flits == pytest.approx(2 * point.accepted)


def test_unknown_switching_is_named():
    """Bad input to the library (the CLI offers only the kinds' switchings): a PermnetError,
    as Config.check raised for netsim before the registry."""
    from permnet.netsim import NetsimRequest, run
    from permnet.sim.netsim import Config

    with pytest.raises(PermnetError, match="unknown switching 'bogus' \\(vct, wormhole, deflection\\)"):
        routerkinds.router_kind("bogus")
    with pytest.raises(PermnetError, match="unknown switching 'bogus'"):
        run(NetsimRequest(["ldi"], 8, 2, load="0.05"), Config(switching="bogus"))


def test_every_refused_option_is_named_whichever_kind_owns_it(fake_kind):
    """Options of two other kinds given together: the one line names both, each with the
    switching it needs (not only the first owner's)."""
    with pytest.raises(PermnetError) as e:
        routerkinds.check_options("vct", "router", {"ejection_width": "--ejection-width",
                                                    "fake_option": "--fake-option"})
    assert str(e.value) == "--ejection-width needs --switching deflection; --fake-option needs --switching fake"


def test_a_kind_without_a_builder_is_not_offered_there(monkeypatch):
    """A kind that builds no router RTL (a simulator model only, say) is not a choice of
    ``rtl|synth router``, so the command never calls a missing builder; the other commands
    still offer it."""
    kind = routerkinds.RouterKind("model-only", ("model-only",), network_rtl=lambda target="generic", **o: None)
    monkeypatch.setattr(routerkinds, "KINDS", [*routerkinds.KINDS, kind])
    assert "model-only" not in routerkinds.switchings("router")
    assert "model-only" not in routerkinds.switchings("hil")
    assert routerkinds.switchings("network")[-1] == "model-only"
    assert routerkinds.switchings("netsim")[-1] == "model-only"


def test_the_simulator_names_the_models_it_has(fake_kind):
    """An unknown switching is refused with the simulator's models as they are (a model added
    to MODELS is named)."""
    from permnet.sim.netsim import Config

    with pytest.raises(PermnetError, match=r"^switching must be vct, wormhole, deflection, fake, got 'bogus'$"):
        Config(switching="bogus").check(3)


def test_the_hil_options_of_a_kind_are_keywords_its_design_takes():
    """What a kind's ``hil_params`` hands HilTop (its HIL options, all given) are the options
    the HIL design of each of its switchings builds with (hdl/hil/top.py NETWORK_DESIGNS,
    NETWORK_OPTIONS), and every such option comes from one of the kind's own: the two tables
    name the same options."""
    from permnet.hdl.hil.top import NETWORK_DESIGNS, NETWORK_OPTIONS

    for kind in routerkinds.KINDS:
        for switching in kind.switchings_for("hil"):
            given = {name: 1 for name in kind.owns.get("hil", ())}
            keywords = set(kind.hil_params(switching=switching, **given)) - {"switching"}
            assert keywords == set(NETWORK_DESIGNS[switching].options), switching
            assert keywords <= set(NETWORK_OPTIONS), switching


@pytest.mark.parametrize("switching,net,fields", [
    ("vct", dict(M=16, S=4, V=5, B=4, W=28, Q=64, L=3), {"vcs": 5, "buffer": 4, "lanes": 3}),
    ("deflection", dict(M=16, S=4, P=2, W=28, Q=64, E=3), {"stages": 2, "ejection": 3}),
])
def test_the_host_decodes_the_kind_the_design_encodes(switching, net, fields):
    """The words of netgen_info/netgen_info2 a HIL design writes (hdl/hil/top.py NETWORK_DESIGNS)
    are read back by the host (permnet/hil/netrun.py DEVICE_ROUTERS) as the same kind and fields."""
    from types import SimpleNamespace

    from permnet.hdl.hil.top import NETWORK_DESIGNS
    from permnet.hil.netrun import DEVICE_ROUTERS

    a, b = NETWORK_DESIGNS[switching].info(SimpleNamespace(**net))
    [routers] = [r for r in DEVICE_ROUTERS.values() if r.matches(a, b)]
    assert routers.switching == switching and routers.fields(a, b) == fields


@pytest.mark.parametrize("fields,message", [
    (dict(buffer=0), r"^buffer mean\(s\) nothing for deflection switching"),
    (dict(packet_size=2000), r"^deflection switching carries single-flit packets, got packet size 2000$"),
    (dict(packet_size=0), r"^deflection switching carries single-flit packets, got packet size 0$"),
    (dict(vcs=2, link_stages=99), r"^vcs mean\(s\) nothing for deflection switching"),
])
def test_the_simulator_refuses_what_a_router_has_not_before_ranges(fields, message):
    """A field the deflection router has not (a VC buffer, packets of more than one flit) is
    refused as such, not as a value out of a VC router's range."""
    from permnet.sim.netsim import Config

    with pytest.raises(PermnetError, match=message):
        Config(switching="deflection", **fields).check(3)


def test_netsim_refuses_a_long_packet_on_deflection_routers_as_such(capsys):
    assert main(["netsim", "-M", "8", "-S", "2", "--cycles", "20", "--warmup", "0", "--switching", "deflection",
                 "--packet-size", "2000"]) == 2
    assert capsys.readouterr().err.strip() == ("permnet: error: deflection switching carries single-flit packets, "
                                               "got packet size 2000")
