"""Hardware-in-the-loop data shared by the gateware (:mod:`permnet.hdl.hil`)
and the host driver (:mod:`permnet.hil`): the register map and the wire
protocol (UARTBone commands, the framed mode's CRC-8)."""
