"""A protected stack keeps its database's identity (S4): engine, cluster name and namespace.

Changing any of them does not edit the database, it replaces it: another engine is another custom
resource type, another name another resource (and other PVCs), another namespace a new object in it.
Pulumi would create the new cluster and then delete the old one, data and all, or stop half-way on the
old one's ``protect`` after the new one exists. So the program compares the new config with what the
stack's last deployment exported (its ``database`` output) and stops with one line naming the key,
before a single resource is registered.

The last deployment's outputs come from the engine's builtin provider (``pulumi:pulumi:readStackOutputs``,
the invoke ``StackReference`` is built on and the Node SDK's ``getOutputValue`` calls synchronously:
pulumi/pulumi pkg/resource/deploy/builtins.go), asked for this very stack; reading one's own outputs back
is a supported pattern (pulumi/pulumi#3722). A stack that was never deployed has no outputs: nothing to
compare, the first deployment passes.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import pulumi

from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.units import memory_to_bytes

READ_STACK_OUTPUTS = "pulumi:pulumi:readStackOutputs"
DATABASE_OUTPUT = "database"
# the `database` output's field -> the config key that sets it
IDENTITY = (("engine", "engine"), ("name", "dbClusterName"), ("namespace", "namespace"))


def identity_changes(previous: Mapping[str, object] | None, current: Mapping[str, object]) -> list[tuple[str, object, object]]:
    """(config key, before, after) for each identity field the new config changes. No previous
    ``database`` output (a first deployment, or one that never got that far): no change."""
    if not isinstance(previous, Mapping):
        return []
    return [
        (key, previous[field], current[field])
        for field, key in IDENTITY
        if field in previous and previous[field] != current[field]
    ]


def check_identity(previous: Mapping[str, object] | None, current: Mapping[str, object], *, ephemeral: bool) -> None:
    """Raise S4 for the first identity change on a protected stack, or a smaller ``storageSize`` than its
    volumes already have; an ephemeral stack may change anything."""
    if ephemeral:
        return
    for key, before, after in identity_changes(previous, current):
        raise InputError(
            key,
            f"changing it from {before!r} to {after!r} replaces the database and deletes its data; export the data "
            "and restore it into a new stack, or set ephemeral: true first if this database is disposable",
            "S4",
        )
    before = previous.get("storageSize") if isinstance(previous, Mapping) else None
    if isinstance(before, str) and memory_to_bytes(current["storageSize"]) < memory_to_bytes(before):
        # Kubernetes never shrinks a PersistentVolumeClaim ("spec.resources.requests.storage: Forbidden: field
        # can not be less than previous value"): the operator would retry a refused resize forever
        raise InputError(
            "storageSize",
            f"{current['storageSize']!r} is smaller than the {before!r} the volumes already have; volumes only grow",
            "S4",
        )


# A self-managed (file) backend can fail a read of the checkpoint the engine is writing at that very moment: seen
# under the real engine on a stack's first `up` ("failed to load checkpoint: EOF", tests/engine). A failed read is
# tried again; only a read that keeps failing stops the program.
READ_ATTEMPTS = 5
READ_PAUSE_SECONDS = 0.5


def own_previous_outputs(*, attempts: int = READ_ATTEMPTS, pause: float = READ_PAUSE_SECONDS) -> dict[str, object]:
    """This stack's outputs from its last deployment ({} before the first), read before anything is registered."""
    name = f"{pulumi.get_organization()}/{pulumi.get_project()}/{pulumi.get_stack()}"
    for attempt in range(1, attempts + 1):
        try:
            result = pulumi.runtime.invoke(READ_STACK_OUTPUTS, {"name": name})
            break
        except Exception as error:  # the backend's own message, whatever the backend
            if attempt == attempts:
                raise InputError(
                    "ephemeral",
                    f"cannot read this stack's last outputs ({name}: {error}; {attempts} attempts), so a change of "
                    "engine, cluster name or namespace cannot be ruled out; fix the backend access, or set ephemeral: "
                    "true if this database is disposable",
                    "S4",
                ) from None
            time.sleep(pause)
    outputs = (result.value or {}).get("outputs") or {}
    return dict(outputs)
