"""Read the register map's SystemRDL with systemrdl-compiler: every register of
one block, its byte address, software access and description."""

import sys

from systemrdl import RDLCompiler
from systemrdl.node import RegNode

rdl, block = sys.argv[1], sys.argv[2]
compiler = RDLCompiler()
compiler.compile_file(rdl)
top = compiler.elaborate().top
for node in top.get_child_by_name(block).descendants():
    if isinstance(node, RegNode) and (not node.is_array or node.current_idx in (None, [0])):
        sw = node.fields()[0].get_property("sw").name
        dims = f"[{node.array_dimensions[0]}]" if node.is_array else ""
        print(f"0x{node.raw_absolute_address:05x} {sw:2} {node.inst_name}{dims}: {node.get_property('desc')[:48].rstrip()}")
