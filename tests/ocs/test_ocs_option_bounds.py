"""Option values of the ``ocs`` commands that passed their checks and then
failed or were ignored (issue 43): a ``--timeout`` of 1e308 (an internal
OverflowError), a ``--settle-s`` of NaN (it passed ``0..600`` because NaN
compares false with both bounds, and the apply said VERIFIED), SSH host key
options given with a protocol that has no SSH.  Each is refused in one line,
exit 2, before any device is touched: the emulator on 127.0.0.1 keeps its
state."""

import math

import numpy as np
import pytest
from cli_runner import run_in_process
from ocs_helpers import Emulator

from permnet import ocsconfig
from permnet.gen.errors import PermnetError
from permnet.ocs.driver import MAX_TIMEOUT_S
from permnet.ocs.scpi import serve_scpi
from permnet.ocs.switchcore import SwitchCore
from permnet.ocs.transaction import Target, apply_targets, recover

ROW = np.array([1, 2, 3, 0], np.int64)


@pytest.fixture
def scpi(tmp_path):
    with Emulator(serve_scpi, SwitchCore(4)) as emu:
        ocsconfig.write(ocsconfig.OcsConfig(ROW[None, :], {}), tmp_path / "p.json")
        yield emu


def one_line_refusal(code, out, err, *words):
    assert code == 2, (code, out, err)
    assert out == "" and len(err.splitlines()) == 1 and err.startswith("permnet: error: "), err
    for w in words:
        assert w in err, err


def apply_args(tmp_path, emu, *extra):
    return ("ocs", "apply", "--config", tmp_path / "p.json", "--device", f"sw={emu.address}", "--protocol", "scpi",
            "--state-dir", tmp_path / "state", *extra)


@pytest.mark.parametrize("opt,value", [("--timeout", "1e308"), ("--timeout", str(MAX_TIMEOUT_S * 2)),
                                       ("--timeout", "nan"), ("--settle-s", "nan"), ("--settle-s", "-nan")])
def test_apply_refuses_an_unbounded_or_nan_time(capsys, tmp_path, scpi, opt, value):
    code, out, err = run_in_process(capsys, *apply_args(tmp_path, scpi, opt, value))
    one_line_refusal(code, out, err, opt)
    assert (scpi.core.snapshot() == -1).all()                # nothing sent


def test_the_largest_timeout_is_accepted(capsys, tmp_path, scpi):
    code, out, err = run_in_process(capsys, *apply_args(tmp_path, scpi, "--timeout", MAX_TIMEOUT_S,
                                                        "--settle-s", "0"))
    assert code == 0 and "VERIFIED" in out, err
    assert (scpi.core.snapshot() == ROW).all()


@pytest.mark.parametrize("args", [("recover", "--timeout", "1e308"), ("recover", "--settle-s", "nan"),
                                  ("read", "--device", "127.0.0.1:9", "--protocol", "scpi", "--timeout", "1e308"),
                                  ("emulate", "--ports", "4", "--seconds", "1", "--delay-ms", "nan"),
                                  ("emulate", "--ports", "4", "--seconds", "1", "--settle-ms", "nan")])
def test_other_commands_refuse_an_unbounded_or_nan_time(capsys, tmp_path, args):
    extra = ("--state-dir", tmp_path) if args[0] == "recover" else ()
    code, out, err = run_in_process(capsys, "ocs", *args, *extra)
    one_line_refusal(code, out, err, args[-2])


def test_the_library_refuses_them_too(tmp_path, scpi):
    t = Target("sw", "scpi", scpi.address, ROW, None, None, 1.0)
    with pytest.raises(PermnetError, match="settle"):
        apply_targets([t], settle_s=math.nan, progress=False)
    with pytest.raises(PermnetError, match="time-out"):
        apply_targets([Target("sw", "scpi", scpi.address, ROW, None, None, 1e308)], progress=False)
    with pytest.raises(PermnetError, match="time-out"):
        recover(tmp_path, timeout=1e308)
    with pytest.raises(PermnetError, match="settle"):
        recover(tmp_path, settle_s=math.nan)
    assert (scpi.core.snapshot() == -1).all()


# ------------------------------------------------------------------ host key options
@pytest.mark.parametrize("protocol", ["scpi", "tl1"])
@pytest.mark.parametrize("opt", [("--trust-new-host-key",), ("--known-hosts", "kh")])
def test_host_key_options_without_ssh_are_refused(capsys, tmp_path, scpi, protocol, opt):
    code, out, err = run_in_process(capsys, "ocs", "read", "--device", scpi.address, "--protocol", protocol, *opt)
    one_line_refusal(code, out, err, opt[0], "netconf")
    if protocol == "scpi":
        code, out, err = run_in_process(capsys, *apply_args(tmp_path, scpi, *opt))
        one_line_refusal(code, out, err, opt[0], "netconf")
        assert (scpi.core.snapshot() == -1).all()
