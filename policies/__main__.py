"""The policy pack. The engine runs it as ``python -u -m pulumi.policy <engine> .`` in this directory."""

from percona_mysql_k8s.policies._catalog import ALL_POLICIES, PACK_DESCRIPTION, PACK_NAME
from percona_mysql_k8s.policies._sdk import share_deserialization
from percona_mysql_k8s.policies._server import serve_on_event_loop
from pulumi_policy import PolicyPack

share_deserialization()
serve_on_event_loop()
PolicyPack(name=PACK_NAME, description=PACK_DESCRIPTION, policies=ALL_POLICIES)
