"""The uvicorn and httptools internals app/http/protocol.py relies on, checked one by one.

The protocol subclasses uvicorn's private ``HttpToolsProtocol``: an upgrade that renames a method,
changes a signature, stops reading ``self.app`` per request or changes how httptools reports an
Upgrade would silently undo a limit. Each row here names one such assumption; the behaviour itself
is tested over a real socket in test_hostile_clients.py. pyproject.toml pins the versions tested.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.metadata
import inspect
import re
import signal
import textwrap
import tomllib
from pathlib import Path

import httptools
import pytest
import uvicorn
from packaging.requirements import Requirement
from uvicorn.protocols.http.httptools_impl import (
    HttpToolsProtocol,
    RequestResponseCycle,
)
from uvicorn.server import ServerState

from app.http.observe import Observer
from app.http.protocol import BoundedHttpToolsProtocol, ConnectionLimits, _CycleTransport, protocol_class

ROOT = Path(__file__).resolve().parents[2]

# method → the parameter names (after self) our overrides and calls assume
SIGNATURES = {
    "__init__": ["config", "server_state", "app_state", "_loop"],
    "connection_made": ["transport"],
    "connection_lost": ["exc"],
    "data_received": ["data"],
    "on_message_begin": [],
    "on_url": ["url"],
    "on_header": ["name", "value"],
    "on_headers_complete": [],
    "on_body": ["body"],
    "on_message_complete": [],
    "on_response_complete": [],
    "shutdown": [],
    "_unset_keepalive_if_required": [],
    "_should_upgrade": [],
}


@pytest.mark.parametrize("package", ["uvicorn", "httptools"])
def test_the_installed_version_is_in_the_pinned_range(package):
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (spec,) = [Requirement(d) for d in dependencies if Requirement(d).name == package]
    assert spec.specifier.contains(importlib.metadata.version(package)), (package, str(spec.specifier))


@pytest.mark.parametrize("method", list(SIGNATURES))
def test_overridden_and_called_methods_keep_their_signatures(method):
    function = getattr(HttpToolsProtocol, method)
    parameters = list(inspect.signature(function).parameters)
    assert parameters[0] == "self" and parameters[1:] == SIGNATURES[method]


@pytest.mark.parametrize(("method", "marker", "why"), [
    ("on_headers_complete", "app = self.app", "the in-flight check swaps self.app per request"),
    ("on_headers_complete", "self.limit_concurrency is not None", "setting it to None turns uvicorn's socket count off"),
    ("on_headers_complete", "self.tasks", "requests in flight are server_state.tasks"),
    ("on_header", "self.headers.append", "trailers reach scope['headers'] through on_header"),
    ("on_message_complete", "self.cycle.more_body = False", "the end of the body the app waits for"),
    ("on_message_complete", "self.cycle.message_event.set()", "an Upgrade's skipped body is re-opened by clearing it"),
    ("on_message_begin", "self.scope = {", "a new message replaces self.scope: how trailers are told apart"),
    ("on_url", "self.url += url", "the request target is checked as self.url"),
    ("data_received", "self.parser.feed_data(data)", "data_received is replaced wholesale"),
    ("on_response_complete", "self.transport.is_closing()", "a lingering transport is not closing: the override stops there"),
    ("on_headers_complete", "transport=self.transport", "the cycle gets the transport; the protocol swaps in _CycleTransport"),
    ("on_body", "self.flow.pause_reading()", "a body waiting for the app pauses reading; a linger resumes it"),
], ids=lambda v: v if len(v) < 40 else None)
def test_uvicorn_code_paths_the_protocol_depends_on(method, marker, why):
    assert marker in inspect.getsource(getattr(HttpToolsProtocol, method)), why


# uvicorn method bodies app/http/protocol.py duplicates inline (hot path: once per header field)
INLINED = {
    "on_header": ('name = name.lower()\nif name == b"expect" and value.lower() == b"100-continue":\n'
                  '    self.expect_100_continue = True\nself.headers.append((name, value))'),
}


@pytest.mark.parametrize("method", list(INLINED))
def test_uvicorn_bodies_duplicated_inline_are_unchanged(method):
    source = textwrap.dedent(inspect.getsource(getattr(HttpToolsProtocol, method)))
    body = textwrap.dedent(source.split("\n", 1)[1]).strip()
    assert body == INLINED[method]


def test_a_protocol_instance_has_the_attributes_we_use():
    async def build():
        config = uvicorn.Config(app=lambda scope, receive, send: None,
                                http=protocol_class(ConnectionLimits(), Observer()), ws="none", lifespan="off")
        config.load()
        assert issubclass(config.http_protocol_class, BoundedHttpToolsProtocol)  # Config(http=<class>) is honoured
        return config.http_protocol_class(config=config, server_state=ServerState(), app_state={}, _loop=asyncio.get_running_loop())

    protocol = asyncio.run(build())
    for name in ("app", "served_app", "loop", "parser", "tasks", "server_state", "cycle", "headers", "transport"):
        assert hasattr(protocol, name), name
    assert protocol.limit_concurrency is None and protocol.app is protocol.served_app
    assert isinstance(protocol.tasks, set)
    assert "keep_alive" in inspect.signature(RequestResponseCycle).parameters
    assert {"response_complete", "keep_alive", "disconnected", "more_body", "message_event", "scope"} <= _cycle_attributes()


def test_the_cycle_uses_only_the_transport_methods_the_lingering_close_wraps():
    """_CycleTransport gives a request's cycle ``write``, ``is_closing`` and a lingering ``close``;
    a cycle that called anything else on its transport would fail on every request."""
    used = set(re.findall(r"self\.transport\.(\w+)", inspect.getsource(RequestResponseCycle)))
    assert used == set(_CycleTransport.__slots__)


def _cycle_attributes() -> set[str]:
    source = inspect.getsource(RequestResponseCycle.__init__)
    return {part.split(" ")[0].split("=")[0] for part in source.split("self.")[1:]}


class _Recorder:
    def __init__(self):
        self.events = []

    def on_header(self, name, value):
        self.events.append(("header", name))

    def on_headers_complete(self):
        self.events.append(("headers_complete",))

    def on_body(self, body):
        self.events.append(("body", body))

    def on_message_complete(self):
        self.events.append(("complete",))


def test_httptools_skips_an_upgrade_requests_body_and_reports_where_it_starts():
    """What _BodySink and data_received assume: on an Upgrade head httptools delivers no body,
    completes the message at once and raises HttpParserUpgrade with the offset of the next byte."""
    head = b"POST /mcp HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: h2c\r\nContent-Length: 4\r\n\r\n"
    recorder = _Recorder()
    parser = httptools.HttpRequestParser(recorder)
    with pytest.raises(httptools.HttpParserUpgrade) as raised:
        parser.feed_data(head + b"body")
    assert raised.value.args[0] == len(head)
    assert parser.should_upgrade()
    assert not [e for e in recorder.events if e[0] == "body"] and recorder.events[-1] == ("complete",)


def test_httptools_reports_trailers_through_on_header_after_the_head():
    """Why on_header must ignore fields once the head is complete."""
    recorder = _Recorder()
    httptools.HttpRequestParser(recorder).feed_data(
        b"POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nbody\r\n0\r\nAuthorization: x\r\n\r\n")
    after_head = recorder.events[recorder.events.index(("headers_complete",)):]
    assert ("header", b"Authorization") in after_head


def test_a_callback_exception_surfaces_as_a_parser_error():
    """_stop raises inside on_url / on_header; feed_data must turn that into an HttpParserError."""
    class Refusing(_Recorder):
        def on_header(self, name, value):
            raise RuntimeError("refused")

    with pytest.raises(httptools.HttpParserError):
        httptools.HttpRequestParser(Refusing()).feed_data(b"GET / HTTP/1.1\r\nA: b\r\nC: d\r\n\r\n")


def test_the_server_signal_hooks_we_extend():
    # Read from uvicorn's source, not the attribute: importing sse_starlette (the mcp SDK, in the
    # test session only) replaces Server.handle_exit with a wrapper of its own.
    tree = ast.parse(inspect.getsource(uvicorn.server))
    (server,) = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Server"]
    (handle_exit,) = [node for node in server.body if isinstance(node, ast.FunctionDef) and node.name == "handle_exit"]
    assert [arg.arg for arg in handle_exit.args.args] == ["self", "sig", "frame"]
    assert "HANDLED_SIGNALS" in inspect.getsource(uvicorn.Server.capture_signals)
    assert signal.SIGHUP not in uvicorn.server.HANDLED_SIGNALS  # else GracefulServer would be redundant
