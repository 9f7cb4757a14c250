"""``permnet fabric``: compile, verify, reconfigure, bad input -- checked from the files written.

The fabric folder is read back with independent parsers (cabling.csv,
attachments.csv, the SONiC/TL1 device scripts) and the light is walked
through cables and cross-connects by ``fabric_helpers.walk_planes``.
"""

import csv
import json
import re
import shutil

import numpy as np
import pytest

from cli_runner import run
from permnet.cli import main
from fabric_helpers import walk_planes
from permnet.gen.planes.decompose import ldi_planes
from permnet.gen.planes.faults import reembed_planes

INVENTORY = """
[[device]]
name = "ocs"
model = "sonic-64"
ports = 8
count = 80

[[device]]
name = "big"
protocol = "tl1"
ports = 24
"""


class _Result:
    def __init__(self, code, out, err):
        self.returncode, self.stdout, self.stderr = code, out, err


def _runner(capsys):
    """``run`` in this process (numba's compiled code is reused between calls)."""
    def go(*args, check=True):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:          # verify's exit 1 on a mismatch
            code = exc.code
        out = capsys.readouterr()
        if check:
            assert code == 0, out.err
        return _Result(code, out.out, out.err)
    return go


def _inventory(tmp_path, text=INVENTORY):
    p = tmp_path / "inv.toml"
    p.write_text(text)
    return p


def _read_folder(d, devices):
    """Cross-connects per device (faceplate -> faceplate, from the device files), cables,
    attachments, all parsed here without permnet."""
    names = {name: i for i, (name, _) in enumerate(devices)}
    xc = [dict() for _ in devices]
    for f in (d / "devices").iterdir():
        dev = names[f.stem]
        text = f.read_text()
        for a, b in re.findall(r"cross-connect add (\d+)A-(\d+)B", text):
            xc[dev][int(a)] = int(b)
        for a, b in re.findall(r"ENT-PATCH::(\d+),(\d+):", text):
            xc[dev][int(a)] = int(b)
    with open(d / "cabling.csv") as fh:
        rows = list(csv.DictReader(fh))
    cables = [(names[r["from_device"]], int(r["from_port"]), names[r["to_device"]], int(r["to_port"])) for r in rows]
    with open(d / "attachments.csv") as fh:
        att = list(csv.DictReader(fh))
    return xc, cables, att


def _walk_folder(d, P, n):
    doc = json.loads((d / "fabric.json").read_text())
    devices = [(x["name"], x["ports"]) for x in doc["devices"]]
    xc, cables, att = _read_folder(d, devices)
    names = {name: i for i, (name, _) in enumerate(devices)}
    # Labels are used as port numbers throughout: arrays big enough for any label.
    big = max(p for _, p in devices) * 3 + 2
    arr = [np.full(big, -1) for _ in devices]
    for i, m in enumerate(xc):
        for a, b in m.items():
            arr[i][a] = b
    inputs = np.zeros((P, n, 2), dtype=int)
    outputs = np.zeros((P, n, 2), dtype=int)
    for r in att:
        y, k = int(r["plane"]), int(r["node"])
        inputs[y, k] = (names[r["tx_device"]], int(r["tx_port"]))
        outputs[y, k] = (names[r["rx_device"]], int(r["rx_port"]))
    return walk_planes(P, n, None, arr, cables, inputs, outputs)


def test_compile_ldi_onto_small_switches_realises_the_planes(tmp_path):
    inv = _inventory(tmp_path)
    out = tmp_path / "fab"
    p = run("fabric", "compile", "--topology", "ldi", "--nodes", 40, "--degree", 4, "--inventory", inv,
            "-o", out, "--json")
    rep = json.loads(p.stdout)
    assert {"devices_used", "cables", "max_passes", "max_loss_db"} <= set(rep)
    planes = ldi_planes(40, 4).planes
    got, passes = _walk_folder(out, 4, 40)
    assert np.array_equal(got, planes)
    assert rep["max_passes"] == passes.max()
    assert rep["max_loss_db"] == pytest.approx(passes.max() * 1.2)
    assert "Devices by role" in (out / "bom.md").read_text()
    assert (out / "cabling.csv").read_text().splitlines()[0] == "cable,from_device,from_port,to_device,to_port"
    # a read-back of the devices as written verifies
    assert run("fabric", "verify", "--fabric", out / "fabric.json", "--readback", out / "devices").returncode == 0


