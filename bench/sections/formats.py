"""OCS configuration files: render and read back every format for LDI(4096,8)
(the demo's size), against the standard library's ``json`` on the same planes."""

from __future__ import annotations

import json

from registry import best_time, case


def _cfg():
    from permnet import ocsconfig
    from permnet.gen.planes.decompose import ldi_planes

    p = ldi_planes(4096, 8)
    return ocsconfig.OcsConfig(p.planes, {"family": "ldi", "nodes": 4096, "degree": 8}, 0, None, 4096)


def _stdlib_json(cfg) -> float:
    doc = {"planes": cfg.planes.tolist()}
    t, _ = best_time(lambda: json.loads(json.dumps(doc)))
    return t


@case("OCS config LDI(4096,8): render + strict read-back, sonic (32768 lines)", "report (<= 1 s)")
def bench_sonic_round_trip():
    from permnet import formats, ocsconfig

    cfg = _cfg()
    f = formats.get("sonic")
    ours, _ = best_time(lambda: ocsconfig.config_from_dump(f.parse(f.render(cfg))))
    return ours, _stdlib_json(cfg), "stdlib json dumps+loads of the planes"


def table(args):
    """Render and strict read-back time of every registered format."""
    import time

    from permnet import formats, ocsconfig

    cfg = _cfg()
    rows = []
    for name in formats.names():
        f = formats.get(name)
        c = cfg.plane_config(0) if name == "netconf" else cfg
        t0 = time.perf_counter()
        text = f.render(c)
        t1 = time.perf_counter()
        d = f.parse(text)
        back = ocsconfig.config_from_dump(d) if name != "json" else None
        t2 = time.perf_counter()
        assert back is None or (back.planes == c.planes).all()
        rows.append([name, f"{len(text) / 1e6:.2f}", f"{t1 - t0:.3f}", f"{t2 - t1:.3f}",
                     "1 plane" if name == "netconf" else "8 planes"])
    return ("OCS configuration formats, LDI(4096,8) on 4096-port switches",
            ["format", "MB", "render (s)", "read back (s)", "content"], rows)
