"""S5 (per resource): the PMM client major version matches how it authenticates.

The PS operator (>= 0.10) speaks PMM 3 only (a service-account token in ``pmmservertoken``): a 2.x
client cannot work. pxc-db values that put a PMM 2 key (``pmmserverkey``/``pmmserver``) beside a 3.x
client, or a PMM 3 token beside a 2.x client, loop forever (percona-helm-charts#611, #662). The stack
policy pmm-versions-match compares clients with the PMM server of the same stack.
"""

from __future__ import annotations

from ._framework import Context, Spec, resource_policy
from ._readers.database import major_minor
from ._readers.values import as_map, at
from ._subjects import database, database_types

SPEC = Spec(
    name="pmm-client-version",
    rules=("S5",),
    applies_to=database_types,
    description="the PMM client major version matches the operator and the credentials it is given",
)


def client_major(view) -> int | None:
    _, tag = view.image("pmm.image")
    version = major_minor(tag)
    return version[0] if version else None


def check(ctx: Context) -> None:
    view = database(ctx, "S5")
    if view is None:
        return
    with ctx.checking("S5"):
        if not view.pmm_enabled():
            return
        major = client_major(view)
        if major is None:
            return
        if view.operator == "ps" and major < 3:
            ctx.violation(
                "S5",
                f"{view.path('pmm.image')} is a PMM {major}.x client",
                "the rule matches client and server majors; the PS operator supports PMM 3 only (pmmservertoken)",
                "use percona/pmm-client:3.x and a PMM 3 server",
                field=view.path("pmm.image"),
            )
        if view.chart == "pxc-db":
            # secrets.passwords is not part of the custom resource: the chart writes a Secret from it
            passwords = as_map(at(view.values, "secrets.passwords", base="values"), view.path("secrets.passwords"))
            if (
                major >= 3
                and not passwords.get("pmmservertoken")
                and (passwords.get("pmmserverkey") or passwords.get("pmmserver"))
            ):
                ctx.violation(
                    "S5",
                    f"{view.path('secrets.passwords')} carries a PMM 2 credential for a PMM {major}.x client",
                    "the rule matches client and credentials: PMM 3 authenticates with pmmservertoken",
                    "put a PMM 3 service-account token in pmmservertoken (in a Secret, S1)",
                    field=view.path("secrets.passwords"),
                )
            if major < 3 and passwords.get("pmmservertoken"):
                ctx.violation(
                    "S5",
                    f"{view.path('secrets.passwords')} carries a PMM 3 token for a PMM {major}.x client",
                    "the rule matches client and credentials",
                    "use percona/pmm-client:3.x with the token",
                    field=view.path("secrets.passwords.pmmservertoken"),
                )


POLICY = resource_policy(SPEC, check)
