"""HTTP test settings: hypothesis profiles for the fuzz tests.

``FUZZ_PROFILE=slow`` (or ``--slow`` if the root conftest defines that option) multiplies every
property's example count by ten. The profiles are registered under their own names and applied
per test (``settings(parent=...)``), never loaded globally, so other suites' hypothesis settings
(and hypothesis' own ``ci`` profile) are untouched.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

FUZZ_PROFILES = {"ci": "a207-http-fuzz-ci", "slow": "a207-http-fuzz-slow"}

_COMMON = dict(
    deadline=None,  # timing on shared CI cores is noisy; hangs are bounded by the driver instead
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    print_blob=True,
)
settings.register_profile(FUZZ_PROFILES["ci"], max_examples=100, **_COMMON)
settings.register_profile(FUZZ_PROFILES["slow"], max_examples=1000, **_COMMON)


def fuzz_profile() -> str:
    return "slow" if os.environ.get("FUZZ_PROFILE", "").strip().lower() == "slow" else "ci"


def fuzz_settings(examples: int) -> settings:
    """Settings for one property: ``examples`` in the CI profile, ten times that with ``slow``."""
    name = fuzz_profile()
    factor = 10 if name == "slow" else 1
    return settings(settings.get_profile(FUZZ_PROFILES[name]), max_examples=examples * factor)


def pytest_configure(config) -> None:
    if config.getoption("--slow", default=False):
        os.environ["FUZZ_PROFILE"] = "slow"
