"""``ocs emulate`` options that were accepted and did nothing, or failed
inside (issue 43): an empty ``--fault`` list (``+``), a ``--known-hosts``
file of random bytes (an internal UnicodeDecodeError), host key options with
a protocol that has no SSH.  Each is refused in one line, exit 2."""

import os

import pytest
from cli_runner import run_in_process

from permnet.gen.errors import PermnetError
from permnet.ocs.switchcore import Faults


def one_line_refusal(code, out, err, *words):
    assert code == 2, (code, out, err)
    assert out == "" and len(err.splitlines()) == 1 and err.startswith("permnet: error: "), err
    for w in words:
        assert w in err, err


# ------------------------------------------------------------------ --fault
@pytest.mark.parametrize("spec", ["+", "", "refuse+", "+refuse", "refuse++misapply"])
def test_an_empty_fault_is_refused(capsys, spec):
    with pytest.raises(PermnetError, match="empty"):
        Faults.parse(spec)
    if spec == "+":
        code, out, err = run_in_process(capsys, "ocs", "emulate", "--ports", "4", "--fault", spec, "--seconds", "1")
        one_line_refusal(code, out, err, "--fault", "empty")


def test_faults_still_parse():
    f = Faults.parse("refuse+drop:2+freeze:1")
    assert f.refuse and f.drop_at == 2 and f.freeze_s == 1
    assert not Faults.parse(None).refuse


def test_emulate_host_key_options_without_netconf_are_refused(capsys, tmp_path):
    for opt in (("--known-hosts", tmp_path / "kh"), ("--host-key", tmp_path / "key")):
        code, out, err = run_in_process(capsys, "ocs", "emulate", "--ports", "4", "--seconds", "1", *opt)
        one_line_refusal(code, out, err, opt[0], "netconf")
        assert not os.path.exists(opt[1])


def test_emulate_with_a_known_hosts_file_that_is_not_text(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PERMNET_OCS_USER", "op")
    monkeypatch.setenv("PERMNET_OCS_PASSWORD", "option-bounds-secret-5")
    kh = tmp_path / "kh"
    kh.write_bytes(bytes(range(128, 256)) * 4)
    code, out, err = run_in_process(capsys, "ocs", "emulate", "--ports", "4", "--protocol", "netconf",
                                    "--known-hosts", kh, "--seconds", "1", "--listen", "127.0.0.1:0")
    one_line_refusal(code, out, err, str(kh))
    assert "UnicodeDecodeError" not in err
    assert kh.read_bytes() == bytes(range(128, 256)) * 4      # left as it was


@pytest.mark.parametrize("row", ["[1e400, 1, 2, 3]", "[0.7, 1, 2, 3]", "[true, 1, 2, 3]", "[[0], 1, 2, 3]",
                                 "[" * 100000 + "]" * 100000])
def test_an_emulator_state_row_of_non_integers_is_refused(capsys, tmp_path, row):
    """1e400 was an internal OverflowError, 0.7 and true were read as ports 0 and 1."""
    state = tmp_path / "state.json"
    state.write_text('{"ports": 4, "row": ' + row + "}")
    code, out, err = run_in_process(capsys, "ocs", "emulate", "--ports", "4", "--state", state, "--seconds", "1")
    one_line_refusal(code, out, err, f"emulator state {state}")
