"""Hardware in the loop: an 8N1 UART PHY (:mod:`.uart`), a UARTBone byte
stream to register bus bridge with an optional CRC-framed mode
(:mod:`.bridge`), PRBS generators and checkers (:mod:`.prbs`), the top
level :class:`~permnet.hdl.hil.top.HilTop` (:mod:`.top`) and its Verilator
build bridged to TCP (:mod:`.verilator`).  The register map and the byte
protocol are data in :mod:`permnet.gen.hil`."""
