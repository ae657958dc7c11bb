"""The report as Markdown (release notes), JSON (tools) or one self-contained HTML page (clinicians).

Every format says the same things in the same order: the two policies, the counts per kind of
change (safety-relevant kinds first, zero counts shown so that "none" is visible), the corpora
and what was skipped, the data changes by section, then each group's rows. Nothing depends on the
clock, the machine or the order of a set, so a committed report can be regenerated and compared.
The HTML page loads nothing: its style is inline and the groups fold with ``<details>``.
"""

from __future__ import annotations

import html
import json
from typing import Any

from .data_diff import SECTION_TITLES, DataChange
from .decisions import Report, Row

FORMATS = ("md", "json", "html")


def render(report: Report, fmt: str) -> str:
    if fmt == "md":
        return _markdown(report)
    if fmt == "json":
        return json.dumps(as_json(report), ensure_ascii=False, indent=1) + "\n"
    if fmt == "html":
        return _html(report)
    raise ValueError(f"unknown format {fmt!r}: one of {', '.join(FORMATS)}")


# ------------------------------------------------------------------------------------------------
# Shared wording
# ------------------------------------------------------------------------------------------------


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def headline(report: Report) -> str:
    rows = report.rows
    data = _count(len(report.data_changes), "data change") if report.data_changes else "no data change"
    if not rows:
        return f"No decision changes on {report.texts_run} texts ({data})."
    safety = sum(len(g.rows) for g in report.groups if g.kind.safety)
    fixed = sum(r.verdict == "fixed" for r in rows)
    broke = sum(r.verdict == "broke" for r in rows)
    return (f"{_count(len(rows), 'decision')} changed on {report.texts_run} texts: {safety} safety-relevant; "
            f"by their labels {fixed} fixed, {broke} broke. {data[0].upper()}{data[1:]}.")


