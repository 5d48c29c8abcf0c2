"""Would the API server accept this custom resource, and what would it store? The steps in the API server's order.

For a create through server-side apply (pulumi-kubernetes v4), apiextensions-apiserver v0.36.3:

1. the version must be one the CRD serves (pkg/apiserver/customresource_handler.go ``hasServedCRDVersion``);
2. server-side apply refuses what it cannot type: undeclared fields (structural.undeclared), metadata that is not
   ObjectMeta's (metadata.typed_errors); before that the request must fit 3 MiB and hold no number JSON lacks
   (limits);
3. the decoder turns numbers into what JSON gives, prunes, drops disallowed nulls and applies defaults
   (structural; ``unstructuredSchemaCoercer.apply``, ``unstructuredDefaulter.Default``);
4. pkg/registry/customresource/strategy.go ``Validate``: the object's metadata (validator.go ``Validate``:
   apimachinery's ``ValidateObjectMetaAccessor``, core.crd.metadata), the OpenAPI schema (openapi), the scale
   subresource's replicas (validator.go ``ValidateScaleSpec``), list sets and maps (listtype), then the CEL rules
   (cel), unless an earlier error is one ``hasBlockingErr`` names (a type, a required field, an enum, a
   length or a count): then CEL is skipped with the API server's own note.

5. the write: etcd's limit on the stored object (limits.etcd_errors; not for a dry run, which writes nothing).

Every error is kept (the API server stops at step 2's; the pack names all it finds, so one run shows them all).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import catalog, limits, listtype, metadata, openapi, structural
from .cel import Unjudged, cel_errors
from .errors import INVALID, NOT_SUPPORTED, REQUIRED, TOO_LONG, TOO_MANY, TYPE_INVALID, FieldError

_BLOCKING = {NOT_SUPPORTED, REQUIRED, TOO_LONG, TOO_MANY, TYPE_INVALID}  # strategy.go hasBlockingErr
CEL_SKIPPED = FieldError(
    "<nil>",
    INVALID,
    "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
    None,
    "cel",
)
PULUMI, KUBECTL = "pulumi", "kubectl"  # who sends the object: pulumi-kubernetes, or kubectl from a manifest
_INT32_MAX = 2**31 - 1


def _never_unknown(_value: Any) -> bool:
    return False


@dataclass(frozen=True)
class Admission:
    """The API server's answer for one custom resource."""

    group: str
    kind: str
    version: str
    errors: tuple[FieldError, ...]
    stored: Any  # the object as the API server would store it: pruned, defaulted, numbers as JSON decodes them
    pruned: tuple[str, ...] = ()  # fields dropped silently (where the schema keeps unknown fields at an ancestor)
    unjudged: tuple[Unjudged, ...] = field(default=())  # rules a preview cannot judge yet (an unknown value)

    @property
    def refused(self) -> bool:
        return bool(self.errors)


def _scale_errors(obj: dict, scale: dict | None, is_unknown: Callable[[Any], bool]) -> list[FieldError]:
    """validator.go ``ValidateScaleSpec``: the replicas the scale subresource reads are a non-negative int32 (not
    judged while unknown at preview)."""
    if not scale or "specReplicasPath" not in scale:
        return []
    where = scale["specReplicasPath"]
    value: Any = obj
    for step in where.lstrip(".").split("."):
        if not isinstance(value, dict) or step not in value:
            return []
        value = value[step]
    if is_unknown(value):
        return []
    if isinstance(value, bool) or not isinstance(value, int):
        kind = openapi.json_type(value)
        return [
            FieldError(
                where, INVALID, f"{where.lstrip('.')} accessor error: {value!r} is of the type {kind}, expected int64", 0, "scale"
            )
        ]
    if value < 0:
        return [FieldError(where, INVALID, "should be a non-negative integer", value, "scale")]
    if value > _INT32_MAX:
        return [FieldError(where, INVALID, f"should be less than or equal to {_INT32_MAX}", value, "scale")]
    return []


def admit(
    api_version: str,
    kind: str,
    obj: dict,
    is_unknown: Callable[[Any], bool] = _never_unknown,
    *,
    client: str = PULUMI,
) -> Admission | None:
    """The API server's answer for ``obj`` of ``api_version``/``kind``; None for a kind no carried CRD defines.

    ``is_unknown`` marks a value not known yet (a Pulumi preview): no error is reported about it and no rule
    that reads it is judged (they are listed in ``unjudged``). ``client`` is who sends it: pulumi-kubernetes
    (``PULUMI``: a null property is not sent) or kubectl (``KUBECTL``: the manifest's nulls reach the API server,
    where server-side apply defaults them or refuses them as the wrong type)."""
    group, _, version = api_version.rpartition("/")
    versions = catalog.versions(group, kind)
    if versions is None:
        return None
    entry = versions.get(version)
    if entry is None or not entry.served:
        served = ", ".join(name for name, candidate in versions.items() if candidate.served)
        problem = FieldError("apiVersion", INVALID, f"the {kind} CRD serves only {served}", api_version, "version")
        return Admission(group, kind, version, (problem,), None)
    unsendable = limits.non_finite_errors(obj)
    if unsendable:  # no client gets it to the API server
        return Admission(group, kind, version, tuple(unsendable), None)
    sent = structural.json_numbers(obj, keep_nulls=client == KUBECTL)
    errors = limits.request_errors(sent)
    errors += metadata.typed_errors(sent.get("metadata"), is_unknown)
    stored = copy.deepcopy(sent)
    errors += structural.undeclared(stored, entry.schema)
    pruned = structural.prune(stored, entry.schema)
    if client == PULUMI:
        structural.prune_nulls(stored, entry.schema)  # the decoder's, on a create (server-side apply keeps them)
    structural.default(stored, entry.schema)
    errors += metadata.metadata_errors(stored.get("metadata"), is_unknown)
    errors += openapi.openapi_errors(entry.validator, stored, is_unknown)
    errors += _scale_errors(stored, entry.scale, is_unknown)
    errors += listtype.list_errors(stored, entry.schema)
    unjudged: list[Unjudged] = []
    if any(error.type in _BLOCKING and error.path != "<nil>" for error in errors):
        errors.append(CEL_SKIPPED)
    else:
        found, unjudged = cel_errors(stored, entry.schema, is_unknown)
        errors += found
    if not errors and not _holds_unknowns(sent, is_unknown):
        errors += _etcd_errors(group, kind, api_version, sent, stored, entry.schema)
    return Admission(group, kind, version, tuple(errors), stored, tuple(pruned), tuple(unjudged))


def _holds_unknowns(value: Any, is_unknown: Callable[[Any], bool]) -> bool:
    if is_unknown(value):
        return True
    if isinstance(value, dict):
        return any(_holds_unknowns(item, is_unknown) for item in value.values())
    if isinstance(value, list):
        return any(_holds_unknowns(item, is_unknown) for item in value)
    return False


def _etcd_errors(group: str, kind: str, api_version: str, sent: dict, stored: dict, schema: dict) -> list[FieldError]:
    """etcd's limit on the write, once the API server accepted the object (a preview with unknowns waits)."""
    meta = stored.get("metadata") if isinstance(stored.get("metadata"), dict) else {}
    namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) and meta.get("namespace") else "default"
    name = meta.get("name") if isinstance(meta.get("name"), str) else ""
    key = limits.etcd_key(group, kind, namespace, name)
    body = {name: value for name, value in sent.items() if name != "status"}
    return limits.etcd_errors(stored, body, schema, api_version, key)
