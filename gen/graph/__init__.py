"""Shared graph engines: digraphs in CSR form, bit-parallel distances, edge colouring."""
