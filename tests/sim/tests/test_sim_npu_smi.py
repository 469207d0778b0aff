"""The npu-smi stand-in and the node state it renders (no Docker needed)."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

import sim
from simtestlib import REPO, SIM_DIR, fixture_text

NPU_SMI = SIM_DIR / "images" / "node" / "npu-smi"
VLLM = SIM_DIR / "images" / "vllm-ascend" / "vllm"
render = sim.npu_smi_tool().render_info
node = sim.node_tool()


def collection_module():
    """The collection's own npu-smi module (plugins/module_utils/node/npu_smi.py: stdlib only), loaded by path."""
    path = REPO / "plugins" / "module_utils" / "node" / "npu_smi.py"
    spec = importlib.util.spec_from_file_location("ascend_vllm_npu_smi", path)
    mod = importlib.util.module_from_spec(spec)
    # Registered first, as an import would: its dataclass reads its own module's namespace.
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def collection_parser():
    """The collection's own npu-smi parser."""
    return collection_module().parse_npu_smi_info


def chip(c, d, temp, used, total, hugepages=(0, 0), processes=()):
    return {"chip": c, "device": d, "name": "310P3", "health": "OK", "power": "NA", "temp": temp,
            "hugepages_used": hugepages[0], "hugepages_total": hugepages[1], "aicore": 0,
            "memory_used": used, "memory_total": total, "processes": list(processes)}


# States equivalent to the real captures in shared/fixtures/npu-smi/.
FIXTURE_STATES = {
    "01_": {"npu_smi_version": "25.0.rc1.1", "cards": [{"npu_id": 6, "bus_id": "0000:83:00.0", "chips": [
        chip(0, 0, 55, 1175, 44280),
        chip(1, 1, 52, 8322, 43693, (3262, 3262), [{"pid": 293029, "name": "python3.11", "memory": 6612}])]}]},
    "02_": {"npu_smi_version": "25.2.0", "cards": [{"npu_id": 2, "bus_id": "0000:01:00.0", "chips": [
        chip(0, 0, 51, 1529, 44280), chip(1, 1, 49, 1411, 43693)]}]},
    "06_": {"npu_smi_version": "25.2.3", "process_table": False, "cards": [
        {"npu_id": 224, "bus_id": "0000:04:00.0", "chips": [chip(0, 0, 71, 1263, 44280)]}]},
    "07_": {"npu_smi_version": "22.0.4", "process_table": False, "card_separator": "-", "cards": [
        {"npu_id": 7, "bus_id": "0000:00:07.0", "chips": [chip(0, 0, 28, 1805, 21527)]}]},
}


@pytest.mark.parametrize("prefix", sorted(FIXTURE_STATES))
def test_render_is_byte_identical_to_fixture(fixtures, prefix):
    assert render(FIXTURE_STATES[prefix]) == fixture_text(fixtures, prefix)


def test_default_300i_duo_node_prints_fixture_02(fixtures):
    state = node.default_state("atlas_300i_duo", {})
    assert render(state) == fixture_text(fixtures, "02_")


def test_fixture_01_reached_through_set_commands(fixtures):
    state = node.default_state("atlas_300i_duo", {"npu_ids": "6", "npu_smi_version": "25.0.rc1.1"})
    node.set_values(state, ["bus_id=0000:83:00.0", "chip=0", "temp=55", "mem_used=1175",
                            "chip=1", "temp=52", "mem_used=1710", "hugepages=3262/3262",
                            "process=chip1:293029:python3.11:6612"])
    assert render(state) == fixture_text(fixtures, "01_")


def test_script_prints_fixture_bytes_from_a_state_file(fixtures, tmp_path):
    state_file = tmp_path / "npu.json"
    state_file.write_text(json.dumps(FIXTURE_STATES["02_"]))
    proc = subprocess.run([sys.executable, str(NPU_SMI), "info"], capture_output=True, env={"ASCEND_SIM_NPU_STATE": str(state_file)}, check=False)
    assert proc.returncode == 0
    assert proc.stdout == fixture_text(fixtures, "02_").encode()


