"""SONiC OCS read-backs: what an operator types and what the switch prints.

The expected cross-connects come from a replayer written here from the SONiC
OCS design (``config ocs cross-connect add|delete SPEC [update|safe|
overwrite]``; ``show ocs cross-connect config|status`` tables; only ``tuned``
on both sides is established), driven by the operations themselves, never by
the parser under test."""

import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from permnet import formats, ocsconfig
from permnet.cli import main
from permnet.gen.errors import PermnetError

SONIC = formats.get("sonic")
STATUSES = ["tuned", "tuning", "blocked", "failed"]


class Switch:
    """A SONiC OCS as documented: A side -> B side, each port in at most one cross-connect."""

    def __init__(self):
        self.xc = {}

    def add(self, pairs, mode):
        if mode == "overwrite":
            self.xc = {}
        if mode == "safe":
            for a, b in pairs:
                if (a in self.xc and self.xc[a] != b) or any(v == b and k != a for k, v in self.xc.items()):
                    return
        for a, b in pairs:
            self.xc = {k: v for k, v in self.xc.items() if v != b}
            self.xc[a] = b

    def delete(self, pairs):
        for a, b in pairs:
            if self.xc.get(a) == b:
                del self.xc[a]


def spec_text(pairs, style, draw_case):
    """Write the pairs as a comma batch; consecutive runs as ranges when asked."""
    items = []
    k = 0
    while k < len(pairs):
        run = 1
        while (style["ranges"] and k + run < len(pairs) and pairs[k + run][0] == pairs[k][0] + run
               and pairs[k + run][1] == pairs[k][1] + run):
            run += 1
        a, b = pairs[k]
        A, B = ("a", "b") if draw_case else ("A", "B")
        if run > 1:
            items.append(f"{a}{A}..{a + run - 1}{A}-{b}{B}..{b + run - 1}{B}")
        elif style["reversed"]:
            items.append(f"{b}{B}-{a}{A}")
        else:
            items.append(f"{a}{A}-{b}{B}")
        k += run
    return ",".join(items)


@st.composite
def sessions(draw):
    D = draw(st.integers(2, 40))
    ops = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["add", "add", "add", "delete"]))
        n = draw(st.integers(1, 5))
        if draw(st.booleans()):       # a consecutive run (range syntax candidates)
            a0, b0 = draw(st.integers(1, D)), draw(st.integers(1, D))
            n = min(n, D - a0 + 1, D - b0 + 1)
            pairs = [(a0 + k, b0 + k) for k in range(n)]
        else:
            a = draw(st.lists(st.integers(1, D), min_size=1, max_size=n, unique=True))
            b = draw(st.lists(st.integers(1, D), min_size=len(a), max_size=len(a), unique=True))
            pairs = list(zip(a, b))
        mode = draw(st.sampled_from([None, "update", "safe", "overwrite"])) if kind == "add" else None
        style = {"ranges": draw(st.booleans()), "reversed": draw(st.booleans()), "lower": draw(st.booleans()),
                 "prefix": draw(st.sampled_from(["", "sudo ", "admin@sonic:~$ sudo ", "admin@sonic:~$ "]))}
        ops.append((kind, pairs, mode, style))
    return D, ops


@settings(max_examples=60, deadline=None)
@given(sessions())
def test_typed_commands_replay_like_the_switch(session):
    D, ops = session
    sw = Switch()
    lines = []
    for kind, pairs, mode, style in ops:
        spec = spec_text(pairs, style, style["lower"])
        lines.append(f"{style['prefix']}config ocs cross-connect {kind} {spec}" + (f" {mode}" if mode else ""))
        sw.add(pairs, mode or "update") if kind == "add" else sw.delete(pairs)
    dump = SONIC.parse("\n".join(lines) + "\n", device_ports=D, name="s")
    assert sorted((i, e) for _, i, e in dump.connections) == sorted((a - 1, b - 1) for a, b in sw.xc.items())
    assert dump.not_established == []


def table(header, rows):
    """Columns padded to the widest cell plus two spaces, dashes under the header (as the switch prints)."""
    widths = [max(len(str(r[c])) for r in [header] + rows) for c in range(len(header))]
    fmt = lambda r: "  ".join(str(x).ljust(w) for x, w in zip(r, widths)).rstrip()     # noqa: E731
    return "\n".join([fmt(header), "  ".join("-" * w for w in widths)] + [fmt(r) for r in rows]) + "\n"


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 64).flatmap(lambda D: st.tuples(
    st.just(D), st.permutations(range(1, D + 1)),
    st.lists(st.tuples(st.sampled_from(STATUSES), st.sampled_from(STATUSES)), min_size=D, max_size=D),
    st.integers(0, D))))
