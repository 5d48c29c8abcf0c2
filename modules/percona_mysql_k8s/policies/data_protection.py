"""S4: data protection. No PVC-deleting finalizers, and database resources are protected, unless the stack
is ephemeral.

A stack is ephemeral when its name matches one of ``ephemeral_stacks`` (config, glob patterns) or when its
config sets ``<project>:ephemeral: true``. S4 is about data, not size: the operator's unsafe size flag says
nothing about whether the volumes hold data worth keeping, so it switches off neither half. The stack name comes from the engine (PULUMI_STACK); without it the
``protect`` half cannot be decided and is skipped. Database resources are the PXC/PS custom resources
and pxc-db/ps-db releases.
"""

from __future__ import annotations

import fnmatch
import json
import os

from ._framework import Context, Spec, resource_policy, stack_name
from ._readers.values import NotKnown, describe, known
from ._subjects import database, database_types
from .config import Setting

PVC_FINALIZERS = ("delete-pxc-pvc", "delete-proxysql-pvc", "delete-mysql-pvc")

SPEC = Spec(
    name="data-protection",
    rules=("S4",),
    applies_to=database_types,
    description="no PVC-deleting finalizers, and database resources are protected on non-ephemeral stacks",
    settings=(
        Setting(
            "ephemeral_stacks",
            "array",
            ["kind", "kind-*", "dev", "dev-*", "test", "test-*", "ci", "ci-*", "local*", "ephemeral*", "*-ephemeral"],
            "Stack-name patterns (fnmatch) of ephemeral stacks, where data protection is not required.",
            {"type": "string"},
        ),
    ),
    remediation="Remove the *-pvc finalizers and set protect=True on the database resources of production stacks.",
)


def _config_says_ephemeral() -> bool:
    try:
        config = json.loads(os.environ.get("PULUMI_CONFIG") or "{}")
    except ValueError:
        return False
    return any(key.endswith(":ephemeral") and str(value).lower() == "true" for key, value in config.items())


def ephemeral(ctx: Context, view) -> tuple[bool, str]:
    name = stack_name()
    patterns = [p for p in ctx["ephemeral_stacks"] if isinstance(p, str)]
    if name and any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns):
        return True, f"stack {name} matches ephemeral_stacks"
    if _config_says_ephemeral():
        return True, "the stack config sets ephemeral: true"
    return False, ""


def keep_nothing(view) -> str:
    """The fix's way out for a database whose data is not worth keeping, in the terms of what is judged: a stack is
    marked ephemeral by its name or config; Kubernetes objects judged without a stack (``--manifests``) have no
    stack to mark, so the cluster itself carries T1's mark, the operator's unsafe size flag."""
    if stack_name():
        return "mark the stack ephemeral (ephemeral_stacks, or config ephemeral: true)"
    flag = view.path("unsafeFlags." + ("pxcSize" if view.operator == "pxc" else "mysqlSize"))
    return f"for a cluster whose data is not worth keeping, set {flag}: true (the operator's unsafe size flag, T1's mark)"


def stack_setting(key: str) -> str:
    """`` (the stack's KEY)`` where a stack is judged: the setting of this project's stacks that writes the field."""
    return f" (the stack's {key})" if stack_name() else ""


def unsafe_size(view) -> bool:
    """T1's mark of an explicitly ephemeral cluster: the operator's unsafe size flag (NotKnown when it is
    unknown at preview: whether the cluster is production is then unknown too)."""
    try:
        return bool(view.unsafe("pxcSize" if view.operator == "pxc" else "mysqlSize"))
    except NotKnown:
        raise
    except Exception:  # noqa: BLE001 - malformed flags are T1's to report
        return False


def production(ctx: Context, view) -> bool:
    """A production database for R5 and R6: not an ephemeral stack (as S4 decides) and not a cluster under
    the unsafe size flag. S4 itself ignores the flag: data is worth keeping whatever the size, while a
    benchmark or an open network on a one-member throwaway cluster puts nothing in production at risk.
    Call it inside the rule's judgement (Context.checking): an unknown flag leaves the rule unjudged."""
    return not ephemeral(ctx, view)[0] and not unsafe_size(view)


def check(ctx: Context) -> None:
    view = database(ctx, "S4")
    if view is None:
        return
    is_ephemeral, _ = ephemeral(ctx, view)
    if is_ephemeral:
        return
    with ctx.checking("S4"):
        path, finalizers = view.finalizers()
        for index, finalizer in enumerate(finalizers):
            with ctx.checking("S4"):
                finalizer = known(finalizer, f"{path}[{index}]")
            if isinstance(finalizer, str) and finalizer.rsplit("/", 1)[-1] in PVC_FINALIZERS:
                ctx.violation(
                    "S4",
                    f"{path} contains {describe(finalizer)}: deleting the cluster deletes its data volumes",
                    "the rule keeps PVC-deleting finalizers off outside ephemeral stacks (config ephemeral_stacks)",
                    f"remove {finalizer} from {path}",
                    field=f"{path}[{index}]",
                )
    name = stack_name()
    if name and not ctx.resource.protect:
        ctx.violation(
            "S4",
            f"{ctx.resource.label} ({view.source}) is not protected on stack {name}",
            "the rule protects database resources on production stacks, so a destroy or replacement cannot delete them",
            "create it with pulumi.ResourceOptions(protect=True), or add the stack to ephemeral_stacks if it is disposable",
            field="",
        )


POLICY = resource_policy(SPEC, check)
