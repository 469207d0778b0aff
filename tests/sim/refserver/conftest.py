"""Fixtures of the contract lane (``make contract``): the reference server and the stand-in, each started
once per session with the argv the collection plans, and the probes' observations of both."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import refserver  # noqa: E402
from probes import API_KEY  # noqa: E402
# The reference server's first start compiles its kernels (cached afterwards, VLLM_CACHE_ROOT).
START_TIMEOUT = float(os.environ.get("ASCEND_SIM_REFSERVER_START_TIMEOUT", "900"))


def pytest_configure(config):
    config.addinivalue_line("markers", "refserver: needs vLLM 0.23.0's CPU build (make contract builds it)")


def _start(kind, tmp: Path, started, api_key=API_KEY, extra_env=None, plan_extra=None):
    port = refserver.free_port()
    log = tmp / ("%s.log" % kind)
    if kind == "vllm":
        server = refserver.reference_server(log, port, api_key, plan_extra)
    else:
        server = refserver.standin_server(tmp / "standin", log, port, api_key, extra_env, plan_extra)
    server.start()
    started.append(server)  # stopped at the end even when it never gets ready
    server.wait_ready(START_TIMEOUT if kind == "vllm" else 60)
    return server


@pytest.fixture(scope="session")
def start_server(tmp_path_factory):
    """``start(kind, **kw)``: a new started server of that kind ("vllm" or "standin"), stopped at the end."""
    started = []

    def start(kind, **kw):
        return _start(kind, tmp_path_factory.mktemp(kind), started, **kw)
    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def shared_server(start_server):
    """``get(kind)``: the session's one server of that kind with the API key, for every test that leaves it
    running (the probes, the collection's code); started at the first use."""
    servers = {}

    def get(kind):
        # A test may end it (the SIGTERM probe is the reference server's last user): then a new one.
        if kind not in servers or servers[kind].proc.poll() is not None:
            servers[kind] = start_server(kind, api_key=API_KEY)
        return servers[kind]
    return get
