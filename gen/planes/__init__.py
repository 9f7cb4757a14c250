"""Switching planes: decomposition into permutations, TDM schedules, faults, mixed planes."""
