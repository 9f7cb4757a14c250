"""The names of the topology families, declared once.

Plain tuples with no imports, so that the CLI can offer them as choices
without loading numpy at start-up; the builders and the routing tables read
the same tuples."""

#: super-IP families of Yeh & Parhami (Section 3.2-3.4) and RHSN, by their super-generators
SUPER_FAMILIES = ("hsn", "ring-cn", "complete-cn", "directed-cn", "superflip", "rhsn")

#: IP and super-IP families that netsim and deadlock build from --levels/--nucleus: the super-IP
#: families, RCC (RHSN with a complete nucleus) and the quotient cyclic-shift networks QCN
IP_NETWORKS = SUPER_FAMILIES + ("rcc", "qcn")

#: every --topology of netsim and deadlock (gen.routing.tables.network builds each)
NETWORKS = ("ldi", "debruijn", "kautz", "torus", "hypercube", "chordal", "imase-itoh") + IP_NETWORKS
