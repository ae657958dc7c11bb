"""Session-wide log privacy audit (SPEC §5.5), loaded from tests/conftest.py via ``pytest_plugins``.

Every line any structlog print/write logger emits during the test session is captured (the line
still reaches its original stream), and lines of servers started in subprocesses are added with
``record_lines``. At the end of the session (of each xdist worker) the audit fails the run when

* a line is not a JSON object, has a key outside ``ALLOWED_KEYS``, or carries a value that is not
  a short category (a string of ``[A-Za-z0-9._:/+-]``, a number, a boolean or null); or
* a remembered secret — a bearer token, an argument text — occurs in any line.

What is remembered:

* explicitly: ``remember(token, text, ...)`` from tests and fixtures (tokens of servers started in
  subprocesses, texts sent over a socket);
* automatically: every token an in-process app is built with (``BearerGuard`` construction), the
  value of every fixture whose name contains ``token``, every string inside the arguments that
  reach ``Router.call`` in-process (and the keys and word values of its ``patient_facts``, searched
  in every line: they are category-shaped), every JWT that reaches ``JwtVerifier.verify`` with each
  of its claim values (subject, client id, issuer, audience, scopes, jti), and every line and quoted
  string of every policy file the reloader reads (SPEC §5.8: never file content in a log line).

Secrets too short or too plain to be told apart from a category (ASCII shorter than 8 characters)
are ignored. Because every logged value must consist of category characters only, a secret with
any other character (Chinese text, a space, a quote) cannot occur in a clean log; the substring
search is only needed for secrets made of category characters, such as tokens.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from typing import Any, Iterable

import pytest

ALLOWED_KEYS = frozenset(
    {"event", "request_id", "method", "tool", "duration_ms", "status", "outcome", "policy_version",
     "previous_policy_version", "error"}
)
_CATEGORY = re.compile(r"[A-Za-z0-9._:/+\-]*")
_MIN_ASCII = 8


def _as_text(secret: Any) -> str | None:
    if isinstance(secret, (bytes, bytearray)):
        try:
            return bytes(secret).decode("utf-8")
        except UnicodeDecodeError:
            return bytes(secret).decode("latin-1")
    if isinstance(secret, str):
        return secret
    return None


class LogAudit:
    """Captured lines and remembered secrets; ``problems()`` lists every violation found."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.plain: set[str] = set()  # secrets made of category characters only (tokens…)
        self.other: set[str] = set()  # secrets with at least one non-category character
        self._lock = threading.Lock()

    # -- what to look for --------------------------------------------------------------------

    def remember(self, *secrets: Any, plain: bool = True) -> None:
        """Remember secrets; with ``plain=False`` strings of category characters only are skipped
        (argument values such as role or tool names, which may legitimately equal a category)."""
        for secret in secrets:
            if isinstance(secret, (list, tuple, set, frozenset)):
                self.remember(*secret, plain=plain)
                continue
            if isinstance(secret, dict):
                self.remember(*secret.keys(), *secret.values(), plain=plain)
                continue
            text = _as_text(secret)
            if text is None:
                continue
            text = text.strip()
            if _CATEGORY.fullmatch(text):
                if plain and len(text) >= _MIN_ASCII:
                    with self._lock:
                        self.plain.add(text)
            elif len(text) >= (2 if not text.isascii() else _MIN_ASCII):
                with self._lock:
                    self.other.add(text)

    # -- what was logged ---------------------------------------------------------------------

    def record(self, line: Any) -> None:
        text = _as_text(line)
        if text is None:
            text = repr(line)
        with self._lock:
            self.lines.extend(part for part in text.splitlines() if part.strip())

    def record_lines(self, lines: Iterable[Any] | str | bytes) -> None:
        if isinstance(lines, (str, bytes, bytearray)):
            self.record(lines)
            return
        for line in lines:
            self.record(line)

    # -- the verdict -------------------------------------------------------------------------

    def problems(self, lines: list[str] | None = None) -> list[str]:
        lines = self.lines if lines is None else lines
        found: list[str] = []
        malformed: list[int] = []  # indexes of lines that failed the shape check
        for index, line in enumerate(lines):
            problem = _shape_problem(line)
            if problem:
                malformed.append(index)
                found.append(f"log line {index + 1}: {problem}")
        # A well-formed line holds allowed keys and category values only, so a secret with any
        # other character cannot be in it; category-character secrets (tokens) are searched in
        # every line, malformed or not.
        everything = "\n".join(lines)
        for secret in sorted(self.plain):
            if secret in everything:
                hits = [n + 1 for n, line in enumerate(lines) if secret in line]
                found.append(f"a remembered secret ({len(secret)} characters) occurs in log line(s) {hits[:5]}")
        if malformed:
            suspects = [lines[i] for i in malformed]
            for secret in sorted(self.other):
                escaped = _json_escaped(secret)
                hits = [malformed[k] + 1 for k, line in enumerate(suspects) if secret in line or escaped in line]
                if hits:
                    found.append(f"a remembered text ({len(secret)} characters) occurs in log line(s) {hits[:5]}")
        return found


