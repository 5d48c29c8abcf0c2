"""R4: static cloud keys in stack config (core.cloud_keys), the test the pack and the stack's config check share."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from percona_mysql_k8s.core.cloud_keys import static_cloud_keys

REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("value", "what"),
    [
        ("AKIAIOSFODNN7EXAMPLE", "AWS access key id"),  # AWS's documented example: AKIA + 16
        ("ASIAY34FZKBOKMUTVV7A", "AWS access key id"),  # temporary (STS) credentials: ASIA + 16
        ("export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AWS access key id"),  # inside a longer text
        (["eu-west-1", {"id": "AKIAIOSFODNN7EXAMPLE"}], "AWS access key id"),  # inside a structured value
        ("GOOGTS7C7FUP3AIRVJTE2BCD", "HMAC access id"),  # a user account's: GOOG + 20 = 24 characters
        ("GOOGTS7C7FUP3AIRVJTE2BCDKINBTES3HC2GY5CBFJDCQ2SYHV6A6XXVTJFSA", "HMAC access id"),  # a service account's: 61
    ],
)
def test_values_that_are_cloud_key_ids(value, what):
    found = static_cloud_keys({"percona-mysql:anything": value})
    assert [k.key for k in found] == ["percona-mysql:anything"] and what in found[0].what


@pytest.mark.parametrize(
    "value",
    [
        "AKIAIOSFODNN7EXAMPL",  # AKIA + 15: too short
        "AKIAIOSFODNN7EXAMPLEX",  # AKIA + 17: part of a longer token
        "akiaiosfodnn7example",  # lower case is no key id
        "GOOGTS7C7FUP3AIRVJTE2BCDKINB",  # GOOG + 24: neither 20 nor 57
        "GOOGTS7C7FUP3AIRVJTE",  # GOOG + 16
        "gke-mysql",
        "europe-west1",
        3,
        True,
        None,
        ["n2-standard-16"],
    ],
)
def test_values_that_are_not(value):
    assert static_cloud_keys({"percona-mysql:anything": value}) == []


@pytest.mark.parametrize(
    "key",
    [
        "aws:accessKey",
        "aws:secretKey",
        "aws:token",
        "gcp:credentials",
        "AWS:SecretKey",
        "percona-mysql:secretAccessKey",
        "percona-mysql:aws_secret_access_key",
        "percona-mysql:minio-secret-access-key",
        "percona-mysql:hmacSecret",
    ],
)
def test_names_that_hold_a_key_whatever_the_value(key):
    # an encrypted value ({"secure": ...}) is still a static key in the stack config
    assert [k.key for k in static_cloud_keys({key: {"secure": "v1:AAAA"}})] == [key]


@pytest.mark.parametrize(
    "key",
    [
        "aws:region",
        "gcp:project",
        "percona-mysql:pmmServerToken",
        "percona-mysql:backupSchedule",
        "percona-mysql:kmsKey",
        "percona-mysql:secretsName",
    ],
)
def test_names_that_do_not(key):
    assert static_cloud_keys({key: "value"}) == []


def test_no_shipped_stack_config_holds_one():
    stacks = sorted((REPOSITORY / "stacks").glob("Pulumi.*.yaml"))
    for path in stacks:
        config = (yaml.safe_load(path.read_text()) or {}).get("config") or {}
        assert static_cloud_keys(config) == [], path.name
