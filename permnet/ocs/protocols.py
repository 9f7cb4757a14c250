"""Import every protocol module so that its driver registers itself."""

import importlib

for _name in ("scpi", "tl1", "netconf", "sonic"):
    try:
        importlib.import_module(f"permnet.ocs.{_name}")
    except ModuleNotFoundError as exc:  # a protocol module not written yet
        if exc.name != f"permnet.ocs.{_name}":
            raise
