"""A stand-in wheelhouse: vllm, vllm-ascend, triton-ascend and triton as real wheels (test harness only).

The source install method installs vLLM and vllm-ascend on the node from an operator's wheelhouse
(``pip install --no-index --find-links DIR vllm==X vllm-ascend==X``). These wheels are written with
``zipfile`` in the wheel format pip installs (PEP 427: ``*.dist-info/METADATA``, ``WHEEL``,
``entry_points.txt``, ``RECORD`` with sha256 digests), byte for byte the same on every build (fixed
timestamps), so the directory's hash names its content. Python stdlib only.

- ``vllm`` X: the package ``vllm`` (``__version__``) and the console script ``vllm``
  (``vllm.entrypoints.cli.main:main``, as the real wheel declares), which runs the stand-in server
  ``images/vllm-ascend/vllm`` (the same file the test image carries, copied in as
  ``vllm/_ascend_sim_server.py``) reporting version X and looking up libraries as a host's loader does.
- ``vllm-ascend`` X: the package ``vllm_ascend`` (``__version__``, the ``vllm.platform_plugins`` entry
  point), ``Requires-Dist: vllm==X`` and ``triton-ascend``.
- ``triton-ascend`` 3.2.0 (``triton/backends/ascend``, requires ``triton``) and ``triton`` 3.2.0
  (``triton``): what the Qwen3.5 dense tutorial (4.2) removes with ``pip uninstall -y triton-ascend triton``.
  While ``import triton`` works, the stand-in ``vllm serve`` fails like on a 310P (bishengir-compile).
"""
from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SERVER = ROOT / "images" / "vllm-ascend" / "vllm"
VLLM_VERSIONS = ("0.22.0", "0.23.0")
TRITON_VERSION = "3.2.0"
# 1980-01-01 is the earliest time a zip entry can hold: the same bytes on every build.
_DATE = (1980, 1, 1, 0, 0, 0)
GENERATOR = "ascend-sim-standin-wheels (1.0)"


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _dist_name(name: str) -> str:
    """The file-name form of a distribution name (PEP 427/503: runs of -_. become _)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def write_wheel(directory: Path, name: str, version: str, files: dict, requires=(), entry_points: str = "",
                summary: str = "") -> Path:
    """Write ``{name}-{version}-py3-none-any.whl`` holding ``files`` ({path: text or bytes}); return its path."""
    dist = _dist_name(name)
    info = "%s-%s.dist-info" % (dist, version)
    metadata = ["Metadata-Version: 2.1", "Name: %s" % name, "Version: %s" % version,
                "Summary: %s" % (summary or "ascend-sim stand-in for %s (test harness only)" % name),
                "Requires-Python: >=3.9"]
    metadata += ["Requires-Dist: %s" % req for req in requires]
    entries = dict(files)
    entries[info + "/METADATA"] = "\n".join(metadata) + "\n\n"
    entries[info + "/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: %s\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
                                % GENERATOR)
    if entry_points:
        entries[info + "/entry_points.txt"] = entry_points
    tops = sorted({path.split("/", 1)[0] for path in files if not path.startswith(info)})
    entries[info + "/top_level.txt"] = "".join(top + "\n" for top in tops)
    record_path = info + "/RECORD"
    target = Path(directory) / ("%s-%s-py3-none-any.whl" % (dist, version))
    record = []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as whl:
        for path in sorted(entries):
            data = entries[path].encode() if isinstance(entries[path], str) else entries[path]
            zinfo = zipfile.ZipInfo(path, date_time=_DATE)
            zinfo.external_attr = 0o644 << 16
            zinfo.compress_type = zipfile.ZIP_DEFLATED
            whl.writestr(zinfo, data)
            record.append("%s,%s,%d" % (path, _record_hash(data), len(data)))
        record.append("%s,," % record_path)
        zinfo = zipfile.ZipInfo(record_path, date_time=_DATE)
        zinfo.external_attr = 0o644 << 16
        zinfo.compress_type = zipfile.ZIP_DEFLATED
        whl.writestr(zinfo, "\n".join(record) + "\n")
    return target


CLI_MAIN = '''"""The `vllm` console script of the ascend-sim stand-in wheel (tests/sim/standin_wheels.py).

Runs the stand-in server (vllm/_ascend_sim_server.py, a copy of tests/sim/images/vllm-ascend/vllm) as
the vllm installed on a host: it reports this package's version and finds libraries like a host's loader.
"""
import vllm
from vllm import _ascend_sim_server as server


def main():
    server.VERSION = vllm.__version__
    server.HOST_INSTALL = True
    return server.main()
'''


def vllm_wheel(directory: Path, version: str) -> Path:
    init = ('"""ascend-sim stand-in for vLLM %s (test harness only)."""\n__version__ = "%s"\n'
            "__version_tuple__ = %r\n" % (version, version, tuple(int(x) for x in version.split("."))))
    files = {
        "vllm/__init__.py": init,
        "vllm/version.py": 'from vllm import __version__, __version_tuple__  # noqa: F401\n',
        "vllm/_ascend_sim_server.py": SERVER.read_bytes(),
        "vllm/entrypoints/__init__.py": "",
        "vllm/entrypoints/cli/__init__.py": "",
        "vllm/entrypoints/cli/main.py": CLI_MAIN,
    }
    return write_wheel(directory, "vllm", version, files,
                       entry_points="[console_scripts]\nvllm = vllm.entrypoints.cli.main:main\n")


def vllm_ascend_wheel(directory: Path, version: str) -> Path:
    files = {
        "vllm_ascend/__init__.py": (
            '"""ascend-sim stand-in for vllm-ascend %s (test harness only)."""\n'
            "from vllm_ascend._version import __version__, __version_tuple__  # noqa: F401\n\n\n"
            "def register():\n    return \"vllm_ascend.platform.NPUPlatform\"\n" % version),
        # What setuptools_scm and setup.py's gen_build_info write into the real package (a 310P build).
        "vllm_ascend/_version.py": '__version__ = version = "%s"\n__version_tuple__ = version_tuple = %r\n'
                                   % (version, tuple(int(x) for x in version.split("."))),
        "vllm_ascend/_build_info.py": "# Auto-generated file\n__device_type__ = '_310P'\n",
    }
    return write_wheel(directory, "vllm-ascend", version, files, requires=("vllm==%s" % version, "triton-ascend"),
                       entry_points="[vllm.platform_plugins]\nascend = vllm_ascend:register\n")


def triton_wheels(directory: Path, version: str = TRITON_VERSION) -> list:
    triton = write_wheel(directory, "triton", version, {
        "triton/__init__.py": '"""ascend-sim stand-in for triton (test harness only)."""\n__version__ = "%s"\n'
                              % version,
        "triton/backends/__init__.py": "",
    })
    ascend = write_wheel(directory, "triton-ascend", version, {
        "triton/backends/ascend/__init__.py": '"""ascend-sim stand-in for triton-ascend\'s Ascend backend."""\n'
                                              '__version__ = "%s"\n' % version,
    }, requires=("triton==%s" % version,))
    return [triton, ascend]


def build_wheelhouse(directory, versions=VLLM_VERSIONS) -> list:
    """Write the stand-in wheels into ``directory`` (created); return their paths."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    wheels = []
    for version in versions:
        wheels += [vllm_wheel(directory, version), vllm_ascend_wheel(directory, version)]
    wheels += triton_wheels(directory)
    return wheels


def inputs_hash() -> str:
    """What the wheelhouse is built from: this file and the stand-in server."""
    h = hashlib.sha256()
    for path in (Path(__file__).resolve(), SERVER):
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]
