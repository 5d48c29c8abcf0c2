"""Policy config files and what `pulumi preview --policy-pack-config FILE` makes of them, for one PXC cluster whose
``gcs.fc_limit=150`` breaks G1 at its default (``max_fc_limit`` 100, mandatory).

Each expectation is read off the CLI's source (pkg/v3 v3.260.0: pkg/resource/analyzer/config.go, engine/update.go,
pkg/resource/plugin/analyzer_plugin.go) and the pack's own refusal of unknown names and keys
(percona_mysql_k8s.policies._configure). The unit test (tests/policies/test_policy_config.py) holds the offline
check to them; the real-engine tier (tests/engine/test_engine_policy_config.py) holds the real CLI to the offline
check, case by case.
"""

from __future__ import annotations

from dataclasses import dataclass

CLUSTER = {
    "apiVersion": "pxc.percona.com/v1",
    "kind": "PerconaXtraDBCluster",
    "metadata": {"name": "shop", "namespace": "mysql"},
    "spec": {
        "crVersion": "1.20.0",
        "pxc": {"size": 3, "configuration": '[mysqld]\nwsrep_provider_options="gcs.fc_limit=150"\n'},
    },
}
POLICY = "galera-flow-control"


@dataclass(frozen=True)
class Case:
    name: str
    text: str  # the file's content
    g1: str | None = None  # the level G1 is reported at (None: not reported)
    refused: str = ""  # a fragment of the refusal (empty: the config is accepted)
    others: str | None = None  # the level every other finding is reported at, when the config changes it
    engine: bool = False  # one case per path of the CLI's code, also run through the real CLI (the engine tier)


CASES = [
    # applyConfig: an entry without a level keeps the level already there, the policy's declared one
    Case(
        "tighter threshold keeps the declared level", '{"galera-flow-control": {"max_fc_limit": 80}}', g1="mandatory", engine=True
    ),
    Case("raised threshold", '{"galera-flow-control": {"max_fc_limit": 200}}'),
    Case("level as a string", '{"galera-flow-control": "advisory"}', g1="advisory", engine=True),
    Case(
        "level and threshold in an object",
        '{"galera-flow-control": {"enforcementLevel": "advisory", "max_fc_limit": 120}}',
        g1="advisory",
    ),
    Case("disabled", '{"galera-flow-control": {"enforcementLevel": "disabled"}}'),
    # "all" sets every policy's level first, then each named policy's own entry applies
    Case("all advisory", '{"all": "advisory"}', g1="advisory", others="advisory"),
    Case(
        "all advisory, one mandatory",
        '{"all": "advisory", "galera-flow-control": "mandatory"}',
        g1="mandatory",
        others="advisory",
        engine=True,
    ),
    # "Gracefully allow empty content"; empty entries are dropped; an empty environments list resolves nothing
    Case("empty file", "", g1="mandatory", engine=True),
    Case("blank file", "  \n", g1="mandatory"),
    Case("empty object", "{}", g1="mandatory"),
    Case("empty policy entry", '{"galera-flow-control": {}}', g1="mandatory"),
    Case("empty environments", '{"environments": []}', g1="mandatory"),
    # refused by the CLI's parser
    Case(
        "level capitalized",
        '{"galera-flow-control": {"enforcementLevel": "Mandatory"}}',
        refused="not a valid enforcement level",
        engine=True,
    ),
    Case("level not a string", '{"galera-flow-control": {"enforcementLevel": 5}}', refused="must be a string"),
    Case("policy given a number", '{"galera-flow-control": 5}', refused="must be a string or object", engine=True),
    Case("policy given null", '{"galera-flow-control": null}', refused="must be a string or object"),
    Case("not an object", "[]", refused="policy name"),
    Case("not JSON", '{"galera-flow-control": ', refused="JSON"),
    Case("ESC environments", '{"environments": ["prod/policies"]}', refused="environments", engine=True),
    # refused by the CLI's schema validation
    Case("threshold as text", '{"galera-flow-control": {"max_fc_limit": "80"}}', refused="max_fc_limit"),
    Case("threshold below its minimum", '{"galera-flow-control": {"max_fc_limit": 0}}', refused="max_fc_limit", engine=True),
    Case("threshold a fraction", '{"galera-flow-control": {"max_fc_limit": 80.5}}', refused="max_fc_limit"),
    # refused by analyzer.Configure: an unknown name given without a level has the empty level
    Case("misspelled policy", '{"galera-flow-contrl": {"max_fc_limit": 80}}', refused="galera-flow-contrl", engine=True),
    Case("all with a key and no level", '{"all": {"max_fc_limit": 80}}', refused='"all"'),
    # refused by the pack's Configure (the CLI would pass them on and nothing would change)
    Case("misspelled policy with a level", '{"galera-flow-contrl": "advisory"}', refused="galera-flow-contrl", engine=True),
    Case("misspelled key", '{"galera-flow-control": {"max_fc_limt": 80}}', refused="max_fc_limt", engine=True),
    Case("all with a key", '{"all": {"enforcementLevel": "advisory", "max_fc_limit": 80}}', refused='"all"'),
]
