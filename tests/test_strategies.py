"""The strategies eval --strategy can name are the ones its help lists."""

from __future__ import annotations

import inspect
import re

from policy_assistant.cli import eval_cmd
from policy_assistant.evaluate.strategies import NAMED_STRATEGIES


def test_the_strategy_help_lists_every_named_strategy() -> None:
    source = inspect.getsource(eval_cmd)
    listed = re.search(r'"\((units, [^)]*)\)\."', source)
    assert listed is not None
    assert listed.group(1).split(", ") == list(NAMED_STRATEGIES)
