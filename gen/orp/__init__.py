"""The order/radix problem (Yasudo et al.): host-switch graphs, bounds, annealing, conventional topologies."""
