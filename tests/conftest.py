"""Shared fixtures. Tokens are generated at run time; nothing secret is written in a test."""

from __future__ import annotations

pytest_plugins = ["tests.privacy_plugin"]

import secrets
from datetime import date

import pytest

from app.router import Limits, Router, load_policy

TODAY = date(2026, 11, 30)


@pytest.fixture(scope="session")
def policy():
    return load_policy()


@pytest.fixture(scope="session")
def router(policy):
    return Router(policy, Limits(), today=lambda: TODAY)


@pytest.fixture
def token() -> str:
    return secrets.token_urlsafe(32)


@pytest.fixture(autouse=True, scope="session")
def _check_built_results():
    """Every result the router builds without validation is validated here too (app/router/built.py)."""
    from app.router import built

    built.CHECK = True
    yield
    built.CHECK = False
