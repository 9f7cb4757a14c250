"""ncclient's own examples pass ``edit_config`` a ``<config>`` with no
namespace (``config='<config><cross-connects xmlns="...">...</config>'``),
and real devices take it; the emulator answered ``RPCError: <config>
missing`` (issue 43).  ncclient drives the emulator on 127.0.0.1 that way,
and the switch must hold the cross-connects afterwards."""

from concurrent.futures import ThreadPoolExecutor

import pytest
from ocs_helpers import CREDS, Emulator

from permnet.ocs.netconf import NC, OPSW, serve_netconf
from permnet.ocs.switchcore import SwitchCore

PLAIN = (f'<config><cross-connects xmlns="{OPSW}">'
         "<pair><ingress>1</ingress><egress>10</egress></pair>"
         "<pair><ingress>2</ingress><egress>9</egress></pair></cross-connects></config>")


def bounded(fn, seconds=20.0):
    """``fn()`` in a worker thread, waited on at most ``seconds`` (ncclient calls are bounded by their own
    time-outs too); its result or its exception."""
    pool = ThreadPoolExecutor(1)
    try:
        return pool.submit(fn).result(seconds)
    finally:
        pool.shutdown(wait=False)


@pytest.mark.parametrize("target", ["candidate", "running"])
def test_ncclient_edit_config_with_a_config_in_no_namespace(target):
    from ncclient import manager
    core = SwitchCore(8)
    with Emulator(serve_netconf, core, credentials=CREDS) as emu:
        def session():
            with manager.connect(host="127.0.0.1", port=emu.port, username=CREDS.user, password=CREDS.password,
                                 hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=5) as m:
                reply = m.edit_config(target=target, config=PLAIN)
                if target == "candidate":
                    m.commit()
                return reply.ok, m.get_config(source="running").data_xml

        ok, xml = bounded(session)
    assert ok
    assert core.snapshot().tolist() == [1, 0] + [-1] * 6
    assert "<egress>9</egress>" in xml


def test_a_config_in_another_namespace_is_still_refused():
    from ncclient import manager
    from ncclient.operations import RPCError
    from ncclient.xml_ import to_ele
    core = SwitchCore(8)
    # ncclient's edit_config refuses such a <config> itself: sent as a raw operation
    other = to_ele(f'<edit-config xmlns="{NC}"><target><running/></target>'
                   + PLAIN.replace("<config>", '<config xmlns="urn:example:not-netconf">', 1) + "</edit-config>")
    with Emulator(serve_netconf, core, credentials=CREDS) as emu:
        def session():
            with manager.connect(host="127.0.0.1", port=emu.port, username=CREDS.user, password=CREDS.password,
                                 hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=5) as m:
                with pytest.raises(RPCError, match="config"):
                    m.dispatch(other)

        bounded(session)
    assert (core.snapshot() == -1).all()
