"""The hardware-in-the-loop check: load, commit, read back, verify, PRBS,
next-hop probe -- against whatever answers at the URL (board or model).

* crossbar: the configuration file's plane(s) are loaded into the shadow
  configuration and committed; the *active* configuration is read back
  through the datapath (:meth:`Link.readback_crossbar`) and compared with
  :func:`permnet.verify.compare`, the comparison of ``permnet verify``
  (missing / extra / conflicting cross-connects, named by plane and port);
* PRBS (``prbs_words`` > 0, single-slot crossbar): every egress that the
  configuration connects must receive all words without an error word, every
  other egress is reported as unconnected;
* Beneš (when its size equals the port count): the plane, completed to a
  permutation (:func:`permnet.gen.routing.benes.complete_partial`), is
  routed, loaded, committed and the realised permutation read back;
* next hop: every (node, dest, hop) when there are at most ``exhaustive``
  of them, else ``samples`` drawn with ``seed``, against the reference
  :func:`permnet.sim.reference.next_hop` (closed form) or the first link
  of the shortest route (table unit).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import numpy as np

from permnet.gen.errors import PermnetError, require
from permnet.hil.link import Link, LinkCounters
from permnet.verify import Report, compare

__all__ = ["HilRunReport", "NexthopCheck", "run"]


@dataclass(frozen=True)
class NexthopCheck:
    """Next-hop decisions probed: ``checked`` of the ``of`` (node, dest, hop)
    triples (``mode``: all, or a seeded sample), and each mismatch as
    [node, dest, hop, got link, got next, expected link, expected next]."""

    checked: int
    of: int
    mode: str
    mismatches: list

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class HilRunReport:
    url: str
    verify: Report | None = None
    info: dict = field(default_factory=dict)
    prbs: dict | None = None
    prbs_failures: list = field(default_factory=list)
    benes: dict | None = None
    nexthop: NexthopCheck | None = None
    link: LinkCounters | None = None
    timing: dict = field(default_factory=dict)

    @property
    def checked(self) -> bool:
        """Whether at least one check ran (a run that checked nothing verified nothing)."""
        return any(x is not None for x in (self.verify, self.prbs, self.benes, self.nexthop))

    @property
    def ok(self) -> bool:
        return (self.checked and (self.verify is None or self.verify.ok) and not self.prbs_failures
                and (self.benes is None or not self.benes["mismatches"])
                and (self.nexthop is None or not self.nexthop.mismatches))

    def as_dict(self) -> dict:
        out = self.verify.as_dict() if self.verify is not None else {}
        out["verified"] = self.ok
        out["hil"] = {"url": self.url, "info": self.info, "prbs": self.prbs, "prbs_failures": self.prbs_failures,
                      "benes": self.benes, "nexthop": None if self.nexthop is None else self.nexthop.as_dict(),
                      "link": {} if self.link is None else self.link.as_dict(), "timing": self.timing}
        return out

    def lines(self) -> list[str]:
        out = []
        if self.verify is not None:
            out += [f"crossbar    {line}" for line in self.verify.lines()]
        if self.prbs is not None:
            connected = sum(1 for w in self.prbs["connected"] if w)
            out += [f"prbs        egress {f['egress']}: {f['what']}" for f in self.prbs_failures]
            out.append(f"prbs        PRBS{self.prbs['polynomial']} {self.prbs['words_sent']} words on "
                       f"{connected} connected egresses: {'OK' if not self.prbs_failures else 'ERRORS'}")
        if self.benes is not None:
            out += [f"benes       {m}" for m in self.benes["mismatches"]]
            out.append(f"benes       {'MATCH' if not self.benes['mismatches'] else 'MISMATCH'}")
        if self.nexthop is not None:
            nh = self.nexthop
            out += [f"nexthop     node {m[0]} dest {m[1]} hop {m[2]}: got link {m[3]} next {m[4]}, "
                    f"expected link {m[5]} next {m[6]}" for m in nh.mismatches[:20]]
            out.append(f"nexthop     {nh.checked} decisions ({nh.mode}): "
                       f"{'MATCH' if not nh.mismatches else str(len(nh.mismatches)) + ' MISMATCHES'}")
        if not self.checked:
            out.append("nothing was checked: the device has no unit this configuration can be checked on")
        return out + ["PASS" if self.ok else "FAIL"]


def _nexthop_reference(M, S, table):
    from permnet.sim import reference

    if table:
        t = reference.route_table(M, S)
        return lambda n, d, h: (int(t[n, d]), (S * n + int(t[n, d])) % M)
    spec = reference.NextHopSpec(M, S)
    return lambda n, d, h: reference.next_hop(spec, n, d, h)


def _check_nexthop(link: Link, nh: dict, exhaustive: int, samples: int, seed: int) -> NexthopCheck:
    M, S, h, table = nh["M"], nh["S"], nh["h"], nh["table"]
    hops = 1 if table else max(1, h)
    total = M * M * hops
    if total <= exhaustive:
        queries = [(n, d, k) for k in range(hops) for n in range(M) for d in range(M)]
        mode = "all"
    else:
        rng = np.random.default_rng(seed)
        queries = sorted({(int(rng.integers(M)), int(rng.integers(M)), int(rng.integers(hops)))
                          for _ in range(samples)}, key=lambda q: (q[2], q[0], q[1]))
        mode = f"sample of {len(queries)}, seed {seed}"
    ref = _nexthop_reference(M, S, table)
    got = link.probe_nexthop(queries)
    bad = []
    for (n, d, k), (gl, gn) in zip(queries, got):
        el, en = ref(n, d, k)
        if (gl, gn) != (el, en):
            bad.append([n, d, k, gl, gn, el, en])
    return NexthopCheck(len(queries), total, mode, bad)


def _check_units(url: str, info, ports: int, prbs_words: int) -> None:
    """Refuse a run that would check nothing: a device without a crossbar, a Beneš network of
    the configuration's size or a next-hop unit (a network design), and PRBS words that no
    unit would send."""
    from permnet.gen.hil import regmap as R

    benes = info.benes is not None and info.benes["size"] == ports
    if info.crossbar is None and not benes and info.nexthop is None:
        if info.design >> R.DESIGN_BITS["network"] & 1:
            raise PermnetError(f"{url}: the device is a network design, which takes no unit configuration "
                               "(--config): run it with --design network (and --planes FILE)")
        raise PermnetError(f"{url}: the device has no crossbar, no Beneš network of {ports} ports and no "
                           "next-hop unit: nothing in it can check this configuration")
    prbs_ok = (info.crossbar is not None and info.crossbar["slots"] == 1) or benes
    require(not prbs_words or prbs_ok, f"--prbs: {url} has no single-slot crossbar and no Beneš network of "
            f"{ports} ports to send PRBS words through")


def run(url: str, config_path, *, plane: int | None = None, prbs_words: int = 0, polynomial: int = 7,
        exhaustive: int = 4096, samples: int = 1000, seed: int = 0, timeout: float = 1.0,
        durations=None) -> HilRunReport:
    from permnet import ocsconfig
    from permnet.hil.link import MAX_PRBS_WORDS

    require(0 <= prbs_words <= MAX_PRBS_WORDS, f"--prbs must be 0..{MAX_PRBS_WORDS} words, got {prbs_words}")
    cfg = ocsconfig.read(config_path)
    t0 = time.perf_counter()
    with Link(url, timeout=timeout) as link:
        info = link.info()
        _check_units(url, info, cfg.ports, prbs_words)
        rep = HilRunReport(url, info=info.as_dict())
        planes = cfg.planes
        if plane is not None:
            require(0 <= plane < len(planes), f"--plane {plane}: the configuration has {len(planes)} planes")
        if info.crossbar is not None:
            N, K = info.crossbar["ports"], info.crossbar["slots"]
            require(cfg.ports == N, f"{config_path} has {cfg.ports} ports, the crossbar {N}")
            if K == 1:
                chosen = [plane if plane is not None else 0]
            else:
                chosen = [plane] * K if plane is not None else list(range(K))
                require(len(planes) >= K or plane is not None,
                        f"{config_path} has {len(planes)} planes for {K} TDM slots (give --plane)")
            load = planes[chosen]
            t = time.perf_counter()
            link.load_crossbar(load, durations)
            link.commit_crossbar()
            rep.timing["load_commit_s"] = time.perf_counter() - t
            t = time.perf_counter()
            rb = link.readback_crossbar()
            rep.timing["readback_s"] = time.perf_counter() - t
            # report against the configuration's own plane numbers
            intended = np.full((max(chosen) + 1, N), -1, dtype=np.int64)
            conns = []
            if K == 1:
                intended[chosen[0]] = load[0]
                conns = [(chosen[0], i, e) for _, i, e in rb.connections]
            else:
                intended = load
                conns = rb.connections
            rep.verify = compare(intended, conns)
            if prbs_words and K == 1:
                res = link.run_prbs("xbar", prbs_words, polynomial)
                driven = [False] * N
                for e in load[0]:
                    if e >= 0:
                        driven[int(e)] = True
                rep.prbs = {**res.as_dict(), "connected": driven}
                for e in range(N):
                    if driven[e] and (res.words[e] != prbs_words or res.errors[e]):
                        rep.prbs_failures.append({"egress": e, "words": res.words[e], "errors": res.errors[e],
                                                  "what": f"{res.words[e]} words, {res.errors[e]} error words"})
            elif prbs_words:
                rep.prbs = None
        if info.benes is not None and info.benes["size"] == cfg.ports:
            from permnet.gen.routing.benes import complete_partial

            row = planes[plane if plane is not None else 0]
            full, _ = complete_partial(np.asarray(row))
            link.load_benes(full)
            link.commit_benes()
            got = link.readback_benes()
            mism = [f"input {i} -> output {int(got[i])}, intended {int(e)}" for i, e in enumerate(row)
                    if e >= 0 and got[i] != e]
            rep.benes = {"size": info.benes["size"], "mismatches": mism}
            if prbs_words:
                res = link.run_prbs("benes", prbs_words, polynomial)
                rep.benes["prbs"] = res.as_dict()
                for e in range(info.benes["size"]):
                    if res.words[e] != prbs_words or res.errors[e]:
                        mism.append(f"PRBS output {e}: {res.words[e]} words, {res.errors[e]} error words")
        if info.nexthop is not None:
            t = time.perf_counter()
            rep.nexthop = _check_nexthop(link, info.nexthop, exhaustive, samples, seed)
            rep.timing["nexthop_s"] = time.perf_counter() - t
        rep.link = link.counters()
    rep.timing["total_s"] = time.perf_counter() - t0
    return rep
