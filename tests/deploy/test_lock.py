"""requirements.lock: the runtime dependencies the image installs, pinned with hashes (issue 14).

The image runs `pip install --require-hashes --no-deps -r requirements.lock`, so the lock alone
decides what ships; these checks keep it honest against pyproject.toml without the network:
every entry is an exact `==` pin carrying at least one sha256, every runtime dependency of
pyproject.toml is pinned to a version its specifier accepts (markers evaluated for Linux, the
image's platform), and the lock was made for the image's Python (3.11). Each rule also has a
refusing row: the same checker run on a broken copy of the real lock. `make lock` refreshes it.

Whether the pins form a complete closure is proven where it matters, at install time: `pip check`
in scripts/install-runtime.sh (run by the image build and by test_image_install.py).

The SBOM: `make sbom` turns the lock into CycloneDX JSON; here the same tool's output must list
exactly the locked pins, each with its hashes.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from .server import IN_CI, ROOT

LOCK = ROOT / "requirements.lock"
PYPROJECT = ROOT / "pyproject.toml"
IMAGE_PYTHON = "3.11"  # Debian bookworm's python3 (Dockerfile)
LINUX = {"sys_platform": "linux", "platform_system": "Linux", "os_name": "posix"}
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


def entries(text: str) -> dict[str, tuple[str, list[str]]]:
    """{canonical name: (version or the raw line when not an exact pin, [sha256 hashes])}."""
    found: dict[str, tuple[str, list[str]]] = {}
    for logical in re.sub(r"\\\n", " ", text).splitlines():
        line = logical.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})", line)
        requirement = line.split("--hash", 1)[0].strip()
        match = PIN.match(requirement)
        if match:
            found[canonicalize_name(match.group(1))] = (match.group(2), hashes)
        else:
            found[requirement] = (requirement, hashes)
    return found


def lock_problems(lock_text: str, dependencies: list[str]) -> list[str]:
    problems = []
    pins = entries(lock_text)
    for name, (version, hashes) in pins.items():
        if version == name:
            problems.append(f"not an exact == pin: {name}")
        if not hashes:
            problems.append(f"no hash: {name}")
    for spec in dependencies:
        req = Requirement(spec)
        if req.marker is not None and not req.marker.evaluate(LINUX):
            continue
        pinned = pins.get(canonicalize_name(req.name))
        if pinned is None:
            problems.append(f"not locked: {req.name}")
        elif not req.specifier.contains(pinned[0], prereleases=True):
            problems.append(f"{req.name}=={pinned[0]} does not satisfy {req.specifier}")
    header = re.search(r"pip-compile with Python (\d+\.\d+)", lock_text)
    if not header or header.group(1) != IMAGE_PYTHON:
        problems.append(f"not made with Python {IMAGE_PYTHON}: {header.group(0) if header else 'no header'}")
    return problems


def runtime_dependencies() -> list[str]:
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]


def drop_hashes_of(text: str, name: str) -> str:
    start = text.index(f"\n{name}==") + 1
    end = text.index("\n", text.index("--hash", start))
    block = text[start:end]
    first = block.split(" \\", 1)[0]
    rest = text[end + 1:]
    while rest.startswith("    --hash"):  # the entry's remaining hash lines
        rest = rest.split("\n", 1)[1]
    return text[:start] + first + "\n" + rest


BROKEN = [
    # (id, how the lock or pyproject is broken, the problem expected)
    ("a-hash-missing", lambda lock, deps: (drop_hashes_of(lock, "orjson"), deps), "no hash: orjson"),
    ("a-range-instead-of-a-pin", lambda lock, deps: (lock.replace("\nstructlog==", "\nstructlog>="), deps),
     "not an exact == pin"),
    ("pyproject-moved-past-the-pin",
     lambda lock, deps: (lock, [d if not d.startswith("pydantic>") else "pydantic>=99" for d in deps]),
     "does not satisfy"),
    ("a-new-dependency-not-locked", lambda lock, deps: (lock, [*deps, "rich>=13"]), "not locked: rich"),
    ("made-with-another-python", lambda lock, deps: (lock.replace("with Python 3.11", "with Python 3.13"), deps),
     "not made with Python 3.11"),
]


def test_lock_satisfies_pyproject_and_has_hashes():
    problems = lock_problems(LOCK.read_text(encoding="utf-8"), runtime_dependencies())
    assert not problems, f"requirements.lock is stale or incomplete (run `make lock`): {problems}"


@pytest.mark.parametrize("break_it, expected", [(b, e) for _, b, e in BROKEN], ids=[i for i, _, _ in BROKEN])
def test_lock_checker_refuses(break_it, expected):
    lock, deps = break_it(LOCK.read_text(encoding="utf-8"), runtime_dependencies())
    problems = lock_problems(lock, deps)
    assert any(expected in p for p in problems), problems


def test_sbom_lists_exactly_the_locked_pins(tmp_path):
    try:
        import cyclonedx_py  # noqa: F401
    except ImportError:
        if IN_CI:
            pytest.fail("cyclonedx-bom not installed (it is in the [dev] extras)")
        pytest.skip("cyclonedx-bom not installed (it is in the [dev] extras)")
    out = tmp_path / "sbom.json"
    result = subprocess.run(
        [sys.executable, "-m", "cyclonedx_py", "requirements", "--pyproject", str(PYPROJECT),
         "--output-reproducible", "--of", "JSON", "-o", str(out), str(LOCK)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    bom = json.loads(out.read_text(encoding="utf-8"))
    assert bom["bomFormat"] == "CycloneDX"
    assert bom["metadata"]["component"]["name"] == "a207-router-mcp"
    listed = {canonicalize_name(c["name"]): c for c in bom["components"]}
    pins = entries(LOCK.read_text(encoding="utf-8"))
    assert {n: c["version"] for n, c in listed.items()} == {n: v for n, (v, _) in pins.items()}
    for name, component in listed.items():
        hashes = {h["content"] for ref in component.get("externalReferences", []) for h in ref.get("hashes", [])}
        assert hashes == set(pins[name][1]), name
