"""The routers' allocation models, one list for the simulator, the RTL and the CLI.

* ``combined``: every input VC may move in a cycle (combined VC and switch
  allocation, round robin per output);
* ``input-first``: each input port first offers one of its VCs, then the
  output and ejection arbiters go round the ports;
* ``two-stage``: input-first with each port's offer chosen a cycle ahead and
  the ejection port registered;
* ``separate-va``: two-stage with VC allocation a cycle before switch
  allocation: a head is first granted its output VC (one round-robin arbiter
  per output VC), then crosses in a later cycle, switch allocation no longer
  testing owners or (with virtual cut-through) credits.

The models are stated in :mod:`permnet.sim.netsim` and built in
:class:`permnet.hdl.router.Router`.
"""

__all__ = ["ALLOCATORS", "OFFER_AHEAD"]

ALLOCATORS = ("combined", "input-first", "two-stage", "separate-va")
# the allocators whose input ports choose their offer a cycle ahead, with a registered ejection
OFFER_AHEAD = ("two-stage", "separate-va")
