"""The stand-in wheelhouse (real wheels, installed by the real pip) and the stand-in vllm's host behaviour:
ASCEND_RT_VISIBLE_DEVICES and the triton refusal. No Docker needed."""
from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
import sys
import zipfile

import pytest

import sim
from simtestlib import SIMCTL
# devroot is a fixture the tests below take by name.
from test_sim_vllm_standin import Server, devroot, fake_lspci, run_cli  # noqa: F401  pylint: disable=unused-import

NAMES = ["triton-3.2.0-py3-none-any.whl", "triton_ascend-3.2.0-py3-none-any.whl",
         "vllm-0.22.0-py3-none-any.whl", "vllm-0.23.0-py3-none-any.whl",
         "vllm_ascend-0.22.0-py3-none-any.whl", "vllm_ascend-0.23.0-py3-none-any.whl"]


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory):
    path = tmp_path_factory.mktemp("wheelhouse")
    proc = subprocess.run([sys.executable, SIMCTL, "wheelhouse", str(path)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    return path


@pytest.fixture(scope="module")
def venv(tmp_path_factory, wheelhouse):
    """A real venv with vllm and vllm-ascend 0.23.0 installed from the wheelhouse, as on a node."""
    path = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, timeout=120)
    pip = subprocess.run([str(path / "bin" / "pip"), "install", "-q", "--no-index", "--find-links", str(wheelhouse),
                          "vllm==0.23.0", "vllm-ascend==0.23.0"], capture_output=True, text=True, timeout=120,
                         check=False)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    return path


def test_wheelhouse_holds_real_wheels_built_the_same_every_time(wheelhouse, tmp_path):
    assert sorted(p.name for p in wheelhouse.iterdir()) == NAMES
    for wheel in wheelhouse.iterdir():
        with zipfile.ZipFile(wheel) as zf:
            names = zf.namelist()
            (record,) = [n for n in names if n.endswith(".dist-info/RECORD")]
            rows = [line.split(",") for line in zf.read(record).decode().splitlines()]
            assert sorted(r[0] for r in rows) == sorted(names)
            for path, digest, size in rows:
                if path == record:
                    assert (digest, size) == ("", "")
                    continue
                data = zf.read(path)
                assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                assert int(size) == len(data)
            wheel_meta = zf.read(record.replace("RECORD", "WHEEL")).decode()
            assert "Wheel-Version: 1.0" in wheel_meta and "Tag: py3-none-any" in wheel_meta
    again = sim.build_wheelhouse(tmp_path / "again")
    assert {p.name: p.read_bytes() for p in again} == {n: (wheelhouse / n).read_bytes() for n in NAMES}


def test_metadata_and_requirements(wheelhouse):
    def meta(name):
        with zipfile.ZipFile(wheelhouse / name) as zf:
            (path,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
            return zf.read(path).decode()
    assert "Requires-Dist: vllm==0.23.0" in meta("vllm_ascend-0.23.0-py3-none-any.whl")
    assert "Requires-Dist: triton-ascend" in meta("vllm_ascend-0.23.0-py3-none-any.whl")
    assert "Requires-Dist: vllm==0.22.0" in meta("vllm_ascend-0.22.0-py3-none-any.whl")
    assert "Requires-Dist: triton==3.2.0" in meta("triton_ascend-3.2.0-py3-none-any.whl")
    with zipfile.ZipFile(wheelhouse / "vllm-0.23.0-py3-none-any.whl") as zf:
        assert zf.read("vllm-0.23.0.dist-info/entry_points.txt").decode() == \
            "[console_scripts]\nvllm = vllm.entrypoints.cli.main:main\n"
        # The stand-in server is the test image's file, not a fork.
        assert zf.read("vllm/_ascend_sim_server.py") == (sim.IMAGES / "vllm-ascend" / "vllm").read_bytes()


def test_pip_installs_the_pair_with_triton_and_removes_triton(venv, wheelhouse):
    py = str(venv / "bin" / "python")
    pip = str(venv / "bin" / "pip")
    listed = json.loads(subprocess.run([pip, "list", "--format", "json"], capture_output=True, text=True,
                                       check=True).stdout)
    versions = {p["name"].lower().replace("_", "-"): p["version"] for p in listed}
    assert {k: versions.get(k) for k in ("vllm", "vllm-ascend", "triton-ascend", "triton")} == \
        {"vllm": "0.23.0", "vllm-ascend": "0.23.0", "triton-ascend": "3.2.0", "triton": "3.2.0"}
    out = subprocess.run([py, "-c", "import vllm, vllm_ascend, vllm_ascend._build_info as b; "
                          "print(vllm.__version__, vllm_ascend.__version__, b.__device_type__)"],
                         capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0.23.0", "0.23.0", "_310P"]
    assert subprocess.run([str(venv / "bin" / "vllm"), "--version"], capture_output=True, text=True,
                          check=True).stdout.strip() == "0.23.0"
    assert subprocess.run([pip, "check"], capture_output=True, text=True, check=False).returncode == 0


def _host_vllm(venv, devroot_, tmp_path, *args, **env):  # noqa: F811
    """The installed `vllm serve` (a model directory, EP mode); once up, the engine dies at once (exit 1)."""
    model = tmp_path / "model"
    model.mkdir(exist_ok=True)
    (model / "config.json").write_text("{}")
    base = {"VLLM_SIM_DEV_ROOT": str(devroot_), "VLLM_SIM_CACHE_ROOT": str(tmp_path / "cache"),
            "VLLM_SIM_LOAD_SECONDS": "0", "VLLM_SIM_LSPCI": fake_lspci(tmp_path, True), "PATH": "/usr/bin:/bin",
            "VLLM_SIM_DIE_AFTER": "0", "VLLM_SIM_DIE_EXIT": "1"}
    lib = tmp_path / "libs"
    lib.mkdir(exist_ok=True)
    for name in ("libascend_hal.so", "libascendcl.so", "libatb.so", "libstackcore.so"):
        (lib / name).write_text("placeholder")
    base["LD_LIBRARY_PATH"] = str(lib)
    base.update(env)
    return subprocess.run([str(venv / "bin" / "vllm"), "serve", str(model), "--port", "0", *args], capture_output=True,
                          text=True, timeout=30, env=base, check=False)


def test_installed_vllm_refuses_to_start_while_triton_imports(venv, wheelhouse, devroot, tmp_path):  # noqa: F811
    proc = _host_vllm(venv, devroot, tmp_path)
    assert proc.returncode == 1
    assert "bishengir-compile: for the --target option: Cannot find option named 'Ascend310P3'!" in proc.stdout
    assert "`import triton` works in this interpreter" in proc.stderr
    subprocess.run([str(venv / "bin" / "pip"), "uninstall", "-q", "-y", "triton-ascend", "triton"], check=True)
    try:
        proc = _host_vllm(venv, devroot, tmp_path)
        assert "bishengir" not in proc.stdout
        assert "Application startup complete." in proc.stdout
    finally:
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-index", "--find-links",
                        str(wheelhouse), "triton-ascend"], check=True, capture_output=True)


def test_installed_vllm_needs_toolkit_and_atb_on_the_library_path(venv, devroot, tmp_path):  # noqa: F811
    lib = tmp_path / "only-driver"
    lib.mkdir()
    (lib / "libascend_hal.so").write_text("placeholder")
    proc = _host_vllm(venv, devroot, tmp_path, LD_LIBRARY_PATH=str(lib))
    assert proc.returncode == 1 and "libascendcl.so and libatb.so not found in LD_LIBRARY_PATH" in proc.stderr
    assert "ImportError: libascendcl.so: cannot open shared object file" in proc.stderr


def test_installed_vllm_finds_board_libraries_through_ld_so_conf(venv, devroot, tmp_path):  # noqa: F811
    """RC mode on a host: /usr/lib64 is found through /etc/ld.so.conf.d (mind_so.conf), not LD_LIBRARY_PATH."""
    board = tmp_path / "usr-lib64"
    board.mkdir()
    (board / "libstackcore.so").write_text("placeholder")
    conf_d = tmp_path / "ld.so.conf.d"
    conf_d.mkdir()
    (conf_d / "mind_so.conf").write_text("%s\n" % board)
    (tmp_path / "ld.so.conf").write_text("include %s/*.conf\n" % conf_d)
    lib = tmp_path / "driver-toolkit-atb"
    lib.mkdir()
    for name in ("libascend_hal.so", "libascendcl.so", "libatb.so"):
        (lib / name).write_text("placeholder")
    (tmp_path / "proc").mkdir()
    rc_mode = {"LD_LIBRARY_PATH": str(lib), "VLLM_SIM_LSPCI": "/bin/true", "VLLM_SIM_PROC_ROOT": str(tmp_path / "proc")}
    proc = _host_vllm(venv, devroot, tmp_path, **rc_mode)
    assert "ImportError: libstackcore.so: cannot open shared object file" in proc.stderr
    proc = _host_vllm(venv, devroot, tmp_path, VLLM_SIM_LD_SO_CONF=str(tmp_path / "ld.so.conf"), **rc_mode)
    assert "libstackcore.so" not in proc.stderr
    # Found, it goes on to what RC mode needs next: the driver's daemons (none run here).
    assert "error code is 207004" in proc.stdout


@pytest.fixture
def two_chips(tmp_path):
    dev = tmp_path / "dev2"
    dev.mkdir()
    for name in ("davinci0", "davinci1", "davinci_manager", "devmm_svm", "hisi_hdc"):
        (dev / name).touch()
    memory = tmp_path / "chip-memory.json"
    memory.write_text(json.dumps({"davinci0": 44280, "davinci1": 21527}))
    return dev, str(memory)


@pytest.mark.parametrize("visible, tp, expect", [
    ("5", 1, "RuntimeError: set ASCEND_RT_VISIBLE_DEVICES:5 error, input data rang[0-2)"),
    ("0,x", 1, "RuntimeError: set ASCEND_RT_VISIBLE_DEVICES:x error, input data rang[0-2)"),
    ("1", 2, "ValueError: World size (2) is larger than the number of available NPUs (1) in this node."),
])
def test_visible_devices_limit_what_the_process_sees(tmp_path, two_chips, visible, tp, expect):
    dev, memory = two_chips
    proc = run_cli(tmp_path, dev, ["serve", "Qwen/Qwen3.5-2B", "-tp", str(tp)], ASCEND_RT_VISIBLE_DEVICES=visible,
                   VLLM_SIM_CHIP_MEMORY_FILE=memory)
    assert proc.returncode == 1 and expect in proc.stdout, proc.stdout[-2000:] + proc.stderr


def test_visible_devices_pick_the_chip_and_its_memory(tmp_path, two_chips):
    dev, memory = two_chips

    def kv_of(visible):
        srv = Server(tmp_path, dev, "-tp", "1", ASCEND_RT_VISIBLE_DEVICES=visible,
                     VLLM_SIM_CHIP_MEMORY_FILE=memory).wait_ready()
        srv.stop()
        return float(re.search(r"Available KV cache memory: ([\d.]+) GiB", srv.log.read_text()).group(1))
    assert kv_of("") == kv_of("0") > kv_of("1")
    srv_both = run_cli(tmp_path, dev, ["serve", "Qwen/Qwen3.5-2B", "-tp", "3"], ASCEND_RT_VISIBLE_DEVICES="1,0",
                       VLLM_SIM_CHIP_MEMORY_FILE=memory)
    assert "World size (3) is larger than the number of available NPUs (2)" in srv_both.stdout
