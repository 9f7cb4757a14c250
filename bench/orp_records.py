"""Graph Golf 2021 order/radix instances: our search against the published graphs (``make bench-records``).

    python bench/orp_records.py --seconds 600 --workers 2 -o bench/records
    python bench/orp_records.py --seconds 600 --only 80:6,432:12 --update -o bench/records
    python bench/orp_records.py --render -o bench/records      # no search: the table again
    python bench/orp_records.py --seconds 600 --workers 32 --scheduler tcp://host-a:8786 -o bench/records

Writes ``records.md`` (table), ``records.json`` and one Graph Golf file per
instance (``h{n}r{r}.edges``, scored by ``permnet orp eval``) in the folder.
``--update`` keeps the rows of the instances not run from the folder's
``records.json``; every row records its own wall-time budget.  ``--render``
runs no search: it fills the published columns and the gap of every row of
``records.json`` from ``permnet.gen.orp.records.PUBLISHED`` and writes both
files again.

The anneals of every instance run on one :class:`permnet.gen.parallel.Runner`
opened for the whole run: ``--workers N`` local processes (the default, one
per CPU), or ``--scheduler local`` (a Dask ``LocalCluster`` of N processes)
or ``--scheduler ADDRESS`` (a running Dask cluster; N is then the anneals per
switch count).  Each instance gets ``--seconds`` of wall time, so the graphs
found depend on the machine and its load; ``--evals E`` gives every anneal E
evaluations instead, and then the records are the same for the same N
wherever the anneals run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from permnet.fileio import atomic_write, dumps_json  # noqa: E402
from permnet.gen.errors import PermnetError  # noqa: E402
from permnet.gen.orp.records import INSTANCES, PUBLISHED, gap_pct  # noqa: E402
from permnet.gen.parallel import Runner, check_scheduler  # noqa: E402
from permnet.graphgolf import run_records  # noqa: E402
from sections.search import records_table  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=600.0, help="wall time per instance")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="local processes running the anneals, or the LocalCluster's with --scheduler local; "
                         "also the anneals per switch count (default: the CPUs)")
    ap.add_argument("--sweep", type=int, default=8, help="switch counts tried per instance")
    ap.add_argument("--scheduler", default=None, metavar="ADDRESS|local",
                    help="run the anneals on this Dask scheduler (tcp://host:8786); 'local' starts a LocalCluster "
                         "of --workers processes here")
    ap.add_argument("--evals", type=int, default=None,
                    help="evaluations per anneal instead of --seconds of wall time (the same records for the "
                         "same --workers wherever they run)")
    ap.add_argument("--only", default=None, help="comma-separated n:r pairs (default: all 13)")
    ap.add_argument("--update", action="store_true", help="keep the other instances' rows of records.json")
    ap.add_argument("--render", action="store_true",
                    help="no search: refill the published columns of records.json and write the table again")
    ap.add_argument("-o", default=str(HERE / "records"))
    args = ap.parse_args(argv)
    if args.render:
        return render(Path(args.o))
    for name, value in (("--workers", args.workers), ("--evals", args.evals), ("--sweep", args.sweep)):
        if value is not None and value < 1:
            ap.error(f"{name} must be >= 1, got {value}")
    if not args.seconds > 0:                      # nan too
        ap.error(f"--seconds must be > 0, got {args.seconds}")
    if args.scheduler is not None and not args.scheduler.strip():
        ap.error("--scheduler: give an address or 'local'")
    if args.scheduler not in (None, "local"):
        try:
            check_scheduler(args.scheduler)
        except PermnetError as exc:
            ap.error(str(exc))
    inst = INSTANCES if not args.only else _pairs(args.only, ap)
    out = Path(args.o)
    out.mkdir(parents=True, exist_ok=True)
    try:
        with Runner(args.workers, args.scheduler) as runner, runner.installed():
            rows = run_records(args.seconds, out, instances=inst, workers=args.workers, sweep_k=args.sweep,
                               scheduler=args.scheduler, evaluations=args.evals,
                               progress=lambda row: print(row.as_dict(), flush=True))
    except PermnetError as exc:
        raise SystemExit(f"orp_records: {exc}") from None
    new = [r.as_dict() | {"budget_seconds": args.seconds} | ({"budget_evaluations": args.evals} if args.evals else {})
           for r in rows]
    saved = out / "records.json"
    if args.update and saved.exists():
        old = json.loads(saved.read_text())
        run = {(r["hosts"], r["radix"]) for r in new}
        kept = [{"budget_seconds": old["seconds_per_instance"]} | r for r in old["rows"]
                if (r["hosts"], r["radix"]) not in run]
        order = {p: i for i, p in enumerate(INSTANCES)}
        new = sorted(kept + new, key=lambda r: order.get((r["hosts"], r["radix"]), len(order)))
    budgets = sorted({r["budget_seconds"] for r in new})
    meta = {"seconds_per_instance": budgets[0] if len(budgets) == 1 else None, "workers": args.workers,
            "sweep": args.sweep, "rows": new}
    if args.scheduler is not None:
        meta["scheduler"] = args.scheduler
    write(out, meta)


def _pairs(text: str, ap) -> list[tuple[int, int]]:
    """``--only 32:4,256:18`` as ``[(32, 4), (256, 18)]``; anything else refused in one line."""
    pairs = []
    for item in text.split(","):
        n, sep, r = item.strip().partition(":")
        if not (sep and n.isdigit() and r.isdigit()):
            ap.error(f"--only: {item.strip()!r} is not hosts:radix (as 32:4)")
        pairs.append((int(n), int(r)))
    return pairs


def write(out: Path, meta: dict) -> None:
    from permnet.fileio import markdown_table

    atomic_write(out / "records.json", dumps_json(meta))
    title, headers, trows = records_table(meta)
    atomic_write(out / "records.md", "\n".join([f"## {title}", ""] + markdown_table(headers, trows)) + "\n")
    print("\n".join(markdown_table(headers, trows)))


def render(out: Path) -> None:
    """The published columns and gaps of ``out/records.json`` from ``PUBLISHED``; both files written again."""
    meta = json.loads((out / "records.json").read_text())
    for row in meta["rows"]:
        pub = PUBLISHED.get((row["hosts"], row["radix"]))
        row["published_haspl"], row["published_switches"], row["published_diameter"] = pub or (None, None, None)
        row["gap_pct"] = None if pub is None else gap_pct(row["haspl"], pub[0])
    write(out, meta)


if __name__ == "__main__":
    main()
