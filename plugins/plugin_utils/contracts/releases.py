# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Release records: one record per vllm-ascend release that ships 310P images.

A record holds what the collection needs to run that release: its image tag per platform, the
versions inside (vLLM, vllm-ascend, CANN, NNAL, torch, torch_npu, Python), the Ascend HDK
releases its CANN supports (and those it rules out), what each platform's container needs for
it beyond the platform profile (the shm size the tutorial gives), the "Qwen3.5-Dense" tutorial's
serve defaults at that release, the models that tutorial lists per platform, and its known 310P
issues that can be detected before start. Every fact names the source it was read from
(``sources``, keyed by field); a required field that could not be read is in ``unverified``
(field -> why) and its value is None. A record is complete when no required field is unverified.

The plan runs the newest complete record unless ``image_pull_tag`` names another
(docs/versions.md shows these records). Plain data and pure functions, standard library only:
the simulated-node harness (tests/sim) loads this file by path to build a test image per record.

Sources, as read (quoted by their letter):

[VA:<path>@<ref>] the file at that tag or branch of the vllm-ascend repository (GitHub
       vllm-project/vllm-ascend; stored snapshot whose newest commit on main is 182b75ea84 of
       2026-08-22; its tags in range: v0.23.0rc1, v0.23.0, v0.24.0rc1, v0.25.1rc1).
[WF]   .github/workflows/schedule_image_build_and_push.yaml and _schedule_image_build.yaml at
       each tag above: 310P Ubuntu -> Dockerfile.310p, suffix "310p"; 310P openEuler ->
       Dockerfile.310p.openEuler, suffix "310p-openeuler"; on a tag push the image is
       quay.io/ascend/vllm-ascend:<tag>-<suffix>.
[RN910] [RN911] [RN920] the CANN 9.1.0 / 9.1.1 / 9.2.0 release notes' "CANN and Ascend HDK
       Version Compatibility" tables (versions.py quotes them): row 9.1.X.
[DOC:<path>] a docs.vllm.ai page of vllm-ascend as stored in the docs search corpus (only the
       opening part of each page could be read).
[README] the vllm-project/vllm-ascend repository page (docs corpus): "[2026/10] We released the
       new official version v0.30.0!".
[GPUSTACK] gpustack/runner release v0.1.32.post2 (a third party): "CANN 9.2 vLLM 0.30.0 now ships
       the final vllm-ascend 0.30.0 plugin (CANN 9.2.1)". Not an upstream source: quoted, not relied on.
