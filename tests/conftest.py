"""Settings for the whole suite."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

# No Hypothesis example may fail for taking long: the suite runs on shared 2-core machines, where
# a 200 ms deadline failed tests under load that passed on a rerun. Speed is checked by the
# benchmark scripts in benchmarks/, never by timed tests.
settings.register_profile("treasure", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("treasure")


@pytest.fixture
def fresh_agent_pool():
    """No agent process kept from another test before this one, none left after it (a module's
    tests take it with `pytestmark = pytest.mark.usefixtures("fresh_agent_pool")`)."""
    from treasure_cli.sandbox import process as agent_process

    agent_process.close_all()
    yield
    agent_process.close_all()
