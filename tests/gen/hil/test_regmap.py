"""The declarative register map: blocks declared once, checked when built
(bases, offsets, overlaps), designs made of blocks, and a block declared
outside the built-in ones reaching the exported csr.csv and the address
look-up the host uses."""

import pytest

from permnet.gen.errors import PermnetError
from permnet.gen.hil import regmap as R


def test_blocks_are_disjoint_and_designs_are_their_union():
    bases = sorted(b.base for b in R.BLOCKS.values())
    assert len(set(bases)) == len(bases) and all(b % R.BLOCK_WORDS == 0 for b in bases)
    params = {"ports": 16, "size": 8, "word_chunks": 2}
    for design, blocks in R.DESIGNS.items():
        regs = R.registers(design, **params)
        assert {r.block for r in regs} == set(blocks)
        words = [r.address + i for r in regs for i in range(r.count)]
        assert len(set(words)) == len(words)                         # no address decodes two registers
        for r in regs:
            assert R.BASES[r.block] <= r.address < R.BASES[r.block] + R.BLOCK_WORDS
            assert R.addr(r.block, r.name) == r.address


def test_array_lengths_follow_the_parameters():
    regs = {f"{r.block}_{r.name}": r for r in R.registers("all", ports=12, size=16, word_chunks=3)}
    assert regs["xbar_rb"].count == 12 and regs["xbar_prbs_words"].count == 12
    assert regs["benes_rb"].count == 16 and regs["benes_prbs_errors"].count == 16
    assert regs["benes_chunk"].count == 3 and regs["xbar_cfg"].window


def test_declaration_errors(monkeypatch):
    monkeypatch.setattr(R, "BLOCKS", dict(R.BLOCKS))
    monkeypatch.setattr(R, "BASES", dict(R.BASES))
    with pytest.raises(PermnetError, match="taken by xbar"):
        R.block("other", 0x1000)(lambda: [])
    with pytest.raises(PermnetError, match="multiple of"):
        R.block("odd", 0x1234)(lambda: [])
    R.block("bad", 0xE000)(lambda: [R.reg("a", 0x10, "RO", count=4, array=True), R.reg("b", 0x12, "RW")])
    with pytest.raises(PermnetError, match="bad_a and bad_b overlap"):
        R.block_registers("bad")
    R.block("clash", 0xC000)(lambda: [R.reg("rb", 0x10, "RO", count=2, array=True), R.reg("rb1", 0x20, "RW")])
    with pytest.raises(PermnetError, match="two registers clash_rb1"):
        R.to_csv(R.block_registers("clash"))
    R.block("wide", 0xD000)(lambda n=1: [R.reg("a", 0xFFF, "RO", count=n, array=True)])
    assert R.block_registers("wide")[0].address == 0xDFFF
    with pytest.raises(PermnetError, match="does not fit"):
        R.block_registers("wide", n=2)


def test_a_new_block_reaches_the_exported_map(monkeypatch):
    monkeypatch.setattr(R, "BLOCKS", dict(R.BLOCKS))
    monkeypatch.setattr(R, "BASES", dict(R.BASES))
    monkeypatch.setattr(R, "DESIGNS", {**R.DESIGNS, "probe": ("sys", "probe")})

    @R.block("probe", 0xE000, "a test block")
    def _probe(nodes: int = 4):
        return [R.reg("ctrl", 0x000, "RW", "start"), R.reg("count", 0x100, "RO", "per node", count=nodes,
                                                          array=True)]

    assert R.BASES["probe"] == 0xE000
    regs = R.registers("probe", nodes=3, ports=99)                     # ports: not the block's parameter
    assert [(r.block, r.name, r.address) for r in regs if r.block == "probe"] == [
        ("probe", "ctrl", 0xE000), ("probe", "count", 0xE100)]
    csv = R.to_csv(regs)
    assert "csr_base,probe,0x00038000,," in csv
    assert [line for line in csv.splitlines() if line.startswith("csr_register,probe_")] == [
        "csr_register,probe_ctrl,0x00038000,1,rw", "csr_register,probe_count0,0x00038400,1,ro",
        "csr_register,probe_count1,0x00038404,1,ro", "csr_register,probe_count2,0x00038408,1,ro"]
    R._register.cache_clear()
    try:
        assert R.addr("probe", "count", 2) == 0xE102
    finally:
        R._register.cache_clear()
