# SPDX-License-Identifier: Apache-2.0
# Copyright: contributors to the ascend.vllm collection
"""Which hosts a run targets, judged before any play runs on them: never a silent run that does nothing.

Every play of the collection targets ``__ascend_vllm_targets`` (playbooks/vars/targets.yml): the
platform groups the inventory has and the group ``ascend_vllm``, or ``ascend_vllm_hosts``. An inventory
whose hosts sit in a group that only looks like a platform group (``atlas_300i_duo_prod``,
``Atlas_300I_DUO``, ``atlas300iduo``) and do not set ``ascend_vllm_platform`` is matched by none of them,
and Ansible would print ``skipping: no hosts matched`` and exit 0. ``targets_problems`` names that case
(a failure) and every look-alike group whose hosts the run leaves out (a warning when other hosts
are served). Pure: the ``ascend.vllm.hosts_check`` action hands it the inventory's groups and the hosts
Ansible's own pattern matching gave.
"""

import difflib
import re
from typing import Any, Dict, Iterable, List, Mapping, Optional

from ansible_collections.ascend.vllm.plugins.module_utils._problem import problem

# Groups every inventory has, and the collection's own.
_OWN_GROUPS = ('all', 'ungrouped', 'ascend_vllm', 'scanned_by_ascend_vllm')
# How close a group's letters and digits must be to a platform's to be taken for a misspelt one.
LOOKALIKE_CUTOFF = 0.85


def _letters(name: str) -> str:
    return re.sub(r'[^0-9a-z]', '', name.lower())


def closest_platform(group: str, platforms: Iterable[str]) -> Optional[str]:
    """The platform group ``group`` looks like (the same letters and digits, or them with more around them,
    or nearly the same spelling), or None. A platform group itself looks like nothing."""
    platforms = sorted(platforms)
    if group in platforms or group in _OWN_GROUPS:
        return None
    mine = _letters(group)
    if not mine:
        return None
    best, best_score = None, 0.0
    for platform in platforms:
        theirs = _letters(platform)
        if mine == theirs:
            score = 2.0
        elif theirs in mine:
            # atlas_300i_duo_prod, prod_atlas_300i_duo: the longer platform name that fits wins
            # (atlas_200i_pro_openeuler_x is the openEuler one's).
            score = 1.0 + len(theirs) / 1000.0
        else:
            score = difflib.SequenceMatcher(None, mine, theirs).ratio()
            if score < LOOKALIKE_CUTOFF:
                continue
        if score > best_score:
            best, best_score = platform, score
    return best


def targets_problems(groups: Mapping[str, Any], platforms: Iterable[str], pattern: str, targeted: Iterable[str],
                     given: bool = False, unlimited: Optional[Iterable[str]] = None) -> Dict[str, List[Dict[str, str]]]:
    """``{'problems': [...], 'warnings': [...], 'lookalikes': [...]}`` of the hosts a run targets: the
    look-alike groups whose hosts are left out are warnings when the run targets hosts, problems when not.

    ``groups``: the inventory's groups and their hosts (Ansible's ``groups``); ``platforms``: the platform
    groups; ``pattern``: what the plays target; ``targeted``: the hosts that pattern matches (with the
    run's ``--limit``); ``given``: the user gave the pattern (``ascend_vllm_hosts``); ``unlimited``: the hosts
    it matches without the ``--limit`` (a look-alike group's hosts outside the limit are left out by the
    user's choice, not by the group's name), by default ``targeted``.
    """
    platforms = sorted(platforms)
    targeted = set(targeted or ())
    unlimited = targeted if unlimited is None else set(unlimited)
    left_out = []
    for group in sorted(groups):
        platform = closest_platform(group, platforms)
        hosts = [] if platform is None else sorted(set(groups.get(group) or ()) - unlimited)
        if hosts:
            shown = ', '.join(hosts[:5]) + (' and %d more' % (len(hosts) - 5) if len(hosts) > 5 else '')
            left_out.append(problem(
                'hosts', 'the group %s looks like the platform group %s, but is not one: its hosts %s are in no '
                'platform group and do not set ascend_vllm_platform, so no play of ascend.vllm runs on them'
                % (group, platform, shown),
                'rename the group %s to %s, or make it a child of %s (children: {%s: {}} under %s), or set '
                'ascend_vllm_platform: %s in group_vars/%s.yml' % (group, platform, platform, group, platform, platform,
                                                                   group)))
    if targeted:
        return {'problems': [], 'warnings': left_out, 'lookalikes': left_out}
    where = ('the inventory has no host' if not groups.get('all') else
             'the inventory\'s groups are %s' % ', '.join(sorted(name for name in groups if name != 'all')))
    if given:
        fix = ('set ascend_vllm_hosts to a pattern that matches hosts of the inventory (a platform group, '
               'ascend_vllm, or hosts that set ascend_vllm_platform), or leave it out')
    else:
        fix = ('put the hosts in a platform group (%s), or set ascend_vllm_platform for them (host_vars, or '
               'group_vars of their group), or name them with -e ascend_vllm_hosts=PATTERN' % ', '.join(platforms))
    nothing = problem('hosts', 'this run matches none of the collection\'s hosts: the plays target %s (%s), and %s'
                      % (pattern, 'ascend_vllm_hosts' if given else 'the platform groups %s and the group ascend_vllm'
                         % ', '.join(platforms), where), fix)
    return {'problems': [nothing] + left_out, 'warnings': [], 'lookalikes': left_out}
