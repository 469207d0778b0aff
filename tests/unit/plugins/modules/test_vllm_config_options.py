# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Each vllm_config option once: the option table against its other views.

The table (plugin_utils/contracts/vllm_options.py) gives the argument spec; the module's
DOCUMENTATION and the vllm_serve role's scalar variables are checked against it
here, and unset options reach the planner unset, so a model's guide_defaults apply.
"""

import os

import pytest
import yaml

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts import planner, vllm_options
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts.models import GUIDE_DEFAULTS, MODELS
from ansible_collections.ascend.vllm.plugins.modules import vllm_config
from ansible_collections.ascend.vllm.plugins.action.vllm_config import ActionModule
from moduleargs import run_controller_action  # noqa: E402 pylint: disable=wrong-import-position

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..'))
ROLE = os.path.join(ROOT, 'roles', 'vllm_serve')


def run_module(args, monkeypatch):  # pylint: disable=unused-argument
    """vllm_config as a task runs it: its action plugin, on the controller."""
    return run_controller_action(ActionModule, 'ascend.vllm.vllm_config', args)


def _documented():
    return yaml.safe_load(vllm_config.DOCUMENTATION)['options']


OPTION_NAMES = [option.name for option in vllm_options.OPTIONS]


# ---------------------------------------------------------------- guide_defaults through the module

# Every guide default of the catalog changed, so an argspec default standing in for
# "not set" would show as a difference from plan().
OTHER_DEFAULTS = {'max_num_seqs': 8, 'gpu_memory_utilization': 0.8, 'served_model_name': 'acme',
                  'num_speculative_tokens': 0}


def _spec_with(defaults):
    spec = dict((key, value) for key, value in MODELS['Qwen/Qwen3.5-4B'].items() if key != 'guide_defaults')
    spec['guide_defaults'] = defaults
    return spec


@pytest.mark.parametrize('model,spec', [
    ('acme/Dense', _spec_with(OTHER_DEFAULTS)),
    ('Qwen/Qwen3.5-2B', {'guide_defaults': OTHER_DEFAULTS}),
    ('Qwen/Qwen3.5-9B', {'guide_defaults': {'max_num_seqs': 4}}),
], ids=['new model', 'catalog model', 'one field'])
def test_guide_defaults_through_the_module_equal_plan(model, spec, monkeypatch):
    request = {'platform': 'atlas_300i_duo', 'model': model, 'model_spec': spec, 'max_model_len': 8192}
    direct = planner.plan(request)
    through_module = run_module(request, monkeypatch)
    assert direct['violations'] == [] and through_module.get('failed') is None, through_module.get('msg')
    for key in ('argv', 'env', 'settings', 'memory', 'cudagraph_capture_sizes'):
        assert through_module[key] == direct[key], key
    expected = dict(GUIDE_DEFAULTS, **spec['guide_defaults'])
    settings = through_module['settings']
    for key in OTHER_DEFAULTS:
        assert settings[key] == expected[key], key


def test_the_catalog_guide_values_still_apply_when_nothing_is_set(monkeypatch):
    result = run_module({'platform': 'atlas_300i_duo', 'model': 'Qwen/Qwen3.5-2B', 'max_model_len': 16384},
                        monkeypatch)
    settings = result['settings']
    assert (settings['max_num_seqs'], settings['gpu_memory_utilization'], settings['served_model_name'],
            settings['num_speculative_tokens']) == (32, 0.9, 'qwen3.5', 1)


# ---------------------------------------------------------------- table <-> argspec, planner, docs

def test_planner_defaults_are_the_table():
    assert planner.DEFAULTS == vllm_options.defaults()
    assert sorted(planner.DEFAULTS) == sorted(OPTION_NAMES)


# max_model_len has a guide default too, but the user must set it: the planner reports it missing.
@pytest.mark.parametrize('option', sorted(set(GUIDE_DEFAULTS) - set(['max_model_len'])))
def test_options_with_a_model_guide_default_are_unset_in_the_argspec(option):
    spec = vllm_options.argument_spec()[option]
    assert spec.get('default') is None, spec
    assert option not in vllm_options.defaults() or vllm_options.defaults()[option] is None


def test_documentation_lists_the_table_options():
    assert sorted(_documented()) == sorted(OPTION_NAMES)


@pytest.mark.parametrize('option', vllm_options.OPTIONS, ids=lambda option: option.name)
def test_documentation_matches_the_table(option):
    doc = _documented().get(option.name)
    assert doc is not None, '%s is not documented' % option.name
    assert doc.get('type', 'str') == option.type
    assert doc.get('elements') == option.elements
    assert doc.get('default') == option.default
    assert bool(doc.get('required', False)) == option.required
    assert option.description and '\n' not in option.description


def test_instance_options():
    assert set(vllm_options.INSTANCE_OPTIONS) <= set(OPTION_NAMES)
    assert not set(vllm_options.INSTANCE_OPTIONS) & set(vllm_options.INSTANCE_KEYS)
    # Host-level options an instance may not set.
    for name in ('platform', 'host', 'port', 'image_tag', 'visible_chips', 'chip_free_memory_mb', 'var_prefix'):
        assert name not in vllm_options.INSTANCE_OPTIONS


# ---------------------------------------------------------------- table <-> the vllm_serve role

def _role_file(*parts):
    with open(os.path.join(ROLE, *parts)) as handle:
        return yaml.safe_load(handle)


@pytest.mark.parametrize('option', [option for option in vllm_options.OPTIONS if option.instance],
                         ids=lambda option: option.name)
def test_role_has_a_variable_of_the_table_type_for_each_instance_option(option):
    variable = 'vllm_serve_' + option.name
    defaults = _role_file('defaults', 'main.yml')
    assert variable in defaults, '%s missing from roles/vllm_serve/defaults/main.yml' % variable
    spec = _role_file('meta', 'argument_specs.yml')['argument_specs']['main']['options'].get(variable)
    assert spec is not None, '%s missing from roles/vllm_serve/meta/argument_specs.yml' % variable
    assert spec.get('type', 'str') == option.var_type, variable
    assert spec.get('elements') == option.var_elements, variable
    if option.var_type != 'raw' and option.type != 'raw':
        assert option.var_type == option.type, variable
