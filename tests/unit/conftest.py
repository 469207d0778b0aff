# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Make ``ansible_collections.ascend.vllm`` importable under plain pytest.

ansible-test runs unit tests from inside an ``ansible_collections/ascend/vllm``
tree; a plain ``pytest tests/unit`` from the repository root instead relies on
the link ``.ansible/collections/ansible_collections/ascend/vllm`` -> repository
root that ``make setup`` creates (the same path ansible.cfg gives Ansible).

Also gives the unit tests the real npu-smi captures (fixtures ``capture`` and
``capture_dirs``), read from the one copy in the repository.
"""

import os
import sys

import pytest

_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_COLLECTIONS = os.path.join(_REPO_ROOT, '.ansible', 'collections')

if os.path.isdir(os.path.join(_COLLECTIONS, 'ansible_collections')) and _COLLECTIONS not in sys.path:
    sys.path.insert(0, _COLLECTIONS)

# The property tests (hypothesis): `make units` runs them with a fixed seed (derandomize:
# the same examples on every machine), then once more with a random seed it prints
# (ASCEND_HYPOTHESIS_PROFILE=ascend-random, --hypothesis-seed); a failure prints the
# example and the blob that reproduces it.
try:
    from hypothesis import settings as _hypothesis_settings
except ImportError:  # pragma: no cover - the core venvs without hypothesis skip nothing else
    pass
else:
    _hypothesis_settings.register_profile('ascend-fixed', derandomize=True, print_blob=True)
    _hypothesis_settings.register_profile('ascend-random', print_blob=True)
    _hypothesis_settings.load_profile(os.environ.get('ASCEND_HYPOTHESIS_PROFILE', 'ascend-fixed'))


# The real npu-smi captures are kept once in the repository, in the npu_facts integration
# target (a target can read only its own directory); the unit tests read them from there.
CAPTURES_DIR = os.path.join(_REPO_ROOT, 'tests', 'integration', 'targets', 'npu_facts', 'files')
# Their originals: the project's shared fixtures, next to the repository (../shared).
SHARED_CAPTURES_DIR = os.path.join(os.path.dirname(_REPO_ROOT), 'shared', 'fixtures', 'npu-smi')


def read_capture(name):
    """The text of the capture called ``name`` (a file name in CAPTURES_DIR)."""
    with open(os.path.join(CAPTURES_DIR, name)) as handle:
        return handle.read()


@pytest.fixture
def capture():
    """``capture(name)``: the text of a real capture in tests/integration/targets/npu_facts/files/."""
    return read_capture


@pytest.fixture
def capture_dirs():
    """``(in-repo directory, shared originals' directory or None when absent)``.

    ASCEND_VLLM_FIXTURES names the originals' directory when they are not at ../shared.
    """
    for candidate in (os.environ.get('ASCEND_VLLM_FIXTURES', ''), SHARED_CAPTURES_DIR):
        if candidate and os.path.isfile(os.path.join(candidate, 'SOURCES.md')):
            return CAPTURES_DIR, candidate
    return CAPTURES_DIR, None
