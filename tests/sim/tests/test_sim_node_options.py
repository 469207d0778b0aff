"""The harness's own node options (systemd, docker, wheelhouse, cann): parsing and what they change. No Docker."""
from __future__ import annotations

import pytest

import sim


def test_default_node_is_unchanged():
    spec = sim.NodeSpec.parse("n1:atlas_300i_duo")
    assert (spec.systemd, spec.docker, spec.wheelhouse, spec.cann) == (False, True, None, None)
    assert spec.init_env() == [] and spec.docker_run_options() == []


def test_systemd_node_defaults_to_cann_9_1_0():
    spec = sim.NodeSpec.parse("n1:atlas_200i_pro:systemd=1,docker=0,wheelhouse=/opt/wh")
    assert (spec.systemd, spec.docker, spec.wheelhouse, spec.cann) == (True, False, "/opt/wh", "9.1.0")
    assert spec.init_env() == ["-e", "ASCEND_SIM_SYSTEMD=1", "-e", "ASCEND_SIM_DOCKER=0", "-e", "ASCEND_SIM_CANN=9.1.0"]
    # The harness's options are not the simulated NPU's.
    assert spec.npu_options() == {}
    assert sim.NodeSpec.parse("n1:atlas_300i_duo:systemd=1,cann=0").cann is None
    assert sim.NodeSpec.parse("n1:atlas_300i_duo:cann=8.5.0").cann == "8.5.0"


def test_a_node_with_the_stand_in_sources_runs_the_image_with_git():
    spec = sim.NodeSpec.parse("n1:atlas_300i_duo:systemd=1,docker=0,sources=/srv/src")
    assert spec.sources == "/srv/src" and spec.npu_options() == {}
    refs = sim.image_refs()
    assert refs.node_src.startswith("ascend-sim/node-src:") and refs.node_src != refs.node_systemd
    assert "git" in (sim.IMAGES / "node-src" / "packages").read_text().split()


@pytest.mark.parametrize("text, message", [
    ("n1:atlas_300i_duo:systemd=maybe", "option systemd takes 1 or 0"),
    ("n1:atlas_300i_duo:docker=2", "option docker takes 1 or 0"),
    ("n1:atlas_300i_duo:wheelhouse=wh", "is not an absolute path"),
    ("n1:atlas_300i_duo:systemd=1,cann=latest", "give a version like 9.1.0"),
    ("n1:atlas_300i_duo:systemd=1,sources=src", "sources=src is not an absolute path"),
    ("n1:atlas_300i_duo:sources=/srv/src", "sources=/srv/src needs systemd=1"),
])
def test_bad_values_are_refused(text, message):
    with pytest.raises(sim.SimError, match=message):
        sim.NodeSpec.parse(text)


def test_node_tool_writes_the_cann_tree_at_the_real_paths():
    files = sim.node_tool().cann_files("9.1.0", arch="aarch64")
    assert files["/usr/local/Ascend/ascend-toolkit/latest"] == ("link", "/usr/local/Ascend/cann-9.1.0")
    info = files["/usr/local/Ascend/cann-9.1.0/aarch64-linux/ascend_toolkit_install.info"][1]
    assert info.splitlines()[:2] == ["package_name=Ascend-cann-toolkit", "version=9.1.0"]
    assert "path=/usr/local/Ascend/cann-9.1.0/aarch64-linux" in info.splitlines()
    assert {"/usr/local/Ascend/ascend-toolkit/set_env.sh", "/usr/local/Ascend/nnal/atb/set_env.sh",
            "/usr/local/Ascend/nnal/atb/9.1.0/version.info"} <= set(files)
