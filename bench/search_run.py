"""Search tables saved for bench/sections/search.py: Doty Table 2 chordal rings and Melhem's mixed planes.

    python bench/search_run.py table2 --evals 600000 --seconds 25 -o bench/records   # table2.json / .md
    python bench/search_run.py mixed --seconds 60 -o bench/records                   # mixed.json / .md
"""

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from permnet.fileio import atomic_write, dumps_json, markdown_table  # noqa: E402
from sections.search import chordal_rows, chordal_table, mixed_rows, mixed_table  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("what", choices=["table2", "mixed"])
ap.add_argument("--evals", type=int, default=1_000_000, help="table2: rings scored per entry")
ap.add_argument("--seconds", type=float, default=60.0, help="table2: per entry; mixed: the largest case")
ap.add_argument("--degrees", default="3,4,5,6")
ap.add_argument("-o", default=str(HERE / "records"))
a = ap.parse_args()
out = Path(a.o)
out.mkdir(parents=True, exist_ok=True)
if a.what == "table2":
    rows = chordal_rows(a.evals, a.seconds, tuple(int(x) for x in a.degrees.split(",")), progress=print)
    atomic_write(out / "table2.json", dumps_json({"evals": a.evals, "seconds": a.seconds, "rows": rows}))
    title, headers, cells = chordal_table(rows, a.evals, a.seconds)
else:
    rows = mixed_rows(a.seconds)
    atomic_write(out / "mixed.json", dumps_json(rows))
    title, headers, cells = mixed_table(rows)
text = "\n".join([f"## {title}", ""] + markdown_table(headers, cells)) + "\n"
atomic_write(out / f"{a.what}.md", text)
print(text)