def test_verify_names_the_device_of_an_altered_crossconnect(tmp_path, capsys):
    run = _runner(capsys)
    inv = _inventory(tmp_path)
    out = tmp_path / "fab"
    run("fabric", "compile", "--topology", "ldi", "--nodes", 40, "--degree", 4, "--inventory", inv, "-o", out)
    rb = tmp_path / "rb"
    shutil.copytree(out / "devices", rb)
    victim = sorted(rb.glob("ocs-*.sh"))[3]
    lines = victim.read_text().splitlines()
    idx = [i for i, ln in enumerate(lines) if ln.startswith("config ocs")][0]
    lines.pop(idx)                                        # one lost cross-connect
    victim.write_text("\n".join(lines) + "\n")
    p = run("fabric", "verify", "--fabric", out / "fabric.json", "--readback", rb, "--json", check=False)
    assert p.returncode == 1, p.stderr
    rep = json.loads(p.stdout)
    assert not rep["verified"] and rep["broken"]
    assert {b["device"] for b in rep["broken"]} == {victim.stem}
    # the wrong device's file, ports out of range, a missing read-back: unusable input
    shutil.copy(out / "devices" / victim.name, rb / victim.name)
    other = sorted(rb.glob("ocs-*.sh"))[4]
    shutil.copy(out / "devices" / victim.name, other)
    p = run("fabric", "verify", "--fabric", out / "fabric.json", "--readback", rb, check=False)
    assert p.returncode == 2 and "from device" in p.stderr and len(p.stderr.splitlines()) == 1
    shutil.copy(out / "devices" / other.name, other)
    other.write_text(other.read_text() + "config ocs cross-connect add 1A-99B\n")
    p = run("fabric", "verify", "--fabric", out / "fabric.json", "--readback", rb, check=False)
    assert p.returncode == 2 and ("outside" in p.stderr or "out of range" in p.stderr) and "99" in p.stderr
    other.unlink()
    p = run("fabric", "verify", "--fabric", out / "fabric.json", "--readback", rb, check=False)
    assert p.returncode == 2 and "no read-back" in p.stderr


def test_reconfigure_after_failures(tmp_path, capsys):
    run = _runner(capsys)
    inv = _inventory(tmp_path)
    out, new = tmp_path / "fab", tmp_path / "new"
    run("fabric", "compile", "--topology", "ldi", "--nodes", 40, "--degree", 4, "--inventory", inv, "-o", out)
    p = run("fabric", "reconfigure", "--fabric", out / "fabric.json", "--topology", "ldi", "--nodes", 40,
            "--degree", 4, "--fail", "3,7", "-o", new, "--json")
    rep = json.loads(p.stdout)
    assert rep["changed"] <= rep["from_scratch_changed"] and rep["kept"] > 0
    target = reembed_planes(40, 4, [3, 7])[rep["assignment"]]
    got, _ = _walk_folder(new, 4, 40)
    assert np.array_equal(got, target)
    assert (new / "cabling.csv").read_text() == (out / "cabling.csv").read_text()
    changes = json.loads((new / "changes.json").read_text())
    assert changes["changed"] == rep["changed"]
    for name, ch in changes["devices"].items():
        text = (new / "changes" / f"{name}.txt").read_text().splitlines()
        kinds = [ln.split()[0] for ln in text]
        assert kinds == sorted(kinds, key=lambda k: k != "disconnect")   # disconnects first
    assert run("fabric", "verify", "--fabric", new / "fabric.json", "--readback", new / "devices").returncode == 0


def test_compile_from_a_config_file(tmp_path, capsys):
    run = _runner(capsys)
    cfg = tmp_path / "ldi.json"
    run("planes", "ldi", "--nodes", 12, "--degree", 3, "-o", cfg)
    inv = _inventory(tmp_path, '[[device]]\nname = "p"\nmodel = "polatis-48"\n')
    out = tmp_path / "fab"
    rep = json.loads(run("fabric", "compile", "--config", cfg, "--inventory", inv, "-o", out, "--json").stdout)
    assert rep["devices_used"] == 1 and rep["max_passes"] == 1
    scpi = (out / "devices" / "p.scpi").read_text()
    assert "conn:add" in scpi and "conn:only" not in scpi          # 3 ranges of 12 on 48 ports: scoped
    assert run("fabric", "verify", "--fabric", out / "fabric.json", "--readback", out / "devices").returncode == 0


