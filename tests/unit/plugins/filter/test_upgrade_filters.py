"""The thin filters over _rolling.py."""
from ansible_collections.ascend.vllm.plugins.filter.upgrade_outcome import FilterModule as Outcome
from ansible_collections.ascend.vllm.plugins.filter.upgrade_steps import FilterModule as Steps


def test_upgrade_steps_filter():
    steps = Steps().filters()['upgrade_steps']
    plan = [{'name': 'a', 'container_name': 'x'}]
    assert steps(plan, [], {})['fresh'] == plan
    assert steps(plan)['roll'][0]['rolling']['backend'] is None


def test_upgrade_outcome_filter():
    outcome = Outcome().filters()['upgrade_outcome']
    assert outcome({'state': 'ready'}, {'drain': True})['put_back']
    assert outcome({'state': 'failed'})['failed']
