"""Settings for the whole suite."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

# No Hypothesis example may fail for taking long: the suite runs on shared 2-core machines, where
# a 200 ms deadline failed tests under load that passed on a rerun. Speed is checked by the
# benchmark scripts in benchmarks/, never by timed tests.
settings.register_profile("treasure", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("treasure")
