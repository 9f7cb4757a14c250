"""Talking to optical circuit switches: one driver interface, one class per
protocol, emulators for tests, and a safe apply/read-back/rollback transaction.

Data model shared by every driver (and by ``permnet verify``): a switch's
state is one *plane*, a numpy ``int64`` array ``row`` of length N (the
device's port count) with ``row[i]`` the 0-based egress of 0-based ingress
``i`` or ``-1`` when ingress ``i`` is unconnected.  Device port numbering
(Polatis egress offset, 1-based faceplates, ...) lives inside each driver.
"""
