"""Static cloud keys in stack config (R4): the keys backup storage must never be reached with.

Pure. R4 reaches backup storage through workload identity (GKE) or IRSA (EKS), so a production stack's
config holds no cloud key. A config entry is a static cloud key when

* its value (or any string inside a list/object value) is an AWS access key id: ``AKIA`` (long-term) or
  ``ASIA`` (temporary) followed by 16 upper-case letters or digits (AWS IAM user guide, "Understanding
  unique ID prefixes"), or a Cloud Storage HMAC access id: ``GOOG`` followed by 20 (user account, 24
  characters) or 57 (service account, 61 characters) upper-case letters or digits (Cloud Storage docs,
  "HMAC keys"); or
* its name says it holds a key, whatever the value (an encrypted secret is still a static key): the AWS
  provider's own ``aws:accessKey``/``aws:secretKey``, the GCP provider's ``gcp:credentials`` (a service
  account key file), or a name that spells a secret access key or an HMAC secret
  (``secretAccessKey``, ``aws_secret_access_key``, ``hmacSecret``...).

Read by the policy pack (the stack config the engine passes in ``PULUMI_CONFIG``) and by the stack
program's config check (plan.config.check_config_keys), so both refuse the same entries.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

AWS_ACCESS_KEY_ID = re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])")
GCS_HMAC_ACCESS_ID = re.compile(r"(?<![A-Z0-9])GOOG(?:[A-Z0-9]{57}|[A-Z0-9]{20})(?![A-Z0-9])")
PROVIDER_KEYS = frozenset({"aws:accesskey", "aws:secretkey", "aws:token", "gcp:credentials"})
# Names (lower case, separators removed) that hold a secret access key or an HMAC secret.
SECRET_KEY_NAMES = re.compile(r"secretaccesskey|accesskeysecret|awssecretkey|hmacsecret|hmackeysecret")


@dataclass(frozen=True)
class CloudKey:
    key: str  # the config key as written (``project:name``)
    what: str  # why it is a static cloud key, for messages


def _normalized(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _by_name(key: str) -> str | None:
    if key.lower() in PROVIDER_KEYS:
        return "is a cloud provider's static credential"
    _, _, name = key.rpartition(":")
    if SECRET_KEY_NAMES.search(_normalized(name)):
        return "is named like a secret access key"
    return None


def _by_value(value: object) -> str | None:
    for text in _strings(value):
        if AWS_ACCESS_KEY_ID.search(text):
            return "holds an AWS access key id"
        if GCS_HMAC_ACCESS_ID.search(text):
            return "holds a Cloud Storage HMAC access id"
    return None


def static_cloud_keys(config: Mapping[str, object]) -> list[CloudKey]:
    """Every config entry holding a static cloud key, in key order."""
    found = []
    for key in sorted(config):
        what = _by_name(key) or _by_value(config[key])
        if what:
            found.append(CloudKey(key, what))
    return found
