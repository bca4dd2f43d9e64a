"""The collector's thresholds during a read, and the caller's put back after it."""

from __future__ import annotations

import gc

import pytest

from policy_assistant.collector import READ_THRESHOLDS, fewer_collections


def test_thresholds_are_raised_in_the_block_and_put_back_after_it() -> None:
    before = gc.get_threshold()
    with fewer_collections():
        assert gc.get_threshold() == READ_THRESHOLDS != before
    assert gc.get_threshold() == before


def test_thresholds_are_put_back_when_the_block_raises() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), fewer_collections():
        raise RuntimeError("a read that fails")
    assert gc.get_threshold() == before
