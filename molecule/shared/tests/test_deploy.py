"""Verify a deploy the way an operator would, from the node itself.

For every vLLM instance the inventory asks for, `docker inspect` on the node
must show exactly the guide's container spec for the node's platform (devices
of the chips it uses plus the manager devices, the mounts, shm size and
privilege), taken from the collection's platform profile, the one source of
those facts; and both smoke endpoints of the guide must answer.
"""
import json
import os
import sys

import pytest

ROOT = os.environ.get("MOLECULE_PROJECT_DIRECTORY", os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, ".ansible", "collections"))

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import get_profile  # noqa: E402

PLATFORMS = ("atlas_300i_duo", "atlas_200i_pro", "atlas_200i_pro_openeuler")
UNITS = {"k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}


def _size(text):
    text = str(text).lower()
    return int(text[:-1]) * UNITS[text[-1]] if text[-1] in UNITS else int(text)


def _expected(host):
    """The instances the inventory asks for: name, chips, port, served name."""
    hv = host.ansible.get_variables()
    platform = [g for g in hv["group_names"] if g in PLATFORMS][0]
    listed = hv.get("ascend_vllm_instances") or []
    if listed:
        instances = [dict(i) for i in listed]
    else:
        tp = int(hv.get("vllm_serve_tensor_parallel_size", 1))
        instances = [{"name": "default", "chips": list(range(tp)), "port": 8080,
                      "model": hv.get("vllm_serve_model", "Qwen/Qwen3.5-2B")}]
    return platform, instances


def _inspect(host, instance):
    ids = host.check_output(
        "docker ps -aq --filter label=ascend.vllm.instance=%s", instance).split()
    assert len(ids) == 1, "expected one container for instance %s, found %d" % (instance, len(ids))
    return json.loads(host.check_output("docker inspect %s", ids[0]))[0]


def _post(host, port, path, body):
    script = (
        "import json,sys,urllib.request as u;"
        "r=u.urlopen(u.Request('http://127.0.0.1:%d%s',data=sys.argv[1].encode(),"
        "headers={'Content-Type':'application/json'}),timeout=30);"
        "print(json.dumps({'status':r.status,'body':json.load(r)}))" % (port, path))
    out = host.check_output("python3 -c %s %s", script, json.dumps(body))
    return json.loads(out)


def test_container_matches_the_guide_spec(host):
    platform, instances = _expected(host)
    profile = get_profile(platform)
    for inst in instances:
        info = _inspect(host, inst["name"])
        hc = info["HostConfig"]
        assert info["State"]["Running"], info["State"]
        assert info["Config"]["Labels"]["ascend.vllm.platform"] == platform

        want_devices = {profile["chip_device_template"].format(index=c) for c in inst["chips"]}
        want_devices |= set(profile["manager_devices"])
        got_devices = {d["PathOnHost"] for d in hc["Devices"] or []}
        assert got_devices == want_devices
        assert all(d["PathOnHost"] == d["PathInContainer"] for d in hc["Devices"])

        want_mounts = {(os.path.normpath(m["source"]), os.path.normpath(m["target"]), not m["read_only"])
                       for m in profile["mounts"] + [profile["model_cache_mount"]]}
        got_mounts = {(os.path.normpath(m["Source"]), os.path.normpath(m["Destination"]), m["RW"])
                      for m in info["Mounts"]}
        assert got_mounts == want_mounts

        assert hc["ShmSize"] == _size(profile["shm_size"])
        assert hc["Privileged"] is profile["privileged"]
        assert info["Config"]["Image"].endswith("ascend/vllm-ascend:v0.23.0" + profile["image_tag_suffix"])

        cmd = info["Config"]["Cmd"]
        assert cmd[:2] == ["vllm", "serve"]
        for flag, value in (("--dtype", "float16"), ("--mamba-ssm-cache-dtype", "float16"),
                            ("--port", str(inst["port"]))):
            assert cmd[cmd.index(flag) + 1] == value
        extra = json.loads(cmd[cmd.index("--additional-config") + 1])
        assert extra["ascend_compilation_config"]["enable_npugraph_ex"] is False
        assert "%d/tcp" % inst["port"] in hc["PortBindings"]


@pytest.mark.parametrize("path,body", [
    ("/v1/completions", {"prompt": "The future of AI is", "max_completion_tokens": 50, "temperature": 0}),
    ("/v1/chat/completions", {"messages": [{"role": "user", "content": "The future of AI is"}],
                              "max_completion_tokens": 1024, "temperature": 0.7, "top_p": 0.95}),
])
def test_smoke_endpoints_answer(host, path, body):
    instances = _expected(host)[1]
    for inst in instances:
        info = _inspect(host, inst["name"])
        cmd = info["Config"]["Cmd"]
        served = cmd[cmd.index("--served-model-name") + 1]
        reply = _post(host, inst["port"], path, dict(body, model=served))
        assert reply["status"] == 200
        assert reply["body"]["choices"], reply


def test_startup_log_lines(host):
    """The guide's "service started" check: its three log lines, in order."""
    instances = _expected(host)[1]
    for inst in instances:
        cid = _inspect(host, inst["name"])["Id"]
        log = host.run("docker logs %s", cid)
        text = log.stdout + log.stderr
        wanted = ("Started server process", "Waiting for application startup.",
                  "Application startup complete.")
        marks = [text.find(m) for m in wanted]
        assert -1 not in marks and marks == sorted(marks), text[-2000:]


# ------------------------------------------------------------------ the image's process contract
# docs/image-contract.md. Run inside the container: the serving process's environment, and the
# environment of the guide's interactive shell (`docker run -it IMAGE bash`, which reads the image's
# ~/.bashrc) started from the image's own ENV only, as the guide's container would have it.
_ENVIRON = (
    "import json,os\n"
    "for pid in sorted(p for p in os.listdir('/proc') if p.isdigit()):\n"
    "    try:\n"
    "        argv = open('/proc/%s/cmdline' % pid, 'rb').read().split(b'\\0')\n"
    "        env = open('/proc/%s/environ' % pid, 'rb').read().split(b'\\0')\n"
    "    except OSError:\n"
    "        continue\n"
    "    if b'serve' in argv and any(a.endswith(b'vllm') for a in argv[:2]):\n"
    "        print(json.dumps(dict(e.decode().split('=', 1) for e in env if b'=' in e)))\n"
    "        break\n")
_DAEMONS = (
    "import json,os\n"
    "out = []\n"
    "for pid in sorted(p for p in os.listdir('/proc') if p.isdigit()):\n"
    "    try:\n"
    "        argv = [a.decode() for a in open('/proc/%s/cmdline' % pid, 'rb').read().split(b'\\0') if a]\n"
    "        uid = os.stat('/proc/%s' % pid).st_uid\n"
    "    except OSError:\n"
    "        continue\n"
    "    out.append({'argv': argv, 'uid': uid})\n"
    "print(json.dumps(out))\n")
# Variables a login or interactive shell sets for itself, not part of the image's contract.
_SHELL_OWN = {"PWD", "OLDPWD", "SHLVL", "_", "HOME", "HOSTNAME", "TERM", "LS_COLORS", "PS1"}


def _serving_env(host, cid):
    out = host.check_output("docker exec %s python3 -c %s", cid, _ENVIRON)
    assert out, "no vllm serve process in container %s" % cid
    return json.loads(out)


def _guide_shell_env(host, info):
    image_env = json.loads(host.check_output("docker image inspect %s", info["Image"]))[0]["Config"]["Env"] or []
    # Docker gives every container HOME=/root; bash finds ~/.bashrc through it.
    cmd = "docker exec %s env -i HOME=/root %s bash -ic 'env -0' 2>/dev/null" % (
        info["Id"], " ".join("'%s'" % item.replace("'", "'\\''") for item in image_env))
    out = host.run(cmd).stdout
    return dict(item.split("=", 1) for item in out.split("\0") if "=" in item), image_env


def test_serving_process_has_the_guide_shells_environment(host):
    """vllm serve's own environment equals the guide's interactive shell's for every image variable and
    the .bashrc ones (LD_LIBRARY_PATH, LD_PRELOAD); the profile's additions are there as the profile says."""
    platform, instances = _expected(host)
    profile = get_profile(platform)
    for inst in instances:
        info = _inspect(host, inst["name"])
        serving = _serving_env(host, info["Id"])
        shell, image_env = _guide_shell_env(host, info)
        # The guide's shell read the image's .bashrc: /usr/lib64 and jemalloc come only from there.
        assert {"/usr/local/Ascend/driver/lib64", "/usr/lib64"} <= set(shell["LD_LIBRARY_PATH"].split(":")), shell
        assert "libjemalloc.so.2" in shell.get("LD_PRELOAD", ""), shell
        matter = ({item.split("=", 1)[0] for item in image_env} | {"LD_LIBRARY_PATH", "LD_PRELOAD"}) - _SHELL_OWN
        differ = dict((name, (serving.get(name), shell.get(name))) for name in sorted(matter)
                      if serving.get(name) != shell.get(name))
        assert not differ, "serving process vs guide shell: %s" % differ
        for name in set(profile["environment"]) - matter:
            assert serving.get(name) == profile["environment"][name], name
        # No entrypoint override: the image's own ENTRYPOINT started the command.
        assert not info["HostConfig"].get("Entrypoint") and info["Config"]["Entrypoint"] == [
            "/usr/local/bin/entrypoint.sh"]


def test_rc_mode_daemons_run_as_their_users(host):
    """On the Atlas 200I Pro (RC mode) the image's entrypoint started slogd as HwHiAiUser and dmp_daemon
    as HwDmUser in the serving container; on the 300I DUO (EP mode) neither runs."""
    platform, instances = _expected(host)
    rc = get_profile(platform)["rc_mode"]
    for inst in instances:
        cid = _inspect(host, inst["name"])["Id"]
        procs = json.loads(host.check_output("docker exec %s python3 -c %s", cid, _DAEMONS))
        users = dict((line.split(":")[0], int(line.split(":")[2]))
                     for line in host.check_output("docker exec %s cat /etc/passwd", cid).splitlines())
        found = dict((daemon, sorted({p["uid"] for p in procs if daemon in p["argv"][:3]}))
                     for daemon in ("/var/slogd", "/var/dmp_daemon"))
        if rc:
            assert found == {"/var/slogd": [users["HwHiAiUser"]], "/var/dmp_daemon": [users["HwDmUser"]]}, procs
        else:
            assert found == {"/var/slogd": [], "/var/dmp_daemon": []}, procs