"""

from __future__ import annotations

import copy
import re
from typing import Any, Dict, List, Optional, Tuple

# The fields a record needs to be complete (the plan uses each of them).
REQUIRED = ('images', 'vllm', 'vllm_ascend', 'cann', 'hdk', 'container', 'serve', 'models')
PLATFORM_SUFFIX = {'atlas_300i_duo': '-310p', 'atlas_200i_pro': '-310p',
                   'atlas_200i_pro_openeuler': '-310p-openeuler'}
FP16_MODELS = ['Qwen/Qwen3.5-2B', 'Qwen/Qwen3.5-4B', 'Qwen/Qwen3.5-9B']
W8A8_310P_MODELS = ['Qwen/Qwen3.5-2B-W8A8-310P', 'Qwen/Qwen3.5-4B-W8A8-310P', 'Qwen/Qwen3.5-9B-W8A8-310P']

# The image's own environment (Dockerfile.310p and .openEuler, ENV line), identical at every tag read.
_IMAGE_ENV = {'SOC_VERSION': 'ascend310p1', 'TASK_QUEUE_ENABLE': '1', 'OMP_NUM_THREADS': '1'}
_IMAGE_ENV_SOURCE = ('[VA:Dockerfile.310p@%s], [VA:Dockerfile.310p.openEuler@%s]: ARG SOC_VERSION="ascend310p1", '
                     'ENV SOC_VERSION=$SOC_VERSION TASK_QUEUE_ENABLE=1 OMP_NUM_THREADS=1')

# CANN 9.1.X: the HDK releases its release notes list ([RN910] [RN911] [RN920]), oldest first.
_HDK_91X = {'paired': '26.0.RC1',
            'compatible': ['25.2.X', '25.3.X', '25.5.X', '25.7.RC1', '26.0.RC1', '26.1.0', '26.1.1', '26.2.RC1'],
            'incompatible': ['25.0.X']}
_HDK_91X_SOURCE = ('[RN910] CANN 9.1.0 Release Notes, CANN and Ascend HDK Version Compatibility, row 9.1.X '
                   '(25.0.X N; 25.2.X .. 26.1.0 Y) and mapping table (9.1.0 <-> 26.0.RC1); [RN911] (26.1.1 Y); '
                   '[RN920] (26.2.RC1 Y)')

_DEVICES_MOUNTS_NOTE = ('devices and mounts: those of the platform profile (platforms.py), which the tutorial at '
                        'this release gives unchanged')

# The tutorial's vllm serve line (Qwen3.5-Dense, section "Online deployment"), field by field.
_SERVE_V0230 = {
    'host': '127.0.0.1', 'port': 1025, 'tensor_parallel_size': 1, 'served_model_name': 'qwen3.5',
    'max_num_seqs': 32, 'max_model_len': 16384, 'gpu_memory_utilization': 0.9,
    'dtype': 'float16', 'mamba_ssm_cache_dtype': 'float16',
    'speculative_config': {'method': 'qwen3_5_mtp', 'num_speculative_tokens': 1},
    'cudagraph_mode': 'FULL_DECODE_ONLY', 'cudagraph_capture_sizes': [2, 4, 8, 16],
    'enable_npugraph_ex': False, 'container_port_mapping': '8080:8080',
}
_SERVE_MKDOCS = dict(_SERVE_V0230, cudagraph_capture_sizes=[1, 2, 4, 8, 16])

# Known 310P issues that can be seen before start: (id, releases, what, check, source).
_ISSUE_14335 = {
    'id': 'vllm-ascend#14335',
    'what': 'Qwen3.5-2B-W8A8 GSM8K accuracy on 310P can differ by more than 1% from the floating-point model',
    'check': 'w8a8_accuracy', 'severity': 'warning',
    'source': '[VA:docs/source/user_guide/release_notes.md@v0.23.0] Known Issues; issue #14335 (open, 2026-08-15)'}
_ISSUE_14339 = {
    'id': 'vllm-ascend#14339',
    'what': ('on the Atlas 300I DUO v0.23.0 image, Qwen3.5 with MTP and prefix caching together gives wrong '
             'accuracy'),
    'check': 'mtp_prefix_caching', 'severity': 'warning',
    'source': 'issue vllm-project/vllm-ascend#14339 (open; issues corpus)'}
_ISSUE_TP_CAPTURE = {
    'id': 'doc:tp-capture-sizes',
    'what': 'with tensor parallelism at most two capture sizes (hardware event-id limit)',
    'check': 'tp_capture_sizes', 'severity': 'error',
    'source': 'the Qwen3.5-Dense tutorial at every release read ("allow at most two capture sizes")'}
_ISSUE_NPUGRAPH = {
    'id': 'doc:npugraph-ex',
    'what': 'Atlas 300I DUO and Atlas 200I Pro do not support enable_npugraph_ex',
    'check': 'npugraph_ex', 'severity': 'error',
    'source': '[VA:docs/source/quick_start.md@v0.23.0]'}
_ISSUE_DTYPE = {
    'id': 'doc:float16',
    'what': 'these devices only support float16 (--dtype and --mamba-ssm-cache-dtype)',
    'check': 'float16', 'severity': 'error',
    'source': 'the Qwen3.5-Dense tutorial at every release read'}


def _tags(release: str) -> Dict[str, str]:
    return dict((platform, release + suffix) for platform, suffix in PLATFORM_SUFFIX.items())


def _record(release: str, **fields: Any) -> Dict[str, Any]:
    record = {
        'release': release, 'images': _tags(release), 'vllm': None, 'vllm_ascend': release.lstrip('v'),
        'cann': None, 'nnal': None, 'torch': None, 'torch_npu': None, 'python': None, 'base_images': None,
        'hdk': None, 'container': None, 'serve': None, 'models': None, 'issues': [],
        'sources': {}, 'unverified': {},
    }
    record.update(fields)
    return record


def _container(duo_shm: str, pro_shm: str = '10g') -> Dict[str, Dict[str, Any]]:
    return {'atlas_300i_duo': {'shm_size': duo_shm, 'env': dict(_IMAGE_ENV)},
            'atlas_200i_pro': {'shm_size': pro_shm, 'env': dict(_IMAGE_ENV)},
            'atlas_200i_pro_openeuler': {'shm_size': pro_shm, 'env': dict(_IMAGE_ENV)}}


def _both(models: List[str]) -> Dict[str, List[str]]:
    return dict((platform, list(models)) for platform in PLATFORM_SUFFIX)


RELEASES: Dict[str, Dict[str, Any]] = {}

RELEASES['v0.23.0rc1'] = _record(
    'v0.23.0rc1', vllm='0.23.0', cann='9.1.0-beta.1', nnal=None, torch='2.10.0', torch_npu='2.10.0.post2',
    python='3.12',
    base_images={'ubuntu': 'quay.io/ascend/cann:9.1.0-beta.1-310p-ubuntu22.04-py3.12',
                 'openeuler': 'quay.io/ascend/cann:9.1.0-beta.1-310p-openeuler24.03-py3.12'},
    container=_container('1g'), serve=dict(_SERVE_MKDOCS), models=_both(FP16_MODELS),
    issues=[_ISSUE_TP_CAPTURE, _ISSUE_DTYPE, _ISSUE_NPUGRAPH],
    sources={
        'images': ('[WF]@v0.23.0rc1; [VA:docs/source/tutorials/models/Qwen3.5-Dense.md@v0.23.0rc1]: "use '
                   'vllm-ascend:v0.23.0rc1-310p"'),
        'vllm': '[VA:Dockerfile.310p@v0.23.0rc1] ARG VLLM_TAG=v0.23.0; .github/vllm-release-tag.commit v0.23.0',
        'cann': '[VA:Dockerfile.310p@v0.23.0rc1] FROM quay.io/ascend/cann:9.1.0-beta.1-310p-...',
        'torch_npu': '[VA:requirements.txt@v0.23.0rc1] torch==2.10.0, torch-npu==2.10.0.post2',
        'python': '[VA:Dockerfile.310p@v0.23.0rc1] base image tag ...-py3.12',
        'container': ('[VA:docs/source/tutorials/models/Qwen3.5-Dense.md@v0.23.0rc1]: 300I DUO --shm-size=1g, '
                      '200I Pro --shm-size=10g; ' + _DEVICES_MOUNTS_NOTE + '; env ' + _IMAGE_ENV_SOURCE
                      % ('v0.23.0rc1', 'v0.23.0rc1')),
        'serve': '[VA:docs/source/tutorials/models/Qwen3.5-Dense.md@v0.23.0rc1] vllm serve line',
        'models': '[VA:docs/source/tutorials/models/Qwen3.5-Dense.md@v0.23.0rc1] model table (FP16 only)',
    },
    unverified={
        'hdk': ('the installation page at v0.23.0rc1 names CANN 9.0.1 (HDK: "refer to CANN 9.0.1") while '
                'Dockerfile.310p uses CANN 9.1.0-beta.1; no HDK compatibility list of 9.1.0-beta.1 was read'),
        'nnal': 'NNAL comes from the CANN base image, whose own Dockerfile was not read',
    })

RELEASES['v0.23.0'] = _record(
    'v0.23.0', vllm='0.23.0', cann='9.1.0', nnal='9.1.0', torch='2.10.0', torch_npu='2.10.0.post4', python='3.12',
    base_images={'ubuntu': 'quay.io/ascend/cann:9.1.0-310p-ubuntu22.04-py3.12',
                 'openeuler': 'quay.io/ascend/cann:9.1.0-310p-openeuler24.03-py3.12'},
    hdk=copy.deepcopy(_HDK_91X), container=_container('1g'), serve=dict(_SERVE_V0230), models=_both(FP16_MODELS),
    issues=[_ISSUE_14335, _ISSUE_14339, _ISSUE_TP_CAPTURE, _ISSUE_DTYPE, _ISSUE_NPUGRAPH],
    sources={
        'images': ('[WF]@v0.23.0; the releases/v0.23.0 tutorial (#14338): "use vllm-ascend:v0.23.0-310p ... the '
                   'matching -310p-openeuler image"'),
        'vllm': '[VA:Dockerfile.310p@v0.23.0] ARG VLLM_TAG=v0.23.0',
        'cann': ('[VA:Dockerfile.310p@v0.23.0] FROM quay.io/ascend/cann:9.1.0-310p-...; '
                 '[VA:docs/source/installation.md@v0.23.0] Atlas 300I DUO: CANN == 9.1.0, NNAL == 9.1.0'),
        'torch_npu': ('[VA:requirements.txt@v0.23.0] torch==2.10.0, torch-npu==2.10.0.post4; installation.md '
                      'TorchNPU == 2.10.0.post4'),
        'python': '[VA:Dockerfile.310p@v0.23.0] base image tag ...-py3.12; installation.md Python >= 3.10, < 3.13',
        'hdk': _HDK_91X_SOURCE + '; [VA:docs/source/installation.md@v0.23.0] points to the CANN 9.1.0 Release Notes',
        'container': ('[VA:docs/source/tutorials/models/Qwen3.5-Dense.md@v0.23.0]: 300I DUO --shm-size=1g, 200I Pro '
                      '--shm-size=10g; ' + _DEVICES_MOUNTS_NOTE + '; env ' + _IMAGE_ENV_SOURCE
                      % ('v0.23.0', 'v0.23.0')),
        'serve': ('[VA:docs/source/tutorials/models/Qwen3.5-Dense.md@v0.23.0] vllm serve line (capture sizes '
                  '[2,4,8,16] with the MTP formula note)'),
        'models': '[VA:docs/source/tutorials/models/Qwen3.5-Dense.md@v0.23.0] model table (FP16 only)',
    },
    unverified={
        'images_pushed': 'that quay.io holds the tags was not read (no registry data)',
        'hdk_per_product': ('the release notes\' compatibility table is not per product: no page read names the '
                            '310P in it'),
    })

for _release, _vllm, _ref in (('v0.24.0rc1', '0.24.0', 'v0.24.0rc1'), ('v0.25.1rc1', '0.25.1', 'v0.25.1rc1')):
    RELEASES[_release] = _record(
        _release, vllm=_vllm, cann='9.1.0-beta.1', nnal='9.1.0-beta.1', torch='2.10.0', torch_npu='2.10.0.post2',
        python='3.12',
        base_images={'ubuntu': 'quay.io/ascend/cann:9.1.0-beta.1-310p-ubuntu22.04-py3.12',
                     'openeuler': 'quay.io/ascend/cann:9.1.0-beta.1-310p-openeuler24.03-py3.12'},
        container=_container('10g'), serve=dict(_SERVE_MKDOCS), models=_both(FP16_MODELS),
        issues=[_ISSUE_TP_CAPTURE, _ISSUE_DTYPE, _ISSUE_NPUGRAPH],
        sources={
            'images': '[WF]@%s (tag pattern; the tutorial at this tag renders a stale tag)' % _ref,
            'vllm': '[VA:Dockerfile.310p@%s] ARG VLLM_TAG' % _ref,
            'cann': ('[VA:Dockerfile.310p@%s] FROM quay.io/ascend/cann:9.1.0-beta.1-310p-...; '
                     '[VA:docs/source/installation.md@%s] Atlas inference products: CANN == 9.1.0-beta.1, '
                     'NNAL == 9.1.0-beta.1, torch-npu == 2.10.0.post2' % (_ref, _ref)),
            'container': ('[VA:docs/source/tutorials/models/Qwen3.5-Dense.md@%s]: 300I DUO --shm-size=10g, 200I Pro '
                          '--shm-size=10g; ' % _ref + _DEVICES_MOUNTS_NOTE + '; env '
                          + _IMAGE_ENV_SOURCE % (_ref, _ref)),
            'serve': '[VA:docs/source/tutorials/models/Qwen3.5-Dense.md@%s] vllm serve line' % _ref,
            'models': '[VA:docs/source/tutorials/models/Qwen3.5-Dense.md@%s] model table (FP16 only)' % _ref,
        },
        unverified={
            'hdk': ('CANN 9.1.0-beta.1: its HDK compatibility list was not read (the installation page only links '
                    'the CANN 9.1.0-beta.1 documentation)'),
            'images_pushed': 'that quay.io holds the tags was not read (no registry data)',
        })
RELEASES['v0.24.0rc1']['sources']['vllm'] = '[VA:Dockerfile.310p@v0.24.0rc1] ARG VLLM_TAG=v0.24.0'
RELEASES['v0.25.1rc1']['sources']['vllm'] = '[VA:Dockerfile.310p@v0.25.1rc1] ARG VLLM_TAG=v0.25.1'

RELEASES['v0.26.0rc1'] = _record(
    'v0.26.0rc1', vllm='0.26.0', cann='9.1.0', nnal='9.1.0', torch='2.10.0', torch_npu='2.10.0.post4', python='3.12',
    base_images={'ubuntu': 'quay.io/ascend/cann:9.1.0-310p-ubuntu22.04-py3.12',
                 'openeuler': 'quay.io/ascend/cann:9.1.0-310p-openeuler24.03-py3.12'},
    hdk=copy.deepcopy(_HDK_91X), container=_container('10g'), serve=dict(_SERVE_MKDOCS), models=_both(FP16_MODELS),
    issues=[_ISSUE_TP_CAPTURE, _ISSUE_DTYPE, _ISSUE_NPUGRAPH],
    sources={
        'images': ('issue vllm-project/vllm-ascend#14766 "[Feedback]: v0.26.0rc1 Release Feedback": docker pull '
                   'quay.io/ascend/vllm-ascend:v0.26.0rc1; [WF]@releases/v0.26.0rc (suffixes 310p, 310p-openeuler)'),
        'vllm': '[VA:Dockerfile.310p@releases/v0.26.0rc] ARG VLLM_TAG=v0.26.0 (branch head 2026-08-22, not the tag)',
        'cann': ('[DOC:en/v0.26.0rc1/installation.html] Atlas inference products: CANN == 9.1.0, NNAL == 9.1.0, '
                 'torch-npu == 2.10.0.post4, torch == 2.10.0, "triton / triton-ascend Not supported, Uninstalled in '
                 'Dockerfile.310p"'),
        'python': ('[VA:Dockerfile.310p@releases/v0.26.0rc] FROM ${CANN_QUAY_URL}:${CANN_VERSION}-310p-${BASE_OS}-py3.12; '
                   '[DOC:en/v0.26.0rc1/installation.html] Python >= 3.10, < 3.13'),
        'hdk': (_HDK_91X_SOURCE + '; [DOC:en/v0.26.0rc1/installation.html] "Ascend HDK: Refer to the documentation '
                'CANN 9.1.0"'),
        'container': ('[VA:docs/source/tutorials/models/Qwen3.5-Dense.md@releases/v0.26.0rc]: 300I DUO and 200I Pro '
                      '--shm-size=10g; ' + _DEVICES_MOUNTS_NOTE),
        'serve': '[VA:docs/source/tutorials/models/Qwen3.5-Dense.md@releases/v0.26.0rc] vllm serve line',
        'models': '[VA:docs/source/tutorials/models/Qwen3.5-Dense.md@releases/v0.26.0rc] model table (FP16 only)',
    },
    unverified={
        'images': ('the v0.26.0rc1 tag is not in the stored snapshot; that its -310p images were built and pushed was '
                   'not read (only the feedback issue\'s docker pull of the A2 image)'),
        'vllm': 'read at the releases/v0.26.0rc branch head of 2026-08-22, not at the tag',
        'container': 'read at the releases/v0.26.0rc branch head, not at the tag',
        'serve': 'read at the releases/v0.26.0rc branch head, not at the tag',
        'models': 'read at the releases/v0.26.0rc branch head, not at the tag',
    })

RELEASES['v0.30.0'] = _record(
    'v0.30.0', vllm=None, cann=None, python=None,
    container={'atlas_300i_duo': {'shm_size': '10g', 'env': dict(_IMAGE_ENV)}},
    models=_both(FP16_MODELS + W8A8_310P_MODELS),
    sources={
        'images': ('[DOC:zh-cn/latest/tutorials/models/Qwen3.5-Dense.html] "export IMAGE=m.daocloud.io/quay.io/ascend/'
                   'vllm-ascend:v0.30.0-310p"; "对于 openEuler 上的 Atlas 200I Pro,请使用对应的 -310p-openeuler 镜像"'),
        'vllm_ascend': '[README] "[2026/10] We released the new official version v0.30.0!"',
        'container': '[DOC:zh-cn/latest/tutorials/models/Qwen3.5-Dense.html] 300I DUO docker run: --shm-size=10g',
        'models': ('[DOC:zh-cn/latest/tutorials/models/Qwen3.5-Dense.html] 3.1 model table: Qwen3.5-2B/4B/9B FP16 and '
                   'Qwen3.5-2B/4B/9B-W8A8-310P INT8, each "Atlas 300I DUO 或 Atlas 200I Pro"; the ModelScope ids '
                   '(www.modelscope.cn/models/Qwen/Qwen3.5-2B-W8A8-310P, -4B-, -9B-) as the review of vllm-ascend PR '
                   '#14943 shows the table\'s download links (issues corpus)'),
    },
    unverified={
        'vllm': ('no Dockerfile.310p at v0.30.0 was read (the stored snapshot ends before the tag); [GPUSTACK], a '
                 'third party, pairs it with vLLM 0.30.0'),
        'cann': 'the v0.30.0 installation page was not readable; [GPUSTACK], a third party, names CANN 9.2.1',
        'hdk': 'no HDK list for the v0.30.0 CANN was read (the issue names HDK 26.2.RC1; not found in a readable source)',
        'container': ('only the 300I DUO tab\'s opening lines of the newest tutorial were readable (shm 10g); the '
                      '200I Pro tabs were not'),
        'serve': ('the newest tutorial\'s vllm serve line was not readable (reviews of PR #14943 discuss port 8080 and '
                  'other capture sizes; their merged text was not read)'),
        'torch_npu': 'not read', 'python': 'not read', 'nnal': 'not read',
        'images_200i_pro': ('the 200I Pro tabs of the newest tutorial were not readable: its v0.30.0-310p tag follows '
                            'the 300I DUO line and the tag pattern of every earlier release'),
        'models_checkpoints': ('the W8A8-310P checkpoints\' quant_model_description.json and model cards were not '
                               'readable: their quantization and weight sizes are not in the model catalog'),
    })

_RELEASE_RE = re.compile(r'^v(\d+)\.(\d+)\.(\d+)(?:rc(\d+))?$')


def release_key(release: str) -> Tuple[int, int, int, float]:
    """Sort key: v0.23.0rc1 < v0.23.0 < v0.24.0rc1."""
    match = _RELEASE_RE.match(release)
    if not match:
        raise ValueError('release %r is not vX.Y.Z[rcN]' % (release,))
    major, minor, patch, rc = match.groups()
    return (int(major), int(minor), int(patch), float(rc) if rc is not None else float('inf'))


def names() -> List[str]:
    """The recorded releases, oldest first."""
    return sorted(RELEASES, key=release_key)


def missing(record: Dict[str, Any]) -> List[str]:
    """The required fields of a record that could not be read (its value is None or it is listed unverified)."""
    return [field for field in REQUIRED if record.get(field) is None or field in record.get('unverified', {})]


def complete(record: Dict[str, Any]) -> bool:
    return not missing(record)


def default_release() -> str:
    """The newest complete record: what the plan runs when image_pull_tag is not set."""
    found = [name for name in names() if complete(RELEASES[name])]
    if not found:
        raise ValueError('no release record is complete')
    return found[-1]


def get(release: Any) -> Optional[Dict[str, Any]]:
    """A copy of the record of a release ("v0.23.0"), or None."""
    record = RELEASES.get(str(release)) if release is not None else None
    return copy.deepcopy(record) if record is not None else None


def release_of_tag(tag: Any) -> Optional[str]:
    """The release whose images include this tag ("v0.23.0-310p-openeuler" -> "v0.23.0"), or None."""
    text = str(tag or '')
    for name in names():
        if text in RELEASES[name]['images'].values():
            return name
    return None


def recorded_tags() -> List[str]:
    """Every image tag of every record, oldest record first."""
    out: List[str] = []
    for name in names():
        for tag in RELEASES[name]['images'].values():
            if tag not in out:
                out.append(tag)
    return out


def not_checked(record: Dict[str, Any]) -> List[str]:
    """What the plan cannot check for this record: one line per unverified field, with why."""
    return ['%s (%s)' % (field, why) for field, why in sorted(record.get('unverified', {}).items())]


def choose(tag: Any, assume: Any = '') -> Dict[str, Any]:
    """Which record an image tag runs under.

    Returns {release, record, assumed, problems, not_checked}: the tag's own record; else, with
    ``assume`` (image_pull_assume_release) naming a record, that record, assumed, and what is not
    checked; else a problem naming the tags that have a record. ``assume`` naming no record is
    a problem too.
    """
    tag = str(tag or '')
    own = release_of_tag(tag)
    assume = str(assume or '')
    problems: List[Dict[str, str]] = []
    if assume and assume not in RELEASES:
        problems.append({'check': 'release', 'variable': 'image_pull_assume_release',
                         'msg': 'image_pull_assume_release=%s names no release record' % assume,
                         'fix': 'set image_pull_assume_release to one of %s, or "" (docs/versions.md)'
                                % ', '.join(names())})
        return {'release': None, 'record': None, 'assumed': False, 'problems': problems, 'not_checked': []}
    if own is not None:
        record = get(own)
        return {'release': own, 'record': record, 'assumed': False, 'problems': problems,
                'not_checked': not_checked(record)}
    if assume:
        record = get(assume)
        lines = ['image %s has no release record: every fact of %s (versions, HDK, container line, serve defaults, '
                 'models, vLLM flags) is assumed, not read for it' % (tag, assume)] + not_checked(record)
        return {'release': assume, 'record': record, 'assumed': True, 'problems': problems, 'not_checked': lines}
    problems.append({'check': 'release', 'variable': 'image_pull_tag',
                     'msg': 'image tag %s has no release record, so nothing about it (driver, CANN, container line, '
                            'models, vLLM flags) can be checked' % (tag or '""'),
                     'fix': 'set image_pull_tag to a recorded release (%s; tags %s), or set '
                            'image_pull_assume_release to the record to assume for it (docs/versions.md)'
                            % (', '.join(names()), ', '.join(recorded_tags()))})
    return {'release': None, 'record': None, 'assumed': False, 'problems': problems, 'not_checked': []}


def hdk_needed(record: Dict[str, Any]) -> str:
    """The HDK release to install for a record: the one paired with its CANN, '' when not read."""
    return ((record or {}).get('hdk') or {}).get('paired') or ''


def _short(value: Any) -> str:
    return 'not read' if value in (None, '', [], {}) else str(value)


def table_rows() -> List[str]:
    """docs/versions.md's table of records (en and zh_CN show the same rows), newest first."""
    rows = []
    for name in reversed(names()):
        record = RELEASES[name]
        hdk = record.get('hdk') if 'hdk' not in record['unverified'] else None
        container = record.get('container') or {}
        shm = ' / '.join('%s' % _short((container.get(platform) or {}).get('shm_size'))
                         for platform in ('atlas_300i_duo', 'atlas_200i_pro'))
        models = record.get('models') or {}
        model_names = sorted(set(model for listed in models.values() for model in listed))
        state = 'complete' if complete(record) else 'incomplete (unverified: %s)' % ', '.join(missing(record))
        rows.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            name + (' (default)' if complete(record) and name == default_release() else ''),
            ', '.join('`%s`' % tag for tag in sorted(set(record['images'].values()))),
            _short(record.get('vllm')), _short(record.get('cann')), _short(record.get('torch_npu')),
            ('%s (paired); compatible %s; incompatible %s' % (hdk['paired'], ', '.join(hdk['compatible']),
                                                              ', '.join(hdk['incompatible']))) if hdk else 'not read',
            shm, ', '.join(model.split('/')[-1] for model in model_names) or 'not read', state))
    return rows