@pytest.mark.parametrize("text,needle", [
    ('[[device]]\nname = "a"\nports = 8\ncolour = "red"\n', "device[0] (a): unknown key 'colour'"),
    ('[[device]]\nname = "a"\nmodel = "acme-9"\n', "key 'model': unknown model 'acme-9'"),
    ('[[device]]\nname = "a"\nports = 8\n[[device]]\nname = "a"\nports = 8\n', "duplicate device name 'a'"),
    ('[[device]]\nname = "a"\nports = 1\n', "key 'ports' must be >= 2"),
    ('[[device]]\nname = "a"\nports = 8\ncount = 2\n[[device]]\nname = "a-2"\nports = 8\n', "duplicate device name 'a-2'"),
    ('[[device]]\nname = "a"\nports = "many"\n', "key 'ports' must be an integer"),
    ('[[device]]\nname = "a"\nports = 8\nprotocol = "smoke"\n', "unknown protocol"),
    ('[[device]]\nname = "a"\nports = 8\naddress = "nohost"\n', "key 'address'"),
    ('[[device]]\nname = "a"\nports = 4\ncount = 2\n', "do not fit"),
    ("[[device]\n", "not valid TOML"),
])
def test_inventory_errors_are_one_line_and_leave_no_folder(tmp_path, text, needle, capsys):
    inv = _inventory(tmp_path, text)
    out = tmp_path / "fab"
    code = main(["fabric", "compile", "--topology", "ldi", "--nodes", "40", "--degree", "4", "--inventory",
                 str(inv), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and needle in err and len(err.splitlines()) == 1, err
    assert sorted(x.name for x in tmp_path.iterdir()) == ["inv.toml"]


def test_a_tampered_fabric_json_is_refused(tmp_path, capsys):
    run = _runner(capsys)
    inv = _inventory(tmp_path)
    out = tmp_path / "fab"
    run("fabric", "compile", "--topology", "ldi", "--nodes", 16, "--degree", 2, "--inventory", inv, "-o", out)
    f = out / "fabric.json"
    f.write_text(f.read_text().replace('"cables":[[', '"cables":[[1,', 1))
    p = run("fabric", "verify", "--fabric", f, "--readback", out / "devices", check=False)
    assert p.returncode == 2 and "checksum" in p.stderr


def test_time_multiplexed_schedule_verifies_per_slot(tmp_path, capsys):
    run = _runner(capsys)
    cfg = tmp_path / "tdm.json"
    run("planes", "ldi", "--nodes", 32, "--degree", 4, "-o", cfg, "--switches", 2, "--slot-us", 100000)
    inv = _inventory(tmp_path, '[[device]]\nname = "s"\nprotocol = "tl1"\nports = 8\nswitch_ms = 12.5\ncount = 30\n')
    out = tmp_path / "fab"
    rep = json.loads(run("fabric", "compile", "--config", cfg, "--inventory", inv, "-o", out, "--json").stdout)
    assert rep["slots"] == 2 and set(rep["guard_ms"]) <= {0.0, 12.5}
    assert run("fabric", "verify", "--fabric", out / "fabric.json", "--readback", out / "devices").returncode == 0
    rb = tmp_path / "rb"
    shutil.copytree(out / "devices", rb)
    victim = next(f for f in sorted(rb.iterdir()) if f.read_text().count("ENT-PATCH") >= 2
                  and f.read_text().split("# slot 1")[0] != f.read_text().split("# slot 1")[1])
    head, tail = victim.read_text().split("# slot 1")
    lines = tail.splitlines()
    idx = next(i for i, ln in enumerate(lines) if ln.startswith("ENT-PATCH"))
    lines.pop(idx)
    victim.write_text(head + "# slot 1" + "\n".join(lines) + "\n")
    p = run("fabric", "verify", "--fabric", out / "fabric.json", "--readback", rb, "--json", check=False)
    assert p.returncode == 1
    broken = json.loads(p.stdout)["broken"]
    assert broken and {(b["slot"], b["device"]) for b in broken} == {(1, victim.stem)}
