"""Routing: LDI next hops, routing by sorting, Beneš/Waksman and (n,d) permutation networks."""
