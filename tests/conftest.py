"""Shared test settings: hypothesis profiles sized for a 2-core CI machine, and a
heap frozen around each test so leak checks scan only what the test made."""

import gc
import os
import sys

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


# CPython 3.12.1 crashes (SIGSEGV) while finalizing the interpreter after this suite
# has passed: reproduced by the real-code suite's `functools.singledispatch` case run
# together with tests/test_ad_nested_takeapart.py, each harmless alone; root cause not
# found yet (an open issue). On 3.12 the test process therefore ends without
# interpreter finalization, keeping pytest's own exit status; other Pythons finalize.
_SKIP_FINALIZATION = sys.version_info[:2] == (3, 12)


def pytest_sessionfinish(session, exitstatus):
    session.config._ad_exit_status = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    if _SKIP_FINALIZATION and hasattr(config, "_ad_exit_status"):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(config._ad_exit_status)