def _shape_problem(line: str) -> str | None:
    try:
        record = json.loads(line)
    except ValueError:
        return f"not a JSON object ({len(line)} characters)"
    if not isinstance(record, dict):
        return "not a JSON object"
    extra = sorted(set(record) - ALLOWED_KEYS)
    if extra:
        # Key names are ours or a bug's; showing them helps and reveals no value.
        shown = [k if _CATEGORY.fullmatch(k) and len(k) <= 40 else "<odd key>" for k in extra]
        return f"keys outside the allowed set: {shown}"
    for key, value in record.items():
        if value is None or isinstance(value, (bool, int, float)):
            continue
        if isinstance(value, str) and len(value) <= 128 and _CATEGORY.fullmatch(value):
            continue
        return f"the value of {key!r} is not a category (type {type(value).__name__})"
    return None


def _json_escaped(text: str) -> str:
    return json.dumps(text)[1:-1]


AUDIT = LogAudit()


def remember(*secrets: Any) -> None:
    """Register tokens / texts that must never appear in any log line of this session."""
    AUDIT.remember(*secrets)


def record_lines(lines: Iterable[Any] | str | bytes) -> None:
    """Add log lines captured elsewhere (a server started in a subprocess) to the audit."""
    AUDIT.record_lines(lines)


def captured() -> list[str]:
    """A copy of the lines captured so far in this process."""
    return list(AUDIT.lines)


# -----------------------------------------------------------------------------------------------
# Capture: wrap structlog's output loggers, so every line is seen whatever stream a test chose.
# -----------------------------------------------------------------------------------------------

_PRINT_METHODS = ("msg", "log", "debug", "info", "warn", "warning", "fatal", "failure", "err", "error", "critical", "exception")
_installed = False


def _install_capture() -> None:
    global _installed
    if _installed:
        return
    import structlog

    for cls in (structlog.PrintLogger, structlog.WriteLogger, structlog.BytesLogger):
        original = cls.msg

        def capturing(self, message, _original=original):
            AUDIT.record(message)
            return _original(self, message)

        for name in _PRINT_METHODS:
            if hasattr(cls, name):
                setattr(cls, name, capturing)
    _installed = True


