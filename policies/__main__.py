"""The policy pack. The engine runs it as ``python -u -m pulumi.policy <engine> .`` in this directory."""

from pulumi_policy import PolicyPack

from policies._catalog import ALL_POLICIES, PACK_DESCRIPTION, PACK_NAME
from policies._sdk import share_deserialization
from policies._server import serve_on_event_loop

share_deserialization()
serve_on_event_loop()
PolicyPack(name=PACK_NAME, description=PACK_DESCRIPTION, policies=ALL_POLICIES)
