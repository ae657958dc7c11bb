"""Command line: ``decide`` and ``policy check`` for policy authors, ``serve`` and ``probe`` for operators.

    python -m app decide < calls.jsonl          one result line per {"tool", "arguments"} line
    python -m app policy check [FILE]           validate a policy file, print its policy_version
    python -m app policy diff OLD NEW           every decision a policy change alters (SPEC §3.0)
    python -m app serve [--host H] [--port P]   serve POST /mcp (settings from env / .env)
    python -m app probe URL [--cacert FILE]     initialize → initialized → tools/list → tools/call
"""

from __future__ import annotations

import argparse
import json
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser("decide", help="run tool calls from JSON Lines on stdin, one result line each")

    policy = commands.add_parser("policy", help="policy file commands")
    policy_commands = policy.add_subparsers(dest="policy_command", required=True)
    check = policy_commands.add_parser("check", help="validate a policy file and print its policy_version")
    check.add_argument("file", nargs="?", help="policy file (default: the shipped policy)")
    diff = policy_commands.add_parser(
        "diff", help="the data changes between two policies and every decision of the corpora that they alter"
    )
    diff.add_argument("old", help="policy file or git REV:PATH, e.g. main:app/router/policy.toml")
    diff.add_argument("new", help="policy file or git REV:PATH, e.g. app/router/policy.toml")
    diff.add_argument("--corpus", action="append", metavar="FILE",
                      help="JSONL with a text field (or evals/cases.jsonl rows), or one text a line; repeatable "
                      "(default: the project's labelled sets and decision tables)")
    diff.add_argument("--format", choices=("md", "json", "html"), default="md")
    diff.add_argument("--fail-on-safety", action="store_true", help="exit 3 when a labelled emergency stops halting")

    serve = commands.add_parser("serve", help="serve the MCP endpoint with uvicorn")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)

    probe = commands.add_parser("probe", help="run the acceptance order against a running server")
    probe.add_argument("url", help="the MCP endpoint, e.g. http://127.0.0.1:8000/mcp")
    probe.add_argument("--cacert", help="CA bundle for https:// with a private CA")
    probe.add_argument("--timeout", type=float, default=10.0)

    commands.add_parser("dev-setup", help="make run: write a fresh random token into .env when none is configured")

    args = parser.parse_args(argv)
    if args.command == "decide":
        return _decide()
    if args.command == "policy" and args.policy_command == "diff":
        from app.policy_report.command import diff_command

        return diff_command(args.old, args.new, args.corpus, args.format, args.fail_on_safety)
    if args.command == "policy":
        return _policy_check(args.file)
    if args.command == "serve":
        from app.http.serve import serve

        return serve(args.host, args.port)
    if args.command == "probe":
        from app.http.probe import probe as run_probe

        return run_probe(args.url, cacert=args.cacert, timeout=args.timeout)
    if args.command == "dev-setup":
        from app.http.devsetup import dev_setup

        return dev_setup()
    return 2


def _policy_check(path: str | None) -> int:
    from app.router import PolicyError, load_policy

    try:
        policy = load_policy(path)
    except PolicyError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(policy.policy_version)
    return 0


def _decide() -> int:
    from app.http.settings import RouterSettings, SettingsError, load_settings
    from app.router import ArgumentError, Router, UnknownTool

    try:
        settings = load_settings(RouterSettings)
        router = Router(settings.load_policy(), settings.limits())
    except SettingsError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    out = sys.stdout
    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            print(f"line {number}: not JSON", file=sys.stderr)
            return 1
        if not isinstance(request, dict):
            print(f"line {number}: not a JSON object", file=sys.stderr)
            return 1
        try:
            result = router.call(request.get("tool"), request.get("arguments", {})).model_dump(mode="json")
        except ArgumentError as exc:
            result = exc.as_dict()
        except UnknownTool:
            result = {"error": {"code": "UNKNOWN_TOOL", "field": "tool", "message": "is not one of the five tools"}}
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
    out.flush()
    return 0
