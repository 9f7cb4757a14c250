"""The main job (``make demo``): everything a user wants for one LDI network.

Writes into one folder: a JSON and Markdown report (metrics, Table 1 of the
paper recomputed, a fault example, a mixed-plane example), the plane
configuration in every format, and the plots.
"""

from __future__ import annotations

from pathlib import Path

from permnet import ocsconfig
from permnet.fileio import atomic_write, write_json
from permnet.gen import ldi
from permnet.gen.faults import fault_report
from permnet.gen.mixed import mixed_network, user_permutations
from permnet.gen.planes import ldi_planes
from permnet.gen.report import ldi_summary
from permnet.plots import plot_ldi

__all__ = ["run_demo"]


def _table1(M: int) -> list[dict]:
    rows = []
    for S in (64, 16, 8, 4):
        if M > S:
            s = ldi_summary(M, S)
            rows.append({"S": S, "topology": s["topology"], "diameter": s["diameter"],
                         "avg_hops": round(s["avg_hops"], 3), "bandwidth_factor": s["bandwidth_factor"]})
    return rows


def _markdown(summary: dict, table: list[dict], faults: dict, mixed: dict) -> str:
    lines = [f"# {summary['topology']}", "",
             "| metric | value |", "|---|---|"]
    for k in ("nodes", "degree", "links", "self_loops", "diameter", "avg_hops",
              "moore_diameter_bound", "bandwidth_factor"):
        lines.append(f"| {k} | {summary[k]} |")
    lines += ["", f"## Table 1 (Melhem), recomputed for M = {summary['nodes']}", "",
              "| S | topology | diameter | average hops | bandwidth S/h (x B) |", "|---|---|---|---|---|"]
    lines += [f"| {r['S']} | {r['topology']} | {r['diameter']} | {r['avg_hops']} | {r['bandwidth_factor']:.3f} |"
              for r in table]
    d = faults["damaged"]
    lines += ["", f"## Faults: nodes {faults['failed']} fail", "",
              f"damaged network: connected={d['connected']}, diameter={d['diameter']}; "
              f"re-embedded {faults['reembedded']['topology']}: diameter={faults['reembedded']['diameter']}",
              "", f"## Mixed planes: {', '.join(mixed['user_planes'])} + {mixed.get('ldi', {}).get('topology')}", "",
              "| planes | diameter | average hops |", "|---|---|---|"]
    for part in ("user", "ldi", "union"):
        if part in mixed:
            lines.append(f"| {part} | {mixed[part]['diameter']} | {mixed[part]['avg_hops']:.3f} |")
    return "\n".join(lines) + "\n"


def _torus_spec(M: int) -> str | None:
    a = int(M ** 0.5)
    while a >= 2:
        if M % a == 0 and M // a >= 2:
            return f"torus:{a}x{M // a}"
        a -= 1
    return None


def run_demo(outdir, M: int = 4096, S: int = 8) -> list[Path]:
    """Build LDI(M, S) and write its report, configurations and plots."""
    ldi.check_params(M, S)
    out = Path(outdir)
    written: list[Path] = []
    summary = ldi_summary(M, S)
    table = _table1(M)
    failed = sorted({1, 2, M // 2, M - 1})
    faults = fault_report(M, S, failed)
    spec = _torus_spec(M)
    mixed = (mixed_network(M, S, user_permutations([spec], M)) if spec and S - 4 >= 2
             else mixed_network(M, S, user_permutations(["ring"], M)) if S - 1 >= 2 else {"user_planes": []})
    report = {"summary": summary, "table1": table, "faults": {k: v for k, v in faults.items()},
              "mixed": {k: v for k, v in mixed.items() if k != "planes"}}
    report["faults"]["reembedded"] = {k: v for k, v in faults["reembedded"].items() if k != "planes"}
    written.append(write_json(out / "report.json", report))
    written.append(atomic_write(out / "report.md", _markdown(summary, table, faults, mixed)))
    p = ldi_planes(M, S)
    cfg = ocsconfig.OcsConfig(p.planes, {"family": "ldi", "nodes": M, "degree": S, "plane_method": p.method},
                              schedule=ocsconfig.tdm_schedule(S, max(1, S // 2), 100.0))
    for fmt, ext in (("json", "json"), ("csv", "csv"), ("pairs", "txt"), ("polatis", "scpi"), ("sonic", "sh")):
        written.append(ocsconfig.write(cfg, out / "config" / f"ldi_{M}_{S}.{ext}", fmt))
    written += plot_ldi(M, S, out / "plots")
    return written
