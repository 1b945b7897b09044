"""Shared test settings: hypothesis profiles sized for a 2-core CI machine, and a
heap frozen around each test so leak checks scan only what the test made."""

import gc

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")


@pytest.fixture(autouse=True)
def frozen_heap():
    """Move every object alive before the test out of the collector's sight.

    A test's `gc.collect()` and `gc.get_objects()` (the checks that no `Tagged`
    leaked) then walk only the objects made since it started, not the whole
    heap of pytest, hypothesis and every imported module; both are O(1) here.
    """
    gc.freeze()
    yield
    gc.unfreeze()

