"""The policy pack. The engine runs it as ``python -u -m pulumi.policy <engine> .`` in this directory."""

from pulumi_policy import PolicyPack

from policies._catalog import ALL_POLICIES, PACK_DESCRIPTION, PACK_NAME
from policies._sdk import share_deserialization

share_deserialization()
PolicyPack(name=PACK_NAME, description=PACK_DESCRIPTION, policies=ALL_POLICIES)
