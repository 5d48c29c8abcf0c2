"""docs/rules.md and the worked example of docs/sizing.md are generated (docs/generate.py): stale pages fail here.

Regenerate with `.venv/bin/python docs/generate.py` after changing the rule catalogue, a policy's rules,
the sizing engine or the peer model.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from percona_mysql_k8s.core.rules import RULES, SOURCES

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
generate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generate)


def test_the_rule_catalogue_page_is_current():
    assert generate.rules_page() == (ROOT / "docs" / "rules.md").read_text(), (
        "docs/rules.md is stale: run .venv/bin/python docs/generate.py"
    )


def test_every_rule_and_source_is_on_the_page():
    page = (ROOT / "docs" / "rules.md").read_text()
    for rule_id, rule in RULES.items():
        # each row carries the rule's anchor, where the check's SARIF and Markdown link to (cli.sarif helpUri)
        assert re.search(rf'^\| <a id="{rule.anchor}"></a>{rule_id} \| \*\*', page, re.M), rule_id
        assert set(rule.sources) <= set(SOURCES), f"{rule_id} cites a source SOURCES does not define"
        for threshold in rule.thresholds:
            assert f"| `{threshold.name}` | {rule_id} |" in page
    for key, documents in SOURCES.items():
        assert f'<a id="source-{key.lower()}"></a>' in page
        assert all(url.startswith("https://") for _title, url in documents), key


def test_the_worked_example_is_current():
    current = (ROOT / "docs" / "sizing.md").read_text()
    assert generate.sizing_page(current) == current, (
        "docs/sizing.md's worked example is stale: run .venv/bin/python docs/generate.py"
    )


def test_a_stale_number_is_put_back():
    # Edit one generated number by hand, as a stale page would have it: regeneration restores it, and the
    # prose outside the blocks is left alone.
    current = (ROOT / "docs" / "sizing.md").read_text()
    block = re.search(r"<!-- BEGIN GENERATED: containers -->\n(.*?)<!-- END GENERATED", current, re.S).group(1)
    stale = current.replace(block, block.replace("| member total |", "| member total (stale) |"))
    assert stale != current
    assert generate.sizing_page(stale) == current
