"""The deployment guide's three `docker run` lines, verbatim, and a way to run them on a node.

Copied from the guide (shared/seed/000_de1b8cca3feb25fe.txt, section 4.1); a test checks the
copies against the guide whenever the guide is present. The only copy in the repository:
tests/unit/plugins/plugin_utils/test_platforms.py loads this file by path to check the platform
profiles against GUIDE_DOCKER_RUN. Test harness only.
"""
from __future__ import annotations

import shlex

GUIDE_DOCKER_RUN = {
    "atlas_300i_duo": r"""docker run --rm \
--name vllm-ascend \
--shm-size=1g \
--device /dev/davinci0 \
--device /dev/davinci1 \
--device /dev/davinci2 \
--device /dev/davinci3 \
--device /dev/davinci4 \
--device /dev/davinci5 \
--device /dev/davinci6 \
--device /dev/davinci7 \
--device /dev/davinci_manager \
--device /dev/devmm_svm \
--device /dev/hisi_hdc \
-v /usr/local/dcmi:/usr/local/dcmi \
-v /usr/local/bin/npu-smi:/usr/local/bin/npu-smi \
-v /usr/local/Ascend/driver/lib64/:/usr/local/Ascend/driver/lib64/ \
-v /usr/local/Ascend/driver/version.info:/usr/local/Ascend/driver/version.info \
-v /etc/ascend_install.info:/etc/ascend_install.info \
-v /root/.cache:/root/.cache \
-p 8080:8080 \
-it $IMAGE bash""",
    "atlas_200i_pro": r"""docker run --rm \
--privileged \
--name vllm-ascend \
--shm-size=10g \
--device=/dev/davinci0:/dev/davinci0 \
--device=/dev/davinci_manager \
--device=/dev/ascend_manager \
--device=/dev/user_config \
-v /etc/sys_version.conf:/etc/sys_version.conf \
-v /etc/ld.so.conf.d/mind_so.conf:/etc/ld.so.conf.d/mind_so.conf \
-v /etc/hdcBasic.cfg:/etc/hdcBasic.cfg \
-v /var/dmp_daemon:/var/dmp_daemon \
-v /usr/lib64/libmmpa.so:/usr/lib64/libmmpa.so \
-v /usr/lib64/libcrypto.so.1.1:/usr/lib64/libcrypto.so.1.1 \
-v /usr/local/sbin/npu-smi:/usr/local/sbin/npu-smi \
-v /usr/lib64/libstackcore.so:/usr/lib64/libstackcore.so \
-v /usr/lib/aarch64-linux-gnu/libyaml-0.so.2:/usr/lib64/libyaml-0.so.2 \
-v /etc/slog.conf:/etc/slog.conf \
-v /var/slogd:/var/slogd \
-v /usr/local/Ascend/driver/lib64:/usr/local/Ascend/driver/lib64 \
-v /usr/lib64/libtensorflow.so:/usr/lib64/libtensorflow.so \
-v /root/.cache:/root/.cache \
-p 8080:8080 \
-it $IMAGE bash""",
    "atlas_200i_pro_openeuler": r"""docker run --rm \
--privileged \
--name vllm-ascend \
--shm-size=10g \
--device=/dev/davinci0:/dev/davinci0 \
--device=/dev/davinci_manager \
--device=/dev/ascend_manager \
--device=/dev/user_config \
-v /etc/sys_version.conf:/etc/sys_version.conf \
-v /etc/ld.so.conf.d/mind_so.conf:/etc/ld.so.conf.d/mind_so.conf \
-v /etc/hdcBasic.cfg:/etc/hdcBasic.cfg \
-v /var/dmp_daemon:/var/dmp_daemon \
-v /usr/lib64/libsemanage.so.2:/usr/lib64/libsemanage.so.2 \
-v /usr/lib64/libmmpa.so:/usr/lib64/libmmpa.so \
-v /usr/lib64/libcrypto.so.1.1:/usr/lib64/libcrypto.so.1.1 \
-v /usr/lib64/libyaml-0.so.2.0.9:/usr/lib64/libyaml-0.so.2 \
-v /usr/local/sbin/npu-smi:/usr/local/sbin/npu-smi \
-v /usr/lib64/libstackcore.so:/usr/lib64/libstackcore.so \
-v /etc/slog.conf:/etc/slog.conf \
-v /var/slogd:/var/slogd \
-v /usr/local/Ascend/driver/lib64:/usr/local/Ascend/driver/lib64 \
-v /usr/lib64/libtensorflow.so:/usr/lib64/libtensorflow.so \
-v /root/.cache:/root/.cache \
-p 8080:8080 \
-it $IMAGE bash""",
}

# The image tag each line is used with in the guide (`export IMAGE=...`).
GUIDE_IMAGE_TAG = {
    "atlas_300i_duo": "v0.23.0-310p",
    "atlas_200i_pro": "v0.23.0-310p",
    "atlas_200i_pro_openeuler": "v0.23.0-310p-openeuler",
}

# The guide's launch command (section 5.1), with the host/port of its docker example.
GUIDE_SERVE = [
    "vllm", "serve", "Qwen/Qwen3.5-2B",
    "--host", "0.0.0.0",
    "--port", "8080",
    "--tensor-parallel-size", "1",
    "--served-model-name", "qwen3.5",
    "--max-num-seqs", "32",
    "--max-model-len", "16384",
    "--trust-remote-code",
    "--gpu-memory-utilization", "0.90",
    "--mamba-ssm-cache-dtype", "float16",
    "--dtype", "float16",
    "--speculative-config", '{"method": "qwen3_5_mtp","num_speculative_tokens":1}',
    "--compilation-config", '{"cudagraph_mode": "FULL_DECODE_ONLY", "cudagraph_capture_sizes": [2,4,8,16]}',
    "--additional-config", '{"ascend_compilation_config": {"enable_npugraph_ex": false}}',
]


def guide_flags(platform: str) -> list[str]:
    """The guide's `docker run` options for a platform, without `-it $IMAGE bash`."""
    words = shlex.split(GUIDE_DOCKER_RUN[platform].replace("\\\n", " "))
    assert words[:2] == ["docker", "run"] and words[-3:] == ["-it", "$IMAGE", "bash"], words
    return words[2:-3]


def docker_run_argv(platform: str, image: str, command: list[str] | None = None, detach: bool = True,
                    keep: bool = False, name: str | None = None, env: dict | None = None) -> list[str]:
    """`docker run` argv with the guide's exact flags; `-it ... bash` becomes `-d IMAGE bash -ic 'exec COMMAND'`.

    The guide types `vllm serve` into the interactive bash of `-it IMAGE bash`, which reads the
    image's /root/.bashrc (LD_LIBRARY_PATH, LD_PRELOAD: docs/image-contract.md); `bash -ic` is that
    shell without a terminal, and `exec` keeps the command as the container's main process.
    keep=True drops the guide's --rm so that a crashed container's logs can be read.
    """
    flags = guide_flags(platform)
    if keep:
        flags = [f for f in flags if f != "--rm"]
    if name:
        flags[flags.index("--name") + 1] = name
    extra = []
    for key, value in (env or {}).items():
        extra += ["-e", "%s=%s" % (key, value)]
    return ["docker", "run", *flags, *extra, *(["-d"] if detach else []), image, *interactive_shell(command or GUIDE_SERVE)]


def interactive_shell(command: list[str]) -> list[str]:
    """The guide's interactive shell running ``command``: bash reads ~/.bashrc, then execs it."""
    return ["bash", "-ic", "exec " + " ".join(shlex.quote(word) for word in command)]