def test_script_without_driver_state_fails_like_dcmi(tmp_path):
    proc = subprocess.run([sys.executable, str(NPU_SMI), "info"], capture_output=True, text=True,
                          env={"ASCEND_SIM_NPU_STATE": str(tmp_path / "absent.json")}, check=False)
    assert proc.returncode != 0
    assert "dcmi module initialize failed" in proc.stdout


def test_multi_card_layout_and_non_contiguous_npu_ids():
    state = node.default_state("atlas_300i_duo", {"cards": "3", "npu_ids": "1/4/9"})
    node.set_values(state, ["chip=3", "health=Critical", "process=chip4:4242:vllm:2048"])
    lines = render(state).splitlines()
    assert all(len(line) == 106 for line in lines)
    rows = [line for line in lines if line.startswith("| ") and "310P3" in line]
    assert [r.split()[1] for r in rows] == ["1", "1", "4", "4", "9", "9"]
    assert "Critical" in rows[3] and rows.count(rows[0]) == 1
    # Device ids run on across cards; the chip index restarts per card.
    dev_rows = [line for line in lines if line.startswith("| ") and "0000:" in line]
    expected = [("0", "0"), ("1", "1"), ("0", "2"), ("1", "3"), ("0", "4"), ("1", "5")]
    assert [(r.split()[1], r.split()[2]) for r in dev_rows] == expected
    assert "| 9       0                     | 4242            | vllm                     | 2048" in "\n".join(lines)
    assert "No running processes found in NPU 1 " in "\n".join(lines)
    assert "No running processes found in NPU 4 " in "\n".join(lines)
    # A process adds to the chip's used memory, clearing it gives it back.
    chip4 = node.chips(state)[4]
    assert chip4["memory_used"] == 1529 + 2048
    node.set_values(state, ["chip=4", "process=clear"])
    assert chip4["memory_used"] == 1529 and chip4["processes"] == []


def test_200i_pro_defaults_and_memory_option():
    state = node.default_state("atlas_200i_pro", {"mem_total": "21527"})
    assert len(node.chips(state)) == 1 and node.chips(state)[0]["memory_total"] == 21527
    assert state["mode"] == "RC" and state["os"] == "ubuntu"
    out = render(state)
    assert "| 0       0                     | 0000:00:00.0    | 0            1263 / 21527" in out
    assert node.default_state("atlas_200i_pro_openeuler", {})["os"] == "openeuler"


@pytest.mark.parametrize("platform, opts", [("atlas_200i_pro", {"cards": "2"}), ("atlas_300i_duo", {"cards": "9"}),
                                            ("atlas_300i_duo", {"cards": "2", "npu_ids": "3"}), ("nope", {})])
def test_bad_node_options_are_refused(platform, opts):
    with pytest.raises(sim.SimError):
        sim.NodeSpec(name="x1", platform=platform, options=opts).validate()


def test_node_spec_parsing():
    spec = sim.NodeSpec.parse("n1:atlas_300i_duo:cards=2,npu_ids=3/8,health=Warning")
    assert (spec.name, spec.platform, spec.options) == ("n1", "atlas_300i_duo",
                                                        {"cards": "2", "npu_ids": "3/8", "health": "Warning"})
    assert spec.container == "ascend-sim-n1"
    state = node.default_state(spec.platform, spec.options)
    assert [c["health"] for c in node.chips(state)] == ["Warning"] * 4
    with pytest.raises(sim.SimError):
        sim.NodeSpec.parse("justaname")


def test_unknown_set_key_is_an_error():
    state = node.default_state("atlas_300i_duo", {})
    with pytest.raises(SystemExit):
        node.set_values(state, ["colour=blue"])
    with pytest.raises(SystemExit):
        node.set_values(state, ["chip=7", "health=OK"])


def test_inventory_text_groups_by_platform():
    text = sim.inventory_text([
        {"name": "a", "container": "ascend-sim-a", "platform": "atlas_300i_duo"},
        {"name": "b", "container": "ascend-sim-b", "platform": "atlas_200i_pro_openeuler"}], "172.18.0.1:5000")
    yaml = pytest.importorskip("yaml")
    inv = yaml.safe_load(text)
    assert inv["all"]["vars"] == {"ascend_sim": True, "image_pull_registries": ["172.18.0.1:5000"],
                                  "balancer_registries": ["172.18.0.1:5000"]}
    kids = inv["all"]["children"]
    assert kids["atlas_300i_duo"]["hosts"]["a"] == {
        "ansible_connection": "community.docker.docker", "ansible_host": "ascend-sim-a",
        "ansible_python_interpreter": "/usr/bin/python3"}
    assert list(kids["atlas_200i_pro_openeuler"]["hosts"]) == ["b"]
    assert kids["atlas_200i_pro"]["hosts"] == {}


