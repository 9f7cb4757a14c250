"""Router kinds: what ``--switching`` picks, each kind declared once.

A network is built from one router kind (BookSim2's router factory; /work/shared/STYLE.md, "A
second kind beside the first"):

* ``vc``: the virtual-channel router (:class:`permnet.hdl.router.Router`, the network IP
  :mod:`permnet.hdl.netip`, the simulator's VC model), switching ``vct`` (virtual cut-through)
  or ``wormhole``;
* ``deflection``: the bufferless deflection router (:class:`permnet.hdl.deflect.DeflectionRouter`,
  :mod:`permnet.hdl.deflect_net`, :mod:`permnet.sim.netsim.deflect`; issue 41), switching
  ``deflection``.

Each :class:`RouterKind` states in one place its switching names, the options only it takes in
each command (:data:`COMMANDS`) and the one-line message that refuses the options of the other
kinds, how it builds one router's RTL (``permnet rtl|synth router``) and the network's RTL
(``permnet rtl|synth network``), the keywords of the HIL network design
(:class:`permnet.hdl.hil.top.HilTop`: ``permnet hil sim|regmap``, ``permnet rtl hil``,
``permnet board --hil-design network``) and its netsim configuration. The commands dispatch
through :func:`router_kind` and :func:`check_options` and never ask which kind they have.

The layers below keep their own seam keyed by the same switching names, each the only table of
its layer: the simulator's models (:data:`permnet.sim.netsim.run.MODELS`) and the HIL network
design's routers (:data:`permnet.hdl.hil.top.NETWORK_DESIGNS`); the HIL host driver keeps a
third beside this one (:data:`permnet.hil.netrun.DEVICE_ROUTERS`: decoding ``netgen_info``,
loading planes, the prediction a run is compared with). A new kind is one entry in
:data:`KINDS` (its RTL in ``hdl/``, its model an entry of ``MODELS``, its HIL design an entry
of ``NETWORK_DESIGNS`` and of ``DEVICE_ROUTERS``); ``tests/test_routerkinds.py`` checks that
the tables name the same switchings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from permnet.gen.errors import PermnetError, require
from permnet.gen.routing.deflection import PACKET_FLITS

__all__ = ["COMMANDS", "RouterKind", "KINDS", "router_kind", "switchings", "check_options", "kind_options"]

#: the commands a kind's options belong to: ``router`` (``permnet rtl|synth router``), ``network``
#: (``permnet rtl|synth network``), ``netsim`` and ``hil`` (the HIL network design: ``permnet hil
#: sim|regmap``, ``permnet rtl hil``, ``permnet board --design hil``)
COMMANDS = ("router", "network", "netsim", "hil")


@dataclass(frozen=True)
class RouterKind:
    """One router kind.

    ``switchings``: the ``--switching`` names that pick it; ``only``: per command, the switchings
    it builds there when fewer (the HIL design's VC routers are virtual cut-through only).
    ``owns``: per command, the options (click parameter names) that only this kind takes.
    ``refuses``: per command, the one-line message that refuses the options other kinds own
    (``{options}``: the flags given); without one the message is ``--x needs --switching y``.
    ``router_rtl(target, **options)`` and ``network_rtl(target, **options)`` build the
    :class:`permnet.hdl.emit.Generated` of ``permnet rtl router|network`` from the command's
    options (those other kinds own are left out: :func:`kind_options`); ``hil_params(**options)``
    the kind's keywords of :class:`permnet.hdl.hil.top.HilTop` from the HIL options.
    ``netsim_defaults``: :class:`permnet.sim.netsim.Config` fields the kind sets unless their
    option was given; ``checks_vcs``: its VCs are checked against the channel dependency graph
    before a run (:func:`permnet.netsim.run`)."""

    name: str
    switchings: tuple
    owns: Mapping[str, tuple] = field(default_factory=dict)
    refuses: Mapping[str, str] = field(default_factory=dict)
    router_rtl: Callable | None = None
    network_rtl: Callable | None = None
    hil_params: Callable | None = None
    netsim_defaults: Mapping[str, object] = field(default_factory=dict)
    checks_vcs: bool = False
    only: Mapping[str, tuple] = field(default_factory=dict)

    def switchings_for(self, command: str) -> tuple:
        """The switchings of this kind that ``command`` builds: none where the kind has no builder
        for it (``router_rtl``, ``network_rtl``, ``hil_params``), so no command calls a missing one."""
        builder = {"router": self.router_rtl, "network": self.network_rtl, "hil": self.hil_params}
        if command in builder and builder[command] is None:
            return ()
        return self.only.get(command, self.switchings)


# --- the VC router ---------------------------------------------------------------------------------

def _vc_router(target, **options):
    from permnet.rtlnet import router

    return router(**options, cells=target)


def _vc_network(target, **options):
    from permnet.rtlnet import network

    return network(**options, target=target)


def _vc_hil(vcs=None, **_):
    return {} if vcs is None else {"vcs": vcs}


VC = RouterKind(
    "vc", ("vct", "wormhole"),
    owns={"router": ("vcs", "buffer", "lanes", "eject", "max_size", "link_stages", "credit_stages", "allocator"),
          "network": ("vcs", "buffer", "link_stages", "credit_stages", "allocator", "plane_stages", "lanes",
                      "max_size", "trace", "packets", "span", "seed"),
          "netsim": ("vcs", "buffer", "credit_stages", "allocator", "lanes", "ejection"),
          "hil": ("vcs",)},
    router_rtl=_vc_router, network_rtl=_vc_network, hil_params=_vc_hil, checks_vcs=True,
    only={"hil": ("vct",)})


# --- the deflection router -------------------------------------------------------------------------

def _defaults(ejection_width, stages) -> tuple[int, int]:
    """E and P, the router's defaults (:mod:`permnet.hdl.deflect`) where not given."""
    from permnet.hdl.deflect import DEFAULT_EJECTION, DEFAULT_STAGES

    return (DEFAULT_EJECTION if ejection_width is None else ejection_width,
            DEFAULT_STAGES if stages is None else stages)


def _deflection_router(target, M, S, topology="ldi", node=0, flit_width=32, router="auto", ejection_width=None,
                       stages=None, **_):
    from permnet.rtlnet import deflection_router

    E, P = _defaults(ejection_width, stages)
    return deflection_router(M, S, topology, node, flit_width, E, P, cells="ecp5" if target == "ecp5" else "generic",
                             router=router)


def _deflection_network(target, M, S, topology="ldi", flit_width=None, router="auto", endpoints="stream",
                        planes="wires", planes_file=None, ejection_width=None, stages=None, **_):
    from permnet.rtlnet import deflection_network

    require(endpoints == "stream", "--switching deflection builds the network with stream endpoints: "
                                   "add --endpoints stream")
    E, P = _defaults(ejection_width, stages)
    return deflection_network(M, S, topology, flit_width, E, P, planes, planes_file, target, router)


def _deflection_hil(switching, ejection_width=None, stages=None, **_):
    return {"switching": switching} | {k: v for k, v in (("ejection", ejection_width), ("stages", stages))
                                       if v is not None}


DEFLECTION = RouterKind(
    "deflection", ("deflection",),
    owns={"router": ("ejection_width", "stages"), "network": ("ejection_width", "stages"),
          "netsim": ("ejection_width", "deflection_allocator", "deflect", "side_buffer", "priority"),
          "hil": ("ejection_width", "stages")},
    refuses={"router": "--switching deflection has no VCs, buffers or credits: drop {options}",
             "network": "--switching deflection has no VCs, buffers, credits or self-test trace: drop {options}",
             "netsim": "{options}: meaningless with --switching deflection (a bufferless router has no VCs, "
                       "buffers, credits, injection lanes, VC allocator or ejection modes)",
             "hil": "{options} mean(s) nothing with --switching deflection in the HIL network design "
                    "(bufferless routers)"},
    router_rtl=_deflection_router, network_rtl=_deflection_network, hil_params=_deflection_hil,
    netsim_defaults={"packet_size": PACKET_FLITS})


#: every router kind, in the order the CLI lists them
KINDS: list[RouterKind] = [VC, DEFLECTION]


def switchings(command: str | None = None) -> tuple:
    """Every ``--switching`` name (of ``command``: those it builds), the first the default."""
    return tuple(s for k in KINDS for s in (k.switchings if command is None else k.switchings_for(command)))


def router_kind(switching: str) -> RouterKind:
    """The kind that ``switching`` picks."""
    for k in KINDS:
        if switching in k.switchings:
            return k
    raise PermnetError(f"unknown switching {switching!r} ({', '.join(switchings())})")


def _owners(command: str, name: str) -> list[RouterKind]:
    return [k for k in KINDS if name in k.owns.get(command, ())]


def _foreign(kind: RouterKind, command: str) -> list[str]:
    """The options that other kinds own in ``command`` and ``kind`` does not, in the owners'
    declaration order (each once)."""
    mine = set(kind.owns.get(command, ()))
    return list(dict.fromkeys(n for k in KINDS if k is not kind for n in k.owns.get(command, ()) if n not in mine))


def check_options(switching: str, command: str, given: Mapping[str, str]) -> RouterKind:
    """The kind of ``switching``, after refusing in one line the options in ``given`` (parameter
    name -> the flag as typed) that other kinds own in ``command`` and it does not: with its
    ``refuses`` message, else ``--x needs --switching y`` (the owners' switchings; the options
    of different owners in the same line, joined by ``;``). The flags are listed in the owners'
    declaration order."""
    kind = router_kind(switching)
    bad = [n for n in _foreign(kind, command) if n in given]
    if not bad:
        return kind
    if command in kind.refuses:
        raise PermnetError(kind.refuses[command].format(options=", ".join(given[n] for n in bad)))
    groups: dict[tuple, list[str]] = {}
    for n in bad:
        owners = tuple(s for k in _owners(command, n) for s in k.switchings_for(command))
        groups.setdefault(owners, []).append(given[n])
    raise PermnetError("; ".join(f"{', '.join(flags)} needs --switching {' or '.join(owners)}"
                                 for owners, flags in groups.items()))


def kind_options(kind: RouterKind, command: str, options: Mapping) -> dict:
    """``options`` without those only other kinds own in ``command`` (they were refused when given,
    so they hold their defaults): what the kind's builders take."""
    foreign = set(_foreign(kind, command))
    return {n: v for n, v in options.items() if n not in foreign}
