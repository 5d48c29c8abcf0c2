"""The config decoder reads each setting once (issue 23): plan.config.keys.ConfigValues decodes a key to its type
the first time it is read and reads it into its domain once; every part of one stack shares that reader."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import pytest
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.plan.config import ConfigValues
from percona_mysql_k8s.plan.config import decide as decide_module


class CountingConfig(Mapping):
    """A raw stack config (strings, as the Pulumi CLI passes them) that counts the reads of each key."""

    def __init__(self, values: dict[str, object]):
        self.values, self.reads = values, {}

    def __getitem__(self, key: str) -> object:
        self.reads[key] = self.reads.get(key, 0) + 1
        return self.values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)


def test_a_key_is_decoded_once_and_given_its_type():
    raw = CountingConfig({"diskIops": " 6000 ", "ephemeral": "TRUE", "sysbenchThreads": "1,4, 16", "mysqlVersion": 8.4})
    values = ConfigValues(raw)
    assert [values.get("diskIops") for _ in range(3)] == [6000, 6000, 6000]
    assert (values.get("ephemeral"), values.get("sysbenchThreads"), values.get("mysqlVersion")) == (True, [1, 4, 16], "8.4")
    assert raw.reads["diskIops"] == 1
    assert values.get("storageSize") == "100Gi"  # absent: Pulumi.yaml's default
    assert ConfigValues.of(values) is values


@pytest.mark.parametrize(
    ("key", "raw", "message"),
    [
        ("diskIops", "6k", "'6k' is not a whole number (ASCII digits)"),
        ("ephemeral", "yes", "'yes' is not true or false"),
        ("namespace", ["mysql"], "['mysql'] is not a string"),
        ("clientNamespaces", {"a": 1}, "{'a': 1} is not a list"),
    ],
)
def test_a_value_of_the_wrong_type_names_its_key(key, raw, message):
    with pytest.raises(InputError) as caught:
        ConfigValues({key: raw}).get(key)
    assert (caught.value.key, caught.value.message) == (key, message)


def test_a_domain_reading_runs_once_and_its_value_is_shared():
    calls = []

    def volume(text):
        calls.append(text)
        return len(text)

    values = ConfigValues({"storageSize": "200Gi"})
    assert values.parsed("storageSize", volume) == values.parsed("storageSize", volume) == 5
    assert calls == ["200Gi"]


def test_the_stack_decodes_each_database_key_once(monkeypatch):
    """One stack's settings: every database-layer key is read from the raw config once (the cluster layer's own
    reader, plan.clusters.keys, reads the keys it decides from)."""
    from percona_mysql_k8s.plan.clusters import CONFIG_KEYS as CLUSTER_KEYS
    from percona_mysql_k8s.plan.config import CONFIG_KEYS, OPTIONAL_KEYS

    gke = {
        "target": "gke",
        "clusterName": "perf",
        "gcpProject": "perf-project",
        "gcpRegion": "europe-west1",
        "gcpZones": "europe-west1-b,europe-west1-c,europe-west1-d",
        "databaseNodeType": "n2-standard-16",
        "gkeMasterAuthorizedNetworks": "203.0.113.0/24",
        "connections": "2000",
        "storageSize": "200Gi",
        "backupSchedule": "0 */6 * * *",
        "sysbenchThreads": "[1, 8]",
    }
    raw = CountingConfig(gke)
    made = []

    class Recording(ConfigValues):
        def __init__(self, values):
            super().__init__(values)
            made.append(self)

    monkeypatch.setattr(decide_module, "ConfigValues", Recording)
    settings = decide_module.stack_settings_from_config(raw, host=lambda: (8000, 32 * 2**30))
    assert len(made) == 1 and settings.backup.plan.schedule.text == "0 */6 * * *"
    database_only = set(CONFIG_KEYS) | set(OPTIONAL_KEYS)
    database_only -= set(CLUSTER_KEYS)
    assert {key: count for key, count in raw.reads.items() if key in database_only and count != 1} == {}