# ---- atlas_300i_pro: one 310P3 chip per card (Atlas 300I Pro / 300V Pro), not built into the collection
def test_300i_pro_node_prints_the_single_chip_layout_of_fixture_06(fixtures):
    state = node.default_state("atlas_300i_pro", {})
    out = render(state)
    lines = out.splitlines()
    assert all(len(line) == 106 for line in lines)
    # Fixture 06's table (25.x header, one chip row pair, "+===+" under the card) with fixture
    # 07's chip (21527 MB), then the process table every 25.x npu-smi prints.
    real = fixture_text(fixtures, "06_").splitlines()
    assert lines[2:6] == real[2:6]
    assert lines[6:9] == [
        "| 7       310P3                 | OK              | NA           28                0     / 0             |",
        "| 0       0                     | 0000:01:00.0    | 0            1805 / 21527                            |",
        real[8]]
    duo = fixture_text(fixtures, "02_").splitlines()
    assert lines[9:] == duo[12:15] + [duo[15].replace("NPU 2 ", "NPU 7 "), duo[16]]
    assert state["mode"] == "EP" and state["os"] == "debian"


def test_fixture_07_reached_through_300i_pro_node_options(fixtures):
    state = node.default_state("atlas_300i_pro", {"npu_smi_version": "22.0.4", "process_table": "off",
                                                  "card_separator": "-", "bus_id": "0000:00:07.0"})
    assert render(state) == fixture_text(fixtures, "07_")


def test_fixture_06_reached_through_300i_pro_node_options(fixtures):
    state = node.default_state("atlas_300i_pro", {
        "npu_ids": "224", "npu_smi_version": "25.2.3", "process_table": "off", "bus_id": "0000:04:00.0",
        "temp": "71", "mem_used": "1263", "mem_total": "44280"})
    assert render(state) == fixture_text(fixtures, "06_")


@pytest.mark.parametrize("cards", [1, 3])
def test_300i_pro_output_parses_into_one_chip_per_card(cards):
    state = node.default_state("atlas_300i_pro", {"cards": str(cards)})
    node.set_values(state, ["chip=%d" % (cards - 1), "process=4242:vllm:2048"])
    parsed = collection_parser()(render(state))
    chips = parsed["chips"]
    assert [c["npu_id"] for c in chips] == list(range(7, 7 + cards))
    assert [(c["chip_id"], c["device_id"]) for c in chips] == [(0, d) for d in range(cards)]
    assert [c["memory_total_mb"] for c in chips] == [21527] * cards
    assert chips[-1]["memory_used_mb"] == 1805 + 2048
    assert len(set(c["bus_id"] for c in chips)) == cards
    assert parsed["processes"] == [{"npu_id": 6 + cards, "chip_id": 0, "device_id": cards - 1, "pid": 4242,
                                    "name": "vllm", "memory_mb": 2048}]


def test_300i_pro_node_has_the_300i_duo_devices_files_and_lspci():
    duo = node.PLATFORMS["atlas_300i_duo"]
    pro = node.PLATFORMS["atlas_300i_pro"]
    for key in ("npu_smi_path", "manager_devices", "mode", "os"):
        assert pro[key] == duo[key], key
    state = node.default_state("atlas_300i_pro", {"cards": "2"})
    assert node.wanted_devices(state) == ["/dev/davinci0", "/dev/davinci1", *duo["manager_devices"]]
    assert node.platform_files(state) == {}
    files = node.driver_files(state)
    assert json.loads(files[node.CHIP_MEMORY][1]) == {"davinci0": 21527, "davinci1": 21527}
    assert set(files) == set(node.driver_files(node.default_state("atlas_300i_duo", {})))


