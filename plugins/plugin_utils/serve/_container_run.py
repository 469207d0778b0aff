# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""The container_run role's container as data (its inputs' contract: module_utils/serve/_container_run.py), what stops
it before the node changes, the docker_container arguments and how a result or a refusal is shown without
the environment's secrets.

Pure functions; plugins/action/container_ensure.py runs the modules in order (the cache
directory, the image's env, the existing and kept containers, the keep decision of
plugin_utils/serve/_keep.py, the probe, drain, stop, rename, the real call, the restore on a refusal).
The spec itself (devices, mounts, env, labels) is contracts/_container_spec.py's.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._boolean import is_true
from ansible_collections.ascend.vllm.plugins.module_utils._redact import MASKED, redact, redact_text
from ansible_collections.ascend.vllm.plugins.plugin_utils.contracts._container_spec import container_spec, label_problems

# Sets and dicts compared strictly: removing a device, mount, label or variable re-creates too.
COMPARISONS = {'env': 'strict', 'labels': 'strict', 'devices': 'strict', 'mounts': 'strict',
               'published_ports': 'strict', 'log_options': 'strict'}

MISSING_FIX = ('container_run needs container_run_profile (the `profile` returned by ascend.vllm.vllm_config), '
               'container_run_image (image_pull sets image_pull_image_ref), container_run_command (vllm_config\'s '
               '`argv`) and at least one chip in container_run_chips. Run it through the vllm_serve role, '
               'which passes all four.')


def missing_inputs(inputs: Dict[str, Any]) -> List[str]:
    """The inputs a started container needs and lacks, each as the variable and its value."""
    profile = inputs.get('container_run_profile') if isinstance(inputs.get('container_run_profile'), dict) else {}
    lacks = [key for key in ('chip_device_template', 'shm_size') if key not in profile]
    out = ['container_run_profile has no %s' % ' and no '.join(lacks)] if lacks else []
    return out + ['%s=%s' % (name, json.dumps(inputs.get(name)))
                  for name in ('container_run_image', 'container_run_command', 'container_run_chips') if not inputs.get(name)]


def input_problem(inputs: Dict[str, Any]) -> str:
    """What stops a started container before the node changes: the user's extra labels (Docker's key
    grammar, no reserved namespace, no secret), the inputs it lacks, a spec that cannot be built; '' when none."""
    problems = label_problems(inputs.get('container_run_labels'))
    missing = missing_inputs(inputs)
    if missing:
        problems.append('%s: %s' % (', '.join(missing), MISSING_FIX))
    if problems:
        return '; '.join(problems)
    try:
        container_spec(inputs['container_run_profile'], dict(inputs, container_run_image_env=[]))
    except ValueError as exc:
        return str(exc)
    return ''


def given_image_facts(inputs: Dict[str, Any]) -> Optional[Tuple[List[Any], str]]:
    """The image's own ``Config.Env`` and ``Architecture`` as a preflight read them (``container_run_image_config``),
    when they are of the image the container runs (its ``image`` is ``container_run_image``); else None."""
    given = inputs.get('container_run_image_config')
    if not isinstance(given, dict) or not given.get('image') or given.get('image') != inputs.get('container_run_image'):
        return None
    return list(given.get('env') or []), str(given.get('architecture') or '')


def image_facts(info: Any) -> Tuple[List[Any], str]:
    """The image's own ``Config.Env`` and ``Architecture`` from docker_image_info ([] and '' without the image)."""
    images = (info or {}).get('images') if isinstance(info, dict) else None
    image = images[0] if isinstance(images, list) and images and isinstance(images[0], dict) else {}
    return list((image.get('Config') or {}).get('Env') or []), str(image.get('Architecture') or '')


def restarting(existing: Any, info: Any) -> bool:
    """Whether the container is in Docker's restart back-off (vLLM crashing on every start), from
    preflight's view (``container_run_existing``) or else docker_container_info's: docker_container then
    restarts it, so that the readiness wait watches a fresh start."""
    if existing is not None:
        return is_true(existing.get('restarting', False)) if isinstance(existing, dict) else False
    container = (info or {}).get('container') if isinstance(info, dict) else None
    return is_true(((container or {}).get('State') or {}).get('Restarting', False))


def docker_args(inputs: Dict[str, Any], spec: Dict[str, Any], restart: bool) -> Dict[str, Any]:
    """community.docker.docker_container's arguments for the container (the probe's and the real call's).

    docker_container re-creates the container when the spec differs (new model, TP, chips, image, env, ...)
    and leaves it alone otherwise; the image's own env and labels are accounted for by the spec.
    """
    args = {
        'name': inputs['container_run_name'],
        'image': inputs['container_run_image'],
        'pull': inputs['container_run_pull'],
        # The same image under another mirror's name is the same container.
        'image_name_mismatch': 'ignore',
        'command': list(inputs['container_run_command']),
        'command_handling': 'correct',
        'state': 'started',
        'recreate': is_true(inputs.get('container_run_recreate')),
        'restart': bool(restart),
        'restart_policy': inputs['container_run_restart_policy'],
        'stop_timeout': inputs['container_run_stop_timeout'],
        'log_driver': 'json-file',
        'log_options': {'max-size': str(inputs['container_run_log_max_size']),
                        'max-file': str(inputs['container_run_log_max_file'])},
        'comparisons': dict(COMPARISONS),
    }
    args.update((key, spec[key]) for key in ('devices', 'mounts', 'shm_size', 'privileged', 'published_ports', 'env', 'labels'))
    return args


def mask(text: Any, secrets: Any) -> str:
    """A message with every secret value (the spec's ``secret_values``) replaced by MASKED, then any
    ``NAME=value`` of a secret name the values missed (a value too short to search for)."""
    return redact_text(text, secrets, MASKED)


def clean(result: Any, secrets: Any) -> Dict[str, Any]:
    """A module's result as the role returns it: without its invocation (the arguments, the env among
    them) and Ansible's internal keys, every secret value and secret-named value redacted."""
    if not isinstance(result, dict):
        return {}
    kept = dict((key, value) for key, value in result.items()
                if key != 'invocation' and not str(key).startswith('_ansible'))
    return redact(kept, secrets)


def refusal(name: str, result: Any, secrets: Any, restored: Any = None) -> str:
    """The message of a docker_container refusal, the Engine's or community.docker's own words, secrets
    masked; ``restored``: the restore's failure message, '' when the kept container serves again, None when
    nothing was kept."""
    msg = (result or {}).get('msg') if isinstance(result, dict) else None
    text = 'docker_container refused the container %s: %s' % (name, msg if msg is not None else 'no message')
    if restored == '':
        text += '. The previous container %s serves again, unchanged.' % name
    elif restored is not None:
        text += '. Putting the previous container back as %s failed too: %s' % (name, restored)
    return mask(text, secrets)
