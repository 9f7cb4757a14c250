"""The main job (``make demo``): everything a user wants for one LDI network.

Writes into one folder: a JSON and Markdown report (metrics, Table 1 of the
paper recomputed, a fault example, a mixed-plane example), the plane
configuration in every format, and the plots.
"""

from __future__ import annotations

from pathlib import Path

from permnet import ocsconfig
from permnet.fileio import atomic_dir, atomic_write, markdown_table, write_json
from permnet.gen.topologies import ldi
from permnet.gen.planes.faults import FaultReport, fault_report
from permnet.gen.planes.mixed import MixedNetwork, mixed_network, user_permutations
from permnet.gen.planes.decompose import ldi_planes
from permnet.gen.analysis.report import LdiSummary, ldi_summary
from permnet.plots import plot_ldi

__all__ = ["run_demo"]


def _table1(M: int) -> list[dict]:
    rows = []
    for S in (64, 16, 8, 4):
        if M > S:
            s = ldi_summary(M, S)
            rows.append({"S": S, "topology": s.topology, "diameter": s.diameter,
                         "avg_hops": round(s.avg_hops, 3), "bandwidth_factor": s.bandwidth_factor})
    return rows


def _markdown(summary: LdiSummary, table: list[dict], faults: FaultReport, mixed: MixedNetwork | None) -> str:
    keys = ("nodes", "degree", "links", "self_loops", "diameter", "avg_hops", "moore_diameter_bound",
            "bandwidth_factor")
    lines = [f"# {summary.topology}", ""] + markdown_table(["metric", "value"],
                                                           [[k, getattr(summary, k)] for k in keys])
    lines += ["", f"## Table 1 (Melhem), recomputed for M = {summary.nodes}", ""]
    lines += markdown_table(["S", "topology", "diameter", "average hops", "bandwidth S/h (x B)"],
                            [[r["S"], r["topology"], r["diameter"], r["avg_hops"], f"{r['bandwidth_factor']:.3f}"]
                             for r in table])
    d = faults.damaged
    user_planes = mixed.user_planes if mixed is not None else []
    ldi_topology = mixed.ldi_topology if mixed is not None else None
    lines += ["", f"## Faults: nodes {faults.failed} fail", "",
              f"damaged network: connected={d.connected}, diameter={d.diameter}; "
              f"re-embedded {faults.reembedded.topology}: diameter={faults.reembedded.diameter}",
              "", f"## Mixed planes: {', '.join(user_planes)} + {ldi_topology}", ""]
    parts = [(part, getattr(mixed, part)) for part in ("user", "ldi", "union")] if mixed is not None else []
    lines += markdown_table(["planes", "diameter", "average hops"],
                            [[part, s.diameter, f"{s.avg_hops:.3f}"] for part, s in parts if s is not None])
    return "\n".join(lines) + "\n"


def _torus_spec(M: int) -> str | None:
    a = int(M ** 0.5)
    while a >= 2:
        if M % a == 0 and M // a >= 2:
            return f"torus:{a}x{M // a}"
        a -= 1
    return None


def run_demo(outdir, M: int = 4096, S: int = 8) -> list[Path]:
    """Build LDI(M, S) and write its report, configurations and plots into
    ``outdir`` as a unit (a temporary folder swapped in when all is written)."""
    ldi.check_params(M, S)
    with atomic_dir(outdir) as tmp:
        written = _write_demo(tmp, M, S)
    return [Path(outdir) / p.relative_to(tmp) for p in written]


