"""R4 (resource): the backup storages of a production database are reached over verified TLS, without cloud
keys in chart values.

Every object storage of an enabled backup section (and the PS binlog server's S3 storage): an
``endpointUrl`` that is set says ``https://`` (an empty one is the cloud's own HTTPS endpoint), and
``verifyTLS`` is not false (false skips certificate checks: PXC v1.19.0 binlog-collector.go ``VERIFY_TLS``
and pxcbackup/controller.go; PS v1.2.0 pkg/xtrabackup/storage/options.go). The pxc-db chart's ``s3.credentialsAccessKey``/``credentialsSecretKey``
put a static cloud key in the release's values, and so in the stack's state (the storage should name a
credentials Secret instead: one the stack creates from a key scoped to the bucket, or one created by hand). Whether the buckets themselves
are private and encrypted is the stack policy backup-buckets'. Production only (data_protection.production).
"""

from __future__ import annotations

from ._framework import Context, Spec, resource_policy
from ._readers.backup import backup_section, endpoint_scheme
from ._readers.values import known
from ._subjects import database, database_types
from .data_protection import SPEC as DATA_PROTECTION
from .data_protection import production

SPEC = Spec(
    name="backup-endpoints",
    rules=("R4",),
    applies_to=database_types,
    settings=DATA_PROTECTION.settings,
    description="backup storages are reached over verified HTTPS, without static cloud keys in chart values",
    remediation="Use https:// endpoints, leave verifyTLS on, and name a credentials Secret instead of keys in values.",
)

ALLOWED = "the rule keeps backups private: storage reached over HTTPS with verified certificates"


def _storages(ctx: Context, section):
    """The object storages (a storage whose type is unknown at preview is named unjudged, the others judged)."""
    storages = []
    for storage in section.storages.values():
        with ctx.checking("R4"):
            if storage.type in ("s3", "gcs", "azure"):
                storages.append(storage)
    with ctx.checking("R4"):
        if section.operator == "ps" and section.pitr_enabled and section.pitr_storage is not None:
            storages.append(section.pitr_storage)
    return storages


def check(ctx: Context) -> None:
    view = database(ctx, "R4")
    if view is None:
        return
    with ctx.checking("R4"):
        if not production(ctx, view):
            return
        section = backup_section(view)
        if section.off:
            return
        for storage in _storages(ctx, section):
            _judge(ctx, storage)


def _judge(ctx: Context, storage) -> None:
    """Each of R4's three questions on one storage, each on its own fields."""
    with ctx.checking("R4"):
        scheme = endpoint_scheme(storage.endpoint) if storage.endpoint else "https"
        if scheme != "https":
            ctx.violation(
                "R4",
                f"{storage.endpoint_path} is {storage.endpoint!r}, {'plain HTTP' if scheme == 'http' else 'not an https:// URL'}",
                ALLOWED,
                f"give {storage.endpoint_path} an https:// endpoint",
                field=storage.endpoint_path,
            )
    with ctx.checking("R4"):
        if storage.verify_tls is False:
            ctx.violation(
                "R4",
                f"{storage.path}.verifyTLS is false, so the backup pods accept any certificate",
                ALLOWED,
                f"remove {storage.path}.verifyTLS (it defaults to true), or give the endpoint a "
                "certificate the pods trust (s3.caBundle on PXC)",
                field=f"{storage.path}.verifyTLS",
            )
    keys: tuple = ()
    with ctx.checking("R4"):
        keys = storage.static_keys
    for path in keys:
        with ctx.checking("R4"):
            path = known(path, storage.path)
            ctx.violation(
                "R4",
                f"{path} holds a static cloud key in the chart values (and the stack's state)",
                "the rule reaches backup storage through workload identity or IRSA, never a static key in stack config or values",
                f"remove {path}; name a credentialsSecret instead (created by the stack from a key "
                "scoped to the bucket, or by hand)",
                field=path,
            )


POLICY = resource_policy(SPEC, check)
