"""Logical switching planes compiled onto a real inventory of optical circuit switches.

Melhem (Section 1) notes that a switching plane need not be one crossbar:
any rearrangeable multistage network of smaller switches can take its
place.  This package turns the logical planes permnet computes into
cross-connects on the devices a user owns and the fibres between them:

* :mod:`~permnet.gen.fabric.inventory` -- devices and built-in models;
* :mod:`~permnet.gen.fabric.clos` -- rearrangeable Clos networks of
  devices, routed by bipartite edge colouring (Protsenko, Lemma 1 / Def. 8);
* :mod:`~permnet.gen.fabric.compile` -- placement of planes on devices,
  port ranges, cables;
* :mod:`~permnet.gen.fabric.simulate` -- the composed fabric simulated end
  to end, and where a read-back breaks a circuit;
* :mod:`~permnet.gen.fabric.reconfig` -- minimal-change reconfiguration;
* :mod:`~permnet.gen.fabric.tdm` -- guard times of time-multiplexed devices.

Pure algorithms (numpy), no file I/O: ``permnet.fabric`` reads and writes.
"""