def _write_demo(out: Path, M: int, S: int) -> list[Path]:
    written: list[Path] = []
    summary = ldi_summary(M, S)
    table = _table1(M)
    failed = sorted({1, 2, M // 2, M - 1})
    faults = fault_report(M, S, failed)
    spec = _torus_spec(M)
    mixed = (mixed_network(M, S, user_permutations([spec], M)) if spec and S - 4 >= 2
             else mixed_network(M, S, user_permutations(["ring"], M)) if S - 1 >= 2 else None)
    report = {"summary": summary.as_dict(), "table1": table, "faults": faults.as_dict(),
              "mixed": {k: v for k, v in mixed.as_dict().items() if k != "planes"} if mixed is not None
              else {"user_planes": []}}
    report["faults"]["reembedded"] = {k: v for k, v in report["faults"]["reembedded"].items() if k != "planes"}
    p = ldi_planes(M, S)
    cfg = ocsconfig.OcsConfig(p.planes, {"family": "ldi", "nodes": M, "degree": S, "plane_method": p.method},
                              schedule=ocsconfig.tdm_schedule(S, max(1, S // 2), 100.0))
    for fmt, ext in (("json", "json"), ("csv", "csv"), ("pairs", "txt"), ("polatis", "scpi"), ("sonic", "sh")):
        # per-switch formats: one file per switch (NAME.plane<k>.EXT), so none is pasted into the wrong switch
        written += ocsconfig.write_files(cfg, out / "config" / f"ldi_{M}_{S}.{ext}", fmt)
    written += plot_ldi(M, S, out / "plots")
    written += _fabric(out / "fabric", M, S, report)
    rtl_files, verification = _rtl_and_verification(M, S, p.planes, out / "rtl")
    written += rtl_files
    report["verification"] = verification
    written.append(write_json(out / "report.json", report))
    written.append(atomic_write(out / "report.md", _markdown(summary, table, faults, mixed)
                                + _fabric_md(report["fabric"]) + _verification_md(verification)))
    return written


DEMO_INVENTORY = """\
# The switches of the demo fabric: SONiC-managed 64-port modules (permnet fabric compile --inventory).
[[device]]
name = "ocs"
model = "sonic-64"
count = {count}
"""


def _fabric(out: Path, M: int, S: int, report: dict) -> list[Path]:
    """The planes compiled onto a rack of 64-port switches (three-stage Clos
    planes when M > 64): ``fabric/inventory.toml`` and the compiled folder
    ``fabric/ldi/`` (fabric.json, devices/, cabling.csv, bom.md)."""
    from permnet.fabric import Target, compile_to_dir, verify_readback

    r = -(-M // 64)
    count = S * (3 * r if M > 64 else 1)       # ingress, middle and egress stages per plane
    inv = atomic_write(out / "inventory.toml", DEMO_INVENTORY.format(count=count))
    summary = compile_to_dir(Target("ldi", M, S), inv, out / "ldi").summary
    report["fabric"] = {"devices_used": summary.devices_used, "cables": summary.cables,
                        "max_passes": summary.max_passes, "max_loss_db": summary.max_loss_db}
    # the device files read back as if they were what the switches hold: every
    # circuit of every plane is walked through the cabling (permnet fabric verify)
    verdict = verify_readback(out / "ldi" / "fabric.json", out / "ldi" / "devices")
    report["fabric"].update(circuits=verdict.circuits, broken=len(verdict.broken), extra=len(verdict.extra),
                            verified=verdict.ok)
    return [inv] + sorted(p for p in (out / "ldi").rglob("*") if p.is_file())


CROSSBAR_MAX_PORTS = 64
NEXTHOP_CASES = 3000


def _rtl_and_verification(M: int, S: int, planes, outdir: Path) -> tuple[list[Path], dict]:
    """Verilog of the demo network's next-hop unit and of a crossbar plane,
    their init files, and a short Amaranth-simulator run of both against
    the reference models."""
    import random

    from permnet.hdl import emit
    from permnet.sim.reference import NextHopSpec, crossbar_select, next_hop, route_table
    from permnet.sim.testbench import run_crossbar, run_nexthop

    pipeline = 2
    nh = emit.nexthop(M, S, pipeline=pipeline)
    files = emit.write_verilog(nh, outdir / "ldi_nexthop.v")
    rng = random.Random(M * 1000 + S)
    if nh.params["variant"] == "closed":
        spec = NextHopSpec(M, S)
        cases = [(rng.randrange(M), rng.randrange(M), rng.randrange(spec.h)) for _ in range(NEXTHOP_CASES)]
        want = [next_hop(spec, *c) for c in cases]
    else:
        table = route_table(M, S)
        cases = [(rng.randrange(M), rng.randrange(M), 0) for _ in range(NEXTHOP_CASES)]
        want = [(int(table[n, d]), (S * n + int(table[n, d])) % M) for n, d, _ in cases]
    got = run_nexthop(nh.component, cases, pipeline)
    nh_bad = sum(g != w for g, w in zip(got, want)) + abs(len(got) - len(want))
    # A crossbar as wide as an FPGA prototype takes: plane 0 of the network
    # itself when M is small, else of LDI(64, S) (a 4096-port crossbar is no FPGA design).
    ports = M if M <= CROSSBAR_MAX_PORTS else CROSSBAR_MAX_PORTS
    plane = planes[0] if ports == M else ldi_planes(ports, S).planes[0]
    xb = emit.crossbar(ports, 8, planes=[plane.tolist()])
    files += emit.write_verilog(xb, outdir / "crossbar_plane.v")
    sel = crossbar_select(plane).tolist()
    xb_errors = run_crossbar(emit.crossbar(ports, 8).component, [sel], [1], 50, seed=1)
    return files, {
        "nexthop": {"module": f"LDI({M},{S}) {nh.params['variant']}", "pipeline": pipeline,
                    "cases": len(cases), "mismatches": nh_bad},
        "crossbar": {"module": f"{ports}-port plane 0 of LDI({ports},{S}), 8-bit", "cycles": 50,
                     "mismatches": len(xb_errors)},
        "passed": nh_bad == 0 and not xb_errors,
    }


def _fabric_md(f: dict) -> str:
    return ("\n## OCS fabric on 64-port switches (fabric/)\n\n"
            f"* {f['devices_used']} devices, {f['cables']} cables between them, "
            f"at most {f['max_passes']} passes and {f['max_loss_db']:.2f} dB per circuit\n"
            f"* device files composed with the cabling: {f['circuits']} circuits, {f['broken']} broken\n")


def _verification_md(v: dict) -> str:
    return ("\n## RTL verification (Amaranth simulator against the reference)\n\n"
            f"* next-hop unit {v['nexthop']['module']}, pipeline {v['nexthop']['pipeline']}: "
            f"{v['nexthop']['cases']} random decisions, {v['nexthop']['mismatches']} mismatches\n"
            f"* crossbar {v['crossbar']['module']}: loaded through the stream, "
            f"{v['crossbar']['cycles']} cycles, {v['crossbar']['mismatches']} mismatches\n"
            f"* verdict: {'PASS' if v['passed'] else 'FAIL'}\n")