def test_status_table_only_tuned_is_established(case):
    D, perm, sts, used = case
    rows = [(f"{a}A-{b}B", f"{a}A", f"{b}B", s1, s2) for a, b, (s1, s2) in zip(range(1, used + 1), perm, sts)]
    text = "admin@sonic:~$ show ocs cross-connect status\n" + table(
        ("id", "a_side", "b_side", "a_side_status", "b_side_status"), rows)
    dump = SONIC.parse(text, device_ports=D)
    up = sorted((a - 1, int(b) - 1) for a, b, (s1, s2) in zip(range(1, used + 1), perm, sts) if s1 == s2 == "tuned")
    assert sorted((i, e) for _, i, e in dump.connections) == up
    down = sorted((a - 1, int(b) - 1, f"{s1}/{s2}") for a, b, (s1, s2) in zip(range(1, used + 1), perm, sts)
                  if not s1 == s2 == "tuned")
    assert sorted((i, e, s) for _, i, e, s in dump.not_established) == down


def test_config_table_as_printed_by_the_switch():
    text = ("admin@sonic:~$ show ocs cross-connect config\n"
            "id       a_side    b_side\n-------  --------  --------\n"
            "1A-1B    1A        1B\n2A-5B    2A        5B\n12A-32B  12A       32B\n")
    d = SONIC.parse(text, device_ports=64)
    assert sorted(d.connections) == [(0, 0, 0), (0, 1, 4), (0, 11, 31)]


def test_id_cross_connect_status_columns():
    text = ("ID  Cross-Connect  Status\n--  -------------  ------\n"
            "1   1A-3B          tuned\n2   2A-1B          tuning\n3   3a-2b          blocked\n")
    d = SONIC.parse(text, device_ports=3)
    assert d.connections == [(0, 0, 2)] and sorted(d.not_established) == [(0, 1, 0, "tuning"), (0, 2, 1, "blocked")]


@pytest.mark.parametrize("line,needle", [
    ("config ocs cross-connect add 1A-2A", "two A-side ports"),
    ("config ocs cross-connect add 1A..4A-1B..2B", "same number of ports"),
    ("config ocs cross-connect add 1A-2B fast", "unknown mode"),
    ("config ocs cross-connect add 1A-99B", "egress port 99"),
    ("1A-2B   1A   2B", "table row"),
    ("reboot", "expected 'config ocs cross-connect add"),
])
def test_bad_sonic_lines_are_named(line, needle):
    with pytest.raises(PermnetError, match=needle):
        SONIC.parse(line + "\n", device_ports=16, name="rb")


def test_safe_add_refused_by_the_switch_is_a_warning():
    d = SONIC.parse("config ocs cross-connect add 1A-2B\nconfig ocs cross-connect add 1A-3B safe\n", device_ports=4)
    assert d.connections == [(0, 0, 1)] and "safe add refused" in d.warnings[0]


def test_verify_reports_not_tuned_and_exits_1(tmp_path, capsys):
    want = np.array([[1, 2, 0]])
    ocsconfig.write(ocsconfig.OcsConfig(want, {}), tmp_path / "i.json")
    (tmp_path / "st.txt").write_text(
        "show ocs cross-connect status\nid     a_side  b_side  a_side_status  b_side_status\n"
        "-----  ------  ------  -------------  -------------\n"
        "1A-2B  1A      2B      tuned          tuned\n2A-3B  2A      3B      tuned          tuning\n")
    with pytest.raises(SystemExit) as exc:
        main(["verify", "--config", str(tmp_path / "st.txt"), "--intended", str(tmp_path / "i.json"), "--json"])
    assert exc.value.code == 1
    rep = json.loads(capsys.readouterr().out)
    assert rep["not_established"] == [[0, 1, 2, "tuned/tuning"]] and rep["missing"] == [[0, 2, 0]]
    assert rep["conflicting"] == [] and rep["extra"] == []


def test_a_table_is_a_snapshot_of_the_switch():
    text = ("admin@sonic:~$ sudo config ocs cross-connect add 1A-2B,2A-1B\n"
            "admin@sonic:~$ show ocs cross-connect config\n"
            "id     a_side  b_side\n-----  ------  ------\n2A-1B  2A      1B\n")
    assert SONIC.parse(text, device_ports=4).connections == [(0, 1, 0)]
