"""Would the API server accept this custom resource, and what would it store? The steps in the API server's order.

For a create through server-side apply (pulumi-kubernetes v4), apiextensions-apiserver v0.36.3:

1. the version must be one the CRD serves (pkg/apiserver/customresource_handler.go ``hasServedCRDVersion``);
2. server-side apply refuses undeclared fields (structural.undeclared);
3. the decoder turns numbers into what JSON gives, prunes, drops disallowed nulls and applies defaults
   (structural; ``unstructuredSchemaCoercer.apply``, ``unstructuredDefaulter.Default``);
4. pkg/registry/customresource/strategy.go ``Validate``: the object's metadata (validator.go
   ``validateObjectMetaDeclaratively``: the name, a DNS-1123 subdomain), the OpenAPI schema (openapi), the scale
   subresource's replicas (validator.go ``ValidateScaleSpec``), list sets and maps (listtype), then the CEL rules
   (cel), unless an earlier error is one ``hasBlockingErr`` names (a type, a required field, an enum, a
   length or a count): then CEL is skipped with the API server's own note.

Every error is kept (the API server stops at step 2's; the pack names all it finds, so one run shows them all).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import catalog, listtype, openapi, structural
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
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_SUBDOMAIN_ERROR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
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


def _name_errors(metadata: Any, is_unknown) -> list[FieldError]:
    """apimachinery pkg/api/validation/objectmeta.go ``ValidateObjectMeta`` with ``NameIsDNSSubdomain``: the name
    (a missing name is Pulumi's to generate: it auto-names every resource without one)."""
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if not isinstance(name, str) or is_unknown(name):
        return []
    found = []
    if len(name) > 253:
        found.append(FieldError("metadata.name", INVALID, "must be no more than 253 characters", name, "metadata"))
    if not _DNS1123_SUBDOMAIN.fullmatch(name):
        found.append(FieldError("metadata.name", INVALID, _SUBDOMAIN_ERROR, name, "metadata"))
    return found


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


def admit(api_version: str, kind: str, obj: dict, is_unknown: Callable[[Any], bool] = _never_unknown) -> Admission | None:
    """The API server's answer for ``obj`` of ``api_version``/``kind``; None for a kind no carried CRD defines.

    ``is_unknown`` marks a value not known yet (a Pulumi preview): no error is reported about it and no rule
    that reads it is judged (they are listed in ``unjudged``)."""
    group, _, version = api_version.rpartition("/")
    versions = catalog.versions(group, kind)
    if versions is None:
        return None
    entry = versions.get(version)
    if entry is None or not entry.served:
        served = ", ".join(name for name, candidate in versions.items() if candidate.served)
        problem = FieldError("apiVersion", INVALID, f"the {kind} CRD serves only {served}", api_version, "version")
        return Admission(group, kind, version, (problem,), None)
    stored = structural.json_numbers(obj)
    errors = structural.undeclared(stored, entry.schema)
    pruned = structural.prune(stored, entry.schema)
    structural.prune_nulls(stored, entry.schema)
    structural.default(stored, entry.schema)
    errors += _name_errors(stored.get("metadata"), is_unknown)
    errors += openapi.openapi_errors(entry.validator, stored, is_unknown)
    errors += _scale_errors(stored, entry.scale, is_unknown)
    errors += listtype.list_errors(stored, entry.schema)
    unjudged: list[Unjudged] = []
    if any(error.type in _BLOCKING and error.path != "<nil>" for error in errors):
        errors.append(CEL_SKIPPED)
    else:
        found, unjudged = cel_errors(stored, entry.schema, is_unknown)
        errors += found
    return Admission(group, kind, version, tuple(errors), stored, tuple(pruned), tuple(unjudged))
