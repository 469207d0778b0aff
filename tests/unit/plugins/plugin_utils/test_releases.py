# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Release records: every fact sourced, completeness, the default and the choice of a record for a tag."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import releases
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.platforms import PLATFORMS

ROOT = Path(__file__).resolve().parents[4]


@pytest.mark.parametrize('name', releases.names())
def test_every_set_required_fact_names_its_source_and_every_missing_one_says_why(name):
    record = releases.RELEASES[name]
    for field in releases.REQUIRED:
        if field == 'vllm_ascend' and field not in record['sources']:
            continue  # the release's own name
        if record[field] is None:
            assert field in record['unverified'], field
        else:
            assert record['sources'].get(field), field
    assert all(isinstance(why, str) and why for why in record['unverified'].values())


@pytest.mark.parametrize('name', releases.names())
def test_every_record_names_a_tag_per_built_in_platform(name):
    record = releases.RELEASES[name]
    for platform, profile in PLATFORMS.items():
        assert record['images'][platform] == name + profile['image_tag_suffix']


def test_records_sort_by_release_with_candidates_first():
    assert releases.names()[0] == 'v0.23.0rc1'
    assert releases.names().index('v0.23.0rc1') < releases.names().index('v0.23.0') < releases.names().index(
        'v0.24.0rc1')
    assert releases.names()[-1] == 'v0.30.0'


def test_missing_lists_required_fields_not_read():
    assert releases.missing(releases.RELEASES['v0.23.0']) == []
    assert 'hdk' in releases.missing(releases.RELEASES['v0.24.0rc1'])
    assert set(releases.missing(releases.RELEASES['v0.30.0'])) >= {'vllm', 'cann', 'hdk', 'serve', 'container'}


def test_the_default_is_the_newest_complete_record():
    complete = [name for name in releases.names() if releases.complete(releases.RELEASES[name])]
    assert releases.default_release() == complete[-1] == 'v0.23.0'


def test_a_record_made_complete_becomes_the_default(monkeypatch):
    record = dict(releases.RELEASES['v0.23.0'], release='v0.99.0', unverified={})
    monkeypatch.setitem(releases.RELEASES, 'v0.99.0', record)
    assert releases.default_release() == 'v0.99.0'


def test_the_image_pull_tag_default_is_the_default_record():
    # roles/image_pull/defaults/main.yml and the records must agree on what runs by default.
    defaults = yaml.safe_load((ROOT / 'roles' / 'image_pull' / 'defaults' / 'main.yml').read_text())
    assert defaults['image_pull_tag'] == releases.default_release()


@pytest.mark.parametrize('tag,release', [('v0.23.0-310p', 'v0.23.0'), ('v0.23.0-310p-openeuler', 'v0.23.0'),
                                         ('v0.30.0-310p', 'v0.30.0'), ('v0.23.0rc1-310p', 'v0.23.0rc1')])
def test_a_recorded_tag_chooses_its_record(tag, release):
    chosen = releases.choose(tag)
    assert (chosen['release'], chosen['assumed'], chosen['problems']) == (release, False, [])
    assert chosen['not_checked'] == releases.not_checked(releases.RELEASES[release])


def test_a_tag_without_record_is_refused_naming_the_recorded_tags():
    chosen = releases.choose('v0.31.0-310p')
    assert chosen['release'] is None
    [problem] = chosen['problems']
    assert problem['variable'] == 'image_pull_tag' and 'v0.31.0-310p' in problem['msg']
    assert 'v0.23.0-310p' in problem['fix'] and 'image_pull_assume_release' in problem['fix']


def test_an_assumed_record_runs_the_tag_and_says_what_is_not_checked():
    chosen = releases.choose('v0.31.0-310p', 'v0.23.0')
    assert (chosen['release'], chosen['assumed'], chosen['problems']) == ('v0.23.0', True, [])
    assert 'v0.31.0-310p has no release record' in chosen['not_checked'][0]


def test_assuming_an_unknown_record_is_a_problem():
    chosen = releases.choose('v0.31.0-310p', 'v9.9.9')
    [problem] = chosen['problems']
    assert problem['variable'] == 'image_pull_assume_release' and 'v0.23.0' in problem['fix']


def test_newest_tutorial_lists_the_w8a8_310p_models_for_both_boards():
    models = releases.RELEASES['v0.30.0']['models']
    w8a8 = set('Qwen/Qwen3.5-%s-W8A8-310P' % size for size in ('2B', '4B', '9B'))
    for platform in PLATFORMS:
        assert w8a8 <= set(models[platform])
    assert 'models_checkpoints' in releases.RELEASES['v0.30.0']['unverified']


def test_get_returns_a_copy():
    record = releases.get('v0.23.0')
    record['images']['atlas_300i_duo'] = 'x'
    assert releases.RELEASES['v0.23.0']['images']['atlas_300i_duo'] == 'v0.23.0-310p'
    assert releases.get('v0.0.1') is None


def _short(value):
    return 'not read' if value in (None, '', [], {}) else str(value)


def _table_rows():
    """docs/versions.md's table of records (en and zh_CN show the same rows), newest first."""
    rows = []
    for name in reversed(releases.names()):
        record = releases.RELEASES[name]
        hdk = record.get('hdk') if 'hdk' not in record['unverified'] else None
        container = record.get('container') or {}
        shm = ' / '.join(_short((container.get(platform) or {}).get('shm_size'))
                         for platform in ('atlas_300i_duo', 'atlas_200i_pro'))
        models = record.get('models') or {}
        model_names = sorted(set(model for listed in models.values() for model in listed))
        complete = releases.complete(record)
        state = 'complete' if complete else 'incomplete (unverified: %s)' % ', '.join(releases.missing(record))
        rows.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            name + (' (default)' if complete and name == releases.default_release() else ''),
            ', '.join('`%s`' % tag for tag in sorted(set(record['images'].values()))),
            _short(record.get('vllm')), _short(record.get('cann')), _short(record.get('torch_npu')),
            ('%s (paired); compatible %s; incompatible %s' % (hdk['paired'], ', '.join(hdk['compatible']),
                                                              ', '.join(hdk['incompatible']))) if hdk else 'not read',
            shm, ', '.join(model.split('/')[-1] for model in model_names) or 'not read', state))
    return rows


@pytest.mark.parametrize('page', ['docs/versions.md', 'docs/zh_CN/versions.md'])
def test_the_versions_page_shows_every_record_as_the_records_say(page):
    text = (ROOT / page).read_text()
    rows = [line for line in text.splitlines() if line.startswith('| v0.') and '`v0.' in line.split('|')[2]]
    assert rows == _table_rows()


@pytest.mark.parametrize('name', releases.names())
def test_a_base_image_carries_the_records_cann_and_python(name):
    record = releases.RELEASES[name]
    for base in (record['base_images'] or {}).values():
        assert record['cann'] in base and 'py' + record['python'] in base