def _value(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ", ".join(value) if value else "–"
    return json.dumps(value, ensure_ascii=False)


def side(row: Row, which: int) -> str:
    """One side of a row: the outcome, then every changed field's value on that side."""
    parts = [row.old_outcome if which == 0 else row.new_outcome]
    parts += [f"{name}: {_value(values[which])}" for name, values in row.changed.items() if name != "status"]
    return " · ".join(p for p in parts if p)


def _section_title(section: str) -> str:
    return SECTION_TITLES.get(section, section)


def _by_section(changes: list[DataChange]) -> dict[str, list[DataChange]]:
    out: dict[str, list[DataChange]] = {}
    for change in changes:
        out.setdefault(change.section, []).append(change)
    return out


def _skipped(skipped: dict[str, int]) -> str:
    return ", ".join(f"{n} {reason}" for reason, n in sorted(skipped.items())) or "–"


# ------------------------------------------------------------------------------------------------
# JSON
# ------------------------------------------------------------------------------------------------


def as_json(report: Report) -> dict[str, Any]:
    return {
        "old": {"source": report.old.label, "policy_version": report.old.policy_version},
        "new": {"source": report.new.label, "policy_version": report.new.policy_version},
        "headline": headline(report),
        "texts_run": report.texts_run,
        "safety_failures": len(report.safety_failures),
        "summary": [{"kind": g.kind.id, "title": g.kind.title, "safety": g.kind.safety, "rows": len(g.rows),
                     "fixed": g.fixed, "broke": g.broke} for g in report.groups],
        "corpora": [{"name": c.name, "present": c.present, "run": c.run, "skipped": c.skipped} for c in report.corpora],
        "data_changes": [c.as_dict() for c in report.data_changes],
        "groups": [{"kind": g.kind.id, "title": g.kind.title, "safety": g.kind.safety, "rows": [_row_json(r) for r in g.rows]}
                   for g in report.groups if g.rows],
    }


def _row_json(row: Row) -> dict[str, Any]:
    item = row.item
    return {
        "corpus": item.corpus,
        "id": item.id,
        "tool": item.tool,
        "text": item.text,
        "arguments": None if item.direct else item.arguments,
        "old": row.old_outcome,
        "new": row.new_outcome,
        "changed": {name: {"old": old, "new": new} for name, (old, new) in row.changed.items()},
        "label": item.label.name if item.label else None,
        "emergency_label": bool(item.label and item.label.emergency),
        "verdict": row.verdict,
    }


# ------------------------------------------------------------------------------------------------
# Markdown
# ------------------------------------------------------------------------------------------------


def _md(text: str) -> str:
    """A table cell: one line, no column break, no HTML."""
    return (text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\r", "").replace("\n", " ⏎ ").replace("\u2028", " ⏎ ").replace("\u2029", " ⏎ "))


def _markdown(report: Report) -> str:
    out = [
        "# Policy impact report",
        "",
        "| | source | policy_version |",
        "|---|---|---|",
        f"| old | `{_md(report.old.label)}` | `{report.old.policy_version}` |",
        f"| new | `{_md(report.new.label)}` | `{report.new.policy_version}` |",
        "",
        f"**{headline(report)}**",
        "",
        "## Decision changes by kind",
        "",
        "| kind | safety | rows | fixed | broke | meaning |",
        "|---|---|---:|---:|---:|---|",
    ]
    for g in report.groups:
        out.append(f"| {g.kind.title} | {'**safety**' if g.kind.safety else ''} | {len(g.rows)} | {g.fixed} | {g.broke} | {g.kind.meaning} |")
    out += ["", "## Corpora", "", "| corpus | texts run | skipped |", "|---|---:|---|"]
    for c in report.corpora:
        out.append(f"| `{_md(c.name)}` | {c.run if c.present else 'not present'} | {_md(_skipped(c.skipped))} |")
    out += ["", "## Data changes", ""]
    if not report.data_changes:
        out += ["None.", ""]
    for section, changes in _by_section(report.data_changes).items():
        out += [f"### {_md(_section_title(section))} (`{section}`)", "", "| path | change |", "|---|---|"]
        out += [f"| `{_md(c.path)}` | {_md(c.describe())} |" for c in changes]
        out.append("")
    for g in report.groups:
        if not g.rows:
            continue
        tag = " — safety" if g.kind.safety else ""
        out += [f"## {g.kind.title} ({len(g.rows)}){tag}", "", f"{g.kind.meaning}.", "",
                "| corpus | id | text | old | new | label | verdict |", "|---|---|---|---|---|---|---|"]
        for r in g.rows:
            label = r.item.label.name if r.item.label else "–"
            out.append(f"| `{_md(r.item.corpus)}` | `{_md(r.item.id)}` | {_md(r.item.shown)} | {_md(side(r, 0))} | "
                       f"{_md(side(r, 1))} | {_md(label)} | {r.verdict or '–'} |")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


# ------------------------------------------------------------------------------------------------
# HTML
# ------------------------------------------------------------------------------------------------

_STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:78em;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1em}th,td{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;text-align:left}
th{background:#f3f3f3}td.n{text-align:right}.safety{color:#a00;font-weight:bold}.broke{color:#a00;font-weight:bold}
.fixed{color:#070;font-weight:bold}summary{cursor:pointer;font-weight:bold;margin:.6em 0}code{font-size:90%}
td.text{max-width:34em;white-space:pre-wrap}
"""


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _html(report: Report) -> str:
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>Policy impact report</title>",
        f"<style>{_STYLE}</style></head><body>",
        "<h1>Policy impact report</h1>",
        "<table><tr><th></th><th>source</th><th>policy_version</th></tr>",
        f"<tr><th>old</th><td><code>{_e(report.old.label)}</code></td><td><code>{_e(report.old.policy_version)}</code></td></tr>",
        f"<tr><th>new</th><td><code>{_e(report.new.label)}</code></td><td><code>{_e(report.new.policy_version)}</code></td></tr>",
        "</table>",
        f'<p id="headline"><strong>{_e(headline(report))}</strong></p>',
        "<h2>Decision changes by kind</h2>",
        '<table id="summary"><tr><th>kind</th><th>safety</th><th>rows</th><th>fixed</th><th>broke</th><th>meaning</th></tr>',
    ]
    for g in report.groups:
        out.append(f"<tr><td>{_e(g.kind.title)}</td><td>{'<span class=safety>safety</span>' if g.kind.safety else ''}</td>"
                   f'<td class="n">{len(g.rows)}</td><td class="n">{g.fixed}</td><td class="n">{g.broke}</td><td>{_e(g.kind.meaning)}</td></tr>')
    out += ["</table>", "<h2>Corpora</h2>", "<table><tr><th>corpus</th><th>texts run</th><th>skipped</th></tr>"]
    for c in report.corpora:
        out.append(f"<tr><td><code>{_e(c.name)}</code></td><td class=\"n\">{c.run if c.present else 'not present'}</td>"
                   f"<td>{_e(_skipped(c.skipped))}</td></tr>")
    out += ["</table>", "<h2>Data changes</h2>"]
    if not report.data_changes:
        out.append("<p>None.</p>")
    for section, changes in _by_section(report.data_changes).items():
        out.append(f"<details><summary>{_e(_section_title(section))} (<code>{_e(section)}</code>): {len(changes)}</summary>")
        out.append("<table><tr><th>path</th><th>change</th></tr>")
        out += [f"<tr><td><code>{_e(c.path)}</code></td><td>{_e(c.describe())}</td></tr>" for c in changes]
        out.append("</table></details>")
    out.append("<h2>Decision changes</h2>")
    if not report.rows:
        out.append("<p>None.</p>")
    for g in report.groups:
        if not g.rows:
            continue
        tag = ' <span class="safety">safety</span>' if g.kind.safety else ""
        out.append(f'<details id="{g.kind.id}"><summary>{_e(g.kind.title)}: {len(g.rows)}{tag}</summary>')
        out.append(f"<p>{_e(g.kind.meaning)}.</p>")
        out.append("<table><tr><th>corpus</th><th>id</th><th>text</th><th>old</th><th>new</th><th>label</th><th>verdict</th></tr>")
        for r in g.rows:
            label = r.item.label.name if r.item.label else "–"
            verdict = f'<span class="{r.verdict}">{r.verdict}</span>' if r.verdict else "–"
            out.append(f"<tr><td><code>{_e(r.item.corpus)}</code></td><td><code>{_e(r.item.id)}</code></td>"
                       f'<td class="text">{_e(r.item.shown)}</td><td>{_e(side(r, 0))}</td><td>{_e(side(r, 1))}</td>'
                       f"<td>{_e(label)}</td><td>{verdict}</td></tr>")
        out.append("</table></details>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
