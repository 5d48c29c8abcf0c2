"""S5 (stack): PMM clients and the PMM server of the stack have the same major version.

The server is the pmm chart (values.image.tag, default 3.8.1 for chart 1.8.1) or a workload running a
pmm-server image; clients are the database clusters with PMM enabled. A stack without a PMM server
(an external one) is not checked here.
"""

from __future__ import annotations

from ._framework import Context, Spec, stack_policy
from ._readers.database import major_minor
from ._readers.stack import PMM_ROLE, read_stack
from ._readers.values import NotKnown
from .pmm_client_version import client_major

SPEC = Spec(
    name="pmm-versions-match", rules=("S5",), description="PMM clients and the stack's PMM server share the major version"
)


def check(ctx: Context) -> None:
    stack = read_stack(ctx.resources)
    servers = {}
    for resource, tag in stack.pmm_servers:
        version = major_minor(tag)
        if version:
            servers[resource.label] = version[0]
    # a server unknown at preview (or a workload whose image is) may be one more: the known ones are judged
    stack.not_judged(ctx, "S5", (PMM_ROLE, "workload"))
    if not servers:
        return
    for resource, view in stack.databases:
        try:
            if not view.pmm_enabled():
                continue
            major = client_major(view)
        except NotKnown as error:
            ctx.not_judged("S5", error, resource.label)
            continue
        except Exception:  # noqa: BLE001 - malformed: the resource policy reports it
            continue
        for server, server_major in servers.items():
            if major is not None and major != server_major:
                ctx.violation(
                    "S5",
                    f"{resource.label} runs a PMM {major}.x client ({view.path('pmm.image')}) but {server} is PMM {server_major}.x",
                    "the rule requires client and server major versions to match (a mismatch makes the client loop)",
                    f"use percona/pmm-client:{server_major}.x (PMM 3 authenticates with pmmservertoken)",
                    resource.urn,
                    field=view.path("pmm.image"),
                )


POLICY = stack_policy(SPEC, check)
