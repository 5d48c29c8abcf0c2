"""One PXC cluster whose ``gcs.fc_limit=150`` breaks G1 at its default, registered through a provider that renders
YAML (``renderYamlToDirectory``: no cluster is needed, and a preview writes nothing). The custom resource is
``cluster.json`` beside this file (tests/policies/policy_config_cases.py's CLUSTER), so the real CLI and the offline
check judge the same object (tests/engine/test_engine_policy_config.py)."""

import json
from pathlib import Path

import pulumi

cluster = json.loads((Path(__file__).resolve().parent / "cluster.json").read_text())
render = pulumi.ProviderResource("kubernetes", "render", {"renderYamlToDirectory": "rendered"})
pulumi.CustomResource(
    f"kubernetes:{cluster['apiVersion']}:{cluster['kind']}",
    cluster["metadata"]["name"],
    cluster,
    pulumi.ResourceOptions(provider=render),
)
