"""Searches for good topologies (Doty's chordal rings)."""
