# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""upgrade_step: the end of one instance's rolling upgrade -- put it back into the balancer, say what happened.

The documentation is the module's (plugins/modules/upgrade_step.py). What follows is decided on the
controller (plugin_utils/serve/_rolling.py upgrade_outcome); the only node work is
ascend.vllm.balancer_server setting the server ready again when the instance serves (new or
restored) after it was drained.
"""

from __future__ import annotations

import time

from ansible_collections.ascend.vllm.plugins.plugin_utils._controller_action import ControllerAction
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._instances import plain
from ansible_collections.ascend.vllm.plugins.plugin_utils.serve._rolling import upgrade_outcome
from ansible_collections.ascend.vllm.plugins.module_utils.serve._specs import UPGRADE_STEP


class ActionModule(ControllerAction):
    """Decide, put back when the instance serves again, and pass or fail with the step's message."""

    # The put-back runs ascend.vllm.balancer_server on the node.
    _requires_connection = True
    SPEC = UPGRADE_STEP

    def act(self, checked, task_vars):
        args = checked.validated_parameters
        # Wall-clock seconds the instance did not serve: from its stop (container_run_stopped_at) to now.
        seconds = None if args['stopped_at'] is None else time.time() - args['stopped_at']
        outcome = upgrade_outcome(plain(args['status']), plain(args['drained']), seconds, plain(args['restored']),
                                  task_vars.get('inventory_hostname', '?'), args['left'], self._task.check_mode,
                                  args['name'], args['error'], args['service'])
        out = dict(outcome, changed=False)
        if outcome['put_back'] and args['backend'] and args['server']:
            back = self._execute_module(module_name='ascend.vllm.balancer_server', task_vars=task_vars,
                                        module_args={'socket': args['socket'], 'backend': args['backend'],
                                                     'server': args['server'], 'state': 'ready'})
            if back.get('failed'):
                return dict(out, failed=True, msg='%s Putting it back into the balancer failed: %s'
                            % (outcome['msg'] or '%s serves again.' % args['name'], back.get('msg')))
            out['changed'] = bool(back.get('changed'))
        if outcome['failed']:
            out['failed'] = True
        elif outcome['msg']:
            # Shown at every verbosity, as ansible.builtin.debug's message is.
            out['_ansible_verbose_always'] = True
        return out
