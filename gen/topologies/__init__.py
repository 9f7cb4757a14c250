"""Topology builders, one per family (LDI, de Bruijn, Kautz, tori, IP graphs, chordal rings ...)."""