def _install_harvest() -> None:
    from app.http import guards
    from app.router import engine

    original_init = guards.BearerGuard.__init__

    def init(self, tokens, *args, **kwargs):
        try:
            remember(*list(tokens))
        except TypeError:
            pass
        return original_init(self, tokens, *args, **kwargs)

    guards.BearerGuard.__init__ = init

    original_call = engine.Router.call

    def call(self, tool, arguments, *args, **kwargs):
        if isinstance(arguments, dict):
            _harvest(arguments, depth=0)
        return original_call(self, tool, arguments, *args, **kwargs)

    engine.Router.call = call

    from app.http import verify as jwt_verify

    original_verify = jwt_verify.JwtVerifier.verify

    async def verify(self, token):
        remember(token)
        _harvest_claims(token)
        return await original_verify(self, token)

    jwt_verify.JwtVerifier.verify = verify

    from app.http import reload as policy_reload

    original_read = policy_reload.PolicyReloader._read

    def read(self):
        data, key = original_read(self)
        if data is not None:
            _harvest_policy_file(data)
        return data, key

    policy_reload.PolicyReloader._read = read


_QUOTED = re.compile(r'"([^"\\\n]{2,200})"')


def harvest_policy_file(data: bytes) -> None:
    """Remember a policy file's content: every non-blank line and every quoted string in it (a word
    list entry, a version). Public for the tests that write files a server in a subprocess reads."""
    text = data.decode("utf-8", "replace")
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            AUDIT.remember(line, plain=False)
        AUDIT.remember(*_QUOTED.findall(line), plain=False)


_harvest_policy_file = harvest_policy_file


def _harvest_claims(token: Any) -> None:
    """Every claim value of a JWT that reaches the verifier (subject, client id, jti…), read without
    verification: forged and expired tokens must not reach the log either."""
    import jwt

    try:
        claims = jwt.decode(token, options={"verify_signature": False})
    except Exception:  # noqa: BLE001 - a malformed token has no claims to remember
        return
    for name, value in claims.items():
        if name in ("iat", "nbf", "exp", "pad"):
            continue  # numbers, or the filler of the oversize row
        if isinstance(value, str):
            AUDIT.remember(value)
        elif isinstance(value, list):
            AUDIT.remember(*[v for v in value if isinstance(v, str)])


def _harvest(value: Any, depth: int) -> None:
    if depth > 20:
        return
    if isinstance(value, str):
        AUDIT.remember(value, plain=False)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key == "patient_facts":
                _harvest_facts(item)
            _harvest(key, depth + 1)
            _harvest(item, depth + 1)
    elif isinstance(value, list):
        for item in value[:100]:
            _harvest(item, depth + 1)


def _harvest_facts(facts: Any) -> None:
    """The patient facts of a call (SPEC §4.5 revision 3) never reach a log line or a metric: their
    keys and word values are category-shaped, so they are searched in every line (age_years,
    kidney_therapy, transplant…; a logged argument dict would hold them). Numbers and true / false
    are not searched: a duration or a status may equal them."""
    AUDIT.remember("patient_facts")
    if isinstance(facts, dict):
        for key, item in facts.items():
            AUDIT.remember(key)
            AUDIT.remember(item)


class _CurrentStdout:
    """A stream that writes to whatever ``sys.stdout`` is at the time (pytest swaps it)."""

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()


def pytest_configure(config: pytest.Config) -> None:
    from app.http.observe import configure_logging

    _install_capture()
    _install_harvest()
    # The production configuration (one JSON line per event), forwarded to the current stdout.
    configure_logging(_CurrentStdout())


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    result = yield
    if "token" in fixturedef.argname.lower():
        remember(result)
    return result


@pytest.fixture(scope="session", autouse=True)
def log_privacy_audit():
    """Fails the session (as a teardown error) if any captured log line breaks SPEC §5.5."""
    yield AUDIT
    problems = AUDIT.problems()
    if problems:
        shown = "\n".join(f"  - {p}" for p in problems[:50])
        more = f"\n  … and {len(problems) - 50} more" if len(problems) > 50 else ""
        pytest.fail(
            f"log privacy audit: {len(problems)} problem(s) in {len(AUDIT.lines)} captured log lines "
            f"({len(AUDIT.plain) + len(AUDIT.other)} secrets remembered):\n{shown}{more}",
            pytrace=False,
        )