def test_standin_reports_kv_cache_from_the_chip_it_sees(tmp_path):
    dev = tmp_path / "dev"
    dev.mkdir()
    for name in ("davinci_manager", "davinci3"):
        (dev / name).write_text("")
    memory = tmp_path / "chip-memory.json"
    memory.write_text(json.dumps({"davinci0": 44280, "davinci3": 21527}))
    env = dict(os.environ, VLLM_SIM_DEV_ROOT=str(dev), VLLM_SIM_CHIP_MEMORY_FILE=str(memory),
               VLLM_SIM_CACHE_ROOT=str(tmp_path / "cache"))
    loader_spec = importlib.util.spec_from_loader(
        "vllm_standin", importlib.machinery.SourceFileLoader("vllm_standin", str(VLLM)))
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        standin = importlib.util.module_from_spec(loader_spec)
        loader_spec.loader.exec_module(standin)
        assert standin.chip_memory_mb({}) == 21527
        assert standin.chip_memory_mb({"chip_memory_mb": 12288}) == 12288
        memory.unlink()
        assert standin.chip_memory_mb({}) == 44280
    finally:
        os.environ.clear()
        os.environ.update(saved)


def collection_board_parser():
    """The collection's own board-view parser (plugins/module_utils/node/npu_smi.py)."""
    return collection_module().parse_board_info


# The lines (and their order) of a public `npu-smi info -t board -i ID` of an Atlas 300I Duo.
BOARD_KEYS_300I_DUO = ["NPU ID", "Product Name", "Model", "Manufacturer", "Serial Number", "Software Version",
                       "Firmware Version", "Compatibility", "Board ID", "PCB ID", "BOM ID", "PCIe Bus Info", "Slot ID",
                       "Class ID", "PCI Vendor ID", "PCI Device ID", "Subsystem Vendor ID", "Subsystem Device ID",
                       "Chip Count", "Chip Fault"]


def test_board_view_has_the_real_layout_and_parses(tmp_path, monkeypatch):
    tool = sim.npu_smi_tool()
    info = tmp_path / "version.info"
    info.write_text("Version=25.2.0\ncompatible_version_fw=[7.0.0,8.2.99]\n")
    monkeypatch.setattr(tool, "DRIVER_VERSION_INFO", str(info))
    state = node.default_state("atlas_300i_duo", {"cards": "2", "driver_version": "25.0.rc1.1"})
    node.set_values(state, ["card=1", "firmware_version=6.3.0.1.241"])
    first, second = (tool.render_board(state, card) for card in state["cards"])
    # npu-smi's printf("\t%-30s : %s\n"): a tab, the key padded to 30, " : ", the value.
    assert first.splitlines()[0] == "\tNPU ID                         : 2"
    assert [line[1:31].rstrip() for line in first.splitlines()] == BOARD_KEYS_300I_DUO
    parse = collection_board_parser()
    assert {k: parse(first)[k] for k in ("npu_id", "software_version", "firmware_version", "compatibility")} == {
        "npu_id": 2, "software_version": "25.0.rc1.1", "firmware_version": "7.7.0.6.236", "compatibility": "OK"}
    assert (parse(second)["firmware_version"], parse(second)["compatibility"]) == ("6.3.0.1.241", "NOK")


def test_rc_board_view_prints_no_compatibility():
    state = node.default_state("atlas_200i_pro", {"firmware_version": "7.8.0.6.201"})
    out = collection_board_parser()(sim.npu_smi_tool().render_board(state, state["cards"][0]))
    assert (out["npu_id"], out["firmware_version"], out["compatibility"], out["chip_count"]) == (
        0, "7.8.0.6.201", None, 1)


def test_script_prints_the_board_view_of_a_card(tmp_path):
    state = tmp_path / "npu.json"
    state.write_text(json.dumps(node.default_state("atlas_300i_duo", {})))
    env = dict(os.environ, ASCEND_SIM_NPU_STATE=str(state))

    def run(*argv):
        return subprocess.run([sys.executable, str(NPU_SMI)] + list(argv), env=env, capture_output=True, text=True,
                              check=False)
    assert "\tFirmware Version               : 7.7.0.6.236\n" in run("info", "-t", "board", "-i", "2").stdout
    assert run("info", "-i", "2", "-t", "board").returncode == 0
    assert run("info", "-t", "board", "-i", "9").returncode == 1
