"""What the API server checks in a custom resource's ``metadata``, each check after the code that makes it.

1. Server-side apply converts the object to its typed form first (structured-merge-diff v6.3.3 ``typed.AsTyped``
   against ObjectMeta's schema, k8s.io/apimachinery v0.36.3 ``pkg/apis/meta/v1/types.go``): a label or annotation
   value that is not a string (``.metadata.annotations.a: expected string, got &value.valueUnstructured{Value:1}``),
   a name that is a number, a field ObjectMeta does not declare (``field not declared in schema``) refuse the
   request (HTTP 500 "failed to create typed patch object"); a null is no value and passes. An apply request
   must not carry ``managedFields`` (apiserver ``fieldmanager``: ``metadata.managedFields must be nil``).
2. apiextensions-apiserver v0.36.3 ``registry/customresource/validator.go`` ``Validate`` runs apimachinery's
   ``pkg/api/validation/objectmeta.go`` ``ValidateObjectMetaAccessor`` with ``NameIsDNSSubdomain``: the name and
   ``generateName`` (a DNS-1123 subdomain, the prefix with its trailing dash masked), the namespace (a DNS-1123
   label), ``generation`` not negative, the labels (``ValidateLabels``: qualified-name keys, values of at most 63
   characters of ``(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?``), the annotations (``ValidateAnnotations``: keys
   are qualified names in lower case, and keys plus values take at most 256 KiB, ``TotalAnnotationSizeLimitB``),
   the owner references and the finalizers (qualified names; ``orphan`` and ``foregroundDeletion`` not both).
   The messages are apimachinery's ``pkg/api/validate/content`` ones.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ..kube_yaml.object_meta import BOOL, INT64, OBJECT_META, RAW, STRING, TIME
from .errors import INVALID, TOO_LONG, UNTYPED, FieldError

TOTAL_ANNOTATION_SIZE_LIMIT = 256 * (1 << 10)  # objectmeta.go TotalAnnotationSizeLimitB
_LABEL_KEY = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_RE = re.compile(_LABEL_KEY)
_LABEL_VALUE_RE = re.compile(f"({_LABEL_KEY})?")
_DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_LABEL_RE = re.compile(_DNS_LABEL)
_DNS_SUBDOMAIN = _DNS_LABEL + r"(\." + _DNS_LABEL + r")*"
_DNS_SUBDOMAIN_RE = re.compile(_DNS_SUBDOMAIN)

_FINALIZER_ORPHAN, _FINALIZER_FOREGROUND = "orphan", "foregroundDeletion"


def _regex_error(message: str, expression: str, *examples: str) -> str:
    """content/errors.go ``RegexError``."""
    shown = " or ".join(f"'{example}', " for example in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{expression}')" if examples else message


def _go_unstructured(value: Any) -> str:
    """How structured-merge-diff prints the value it could not type: ``&value.valueUnstructured{Value:1}``."""
    if isinstance(value, bool):
        shown = "true" if value else "false"
    elif isinstance(value, dict):
        shown = "map[" + " ".join(f"{key}:{item}" for key, item in value.items()) + "]"
    elif isinstance(value, list):
        shown = "[]interface {}{...}"
    else:
        shown = str(value)
    return f"&value.valueUnstructured{{Value:{shown}}}"


def _typed(value: Any, shape: Any, path: str, is_unknown: Callable[[Any], bool]) -> list[FieldError]:
    """structured-merge-diff's conversion of ``value`` to ``shape``: the first mismatch, as it reports it (none
    about a value unknown at preview: its type is the one the program will send)."""
    if value is None or shape == RAW or is_unknown(value):
        return []
    expected = "map" if isinstance(shape, dict) and "list" not in shape else "list" if isinstance(shape, dict) else shape
    fits = {
        STRING: isinstance(value, str),
        TIME: isinstance(value, str),  # a string to the typed conversion; its format is the decoder's
        BOOL: isinstance(value, bool),
        INT64: isinstance(value, int | float) and not isinstance(value, bool),
        "map": isinstance(value, dict),
        "list": isinstance(value, list),
    }[expected]
    if not fits:
        word = {INT64: "numeric (int or float)", TIME: "string"}.get(expected, expected)
        return [FieldError(path, UNTYPED, f"{path}: expected {word}, got {_go_unstructured(value)}", origin="server-side-apply")]
    if isinstance(shape, str):
        return []
    if "map" in shape:
        return [error for key, item in value.items() for error in _typed(item, shape["map"], f"{path}.{key}", is_unknown)]
    if "list" in shape:
        return [error for item in value for error in _typed(item, shape["list"], path, is_unknown)]
    found = []
    for key, item in value.items():
        if key not in shape:
            found.append(
                FieldError(f"{path}.{key}", UNTYPED, f"{path}.{key}: field not declared in schema", origin="server-side-apply")
            )
        else:
            found += _typed(item, shape[key], f"{path}.{key}", is_unknown)
    return found


def typed_errors(metadata: Any, is_unknown: Callable[[Any], bool]) -> list[FieldError]:
    """Step 1: server-side apply's typed conversion of ``metadata``, and its refusal of ``managedFields``."""
    found = _typed(metadata, OBJECT_META, ".metadata", is_unknown)
    finalizers = metadata.get("finalizers") if isinstance(metadata, dict) else None
    if isinstance(finalizers, list):  # ObjectMeta's finalizers are a set (+listType=set): a repeat is refused
        repeated = [item for position, item in enumerate(finalizers) if item in finalizers[:position]]
        for item in dict.fromkeys(json.dumps(item) for item in repeated):
            message = f".metadata.finalizers: duplicate entries for key [={item}]"
            found.append(FieldError(".metadata.finalizers", UNTYPED, message, origin="server-side-apply"))
    if isinstance(metadata, dict) and metadata.get("managedFields") is not None:
        found.append(
            FieldError("metadata.managedFields", UNTYPED, "metadata.managedFields must be nil", origin="server-side-apply")
        )
    return found


def dns1123_subdomain(value: str) -> list[str]:
    """util/validation ``IsDNS1123Subdomain`` (what ``NameIsDNSSubdomain`` calls)."""
    found = ["must be no more than 253 characters"] if len(value) > 253 else []
    if not _DNS_SUBDOMAIN_RE.fullmatch(value):
        message = (
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
            "start and end with an alphanumeric character"
        )
        found.append(_regex_error(message, _DNS_SUBDOMAIN, "example.com"))
    return found


def _dns1123_label(value: str) -> list[str]:
    found = ["must be no more than 63 bytes"] if len(value) > 63 else []
    if not _DNS_LABEL_RE.fullmatch(value):
        if _DNS_SUBDOMAIN_RE.fullmatch(value):
            found.append("must not contain dots")
        else:
            message = (
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
                "and end with an alphanumeric character"
            )
            found.append(_regex_error(message, _DNS_LABEL, "my-name", "123-abc"))
    return found


def qualified_name(value: str) -> list[str]:
    """content/kube.go ``IsLabelKey`` (``IsQualifiedName``)."""
    parts = value.split("/")
    if len(parts) > 2:
        message = (
            "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
        )
        return [
            "a valid label key "
            + _regex_error(message, _LABEL_KEY, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    found: list[str] = []
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            found.append("prefix part must be non-empty")
        else:
            found += [f"prefix part {message}" for message in dns1123_subdomain(prefix)]
    if not name:
        found.append("name part must be non-empty")
    elif len(name) > 63:
        found.append("name part must be no more than 63 bytes")
    if not _LABEL_KEY_RE.fullmatch(name):
        message = (
            "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
        )
        found.append("name part " + _regex_error(message, _LABEL_KEY, "MyName", "my.name", "123-abc"))
    return found


def _label_value(value: str) -> list[str]:
    found = ["must be no more than 63 bytes"] if len(value) > 63 else []
    if not _LABEL_VALUE_RE.fullmatch(value):
        message = (
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
            "start and end with an alphanumeric character"
        )
        found.append(_regex_error(message, f"({_LABEL_KEY})?", "MyValue", "my_value", "12345"))
    return found


def _strings(value: Any) -> dict[str, str]:
    return {key: item for key, item in value.items() if isinstance(item, str)} if isinstance(value, dict) else {}


def _names(metadata: dict, known: Callable[[Any], bool]) -> list[FieldError]:
    found = []
    generate = metadata.get("generateName")
    if isinstance(generate, str) and generate and known(generate):
        masked = generate[:-1] + "a" if generate.endswith("-") else generate  # NameIsDNSSubdomain(prefix=true)
        found += [
            FieldError("metadata.generateName", INVALID, message, generate, "metadata") for message in dns1123_subdomain(masked)
        ]
    name = metadata.get("name")
    if isinstance(name, str) and name and known(name):  # absent: Pulumi names it; kubectl refuses it before sending
        found += [FieldError("metadata.name", INVALID, message, name, "metadata") for message in dns1123_subdomain(name)]
    namespace = metadata.get("namespace")
    if isinstance(namespace, str) and namespace and known(namespace):
        found += [
            FieldError("metadata.namespace", INVALID, message, namespace, "metadata") for message in _dns1123_label(namespace)
        ]
    generation = metadata.get("generation")
    if isinstance(generation, int | float) and not isinstance(generation, bool) and generation < 0:
        found.append(FieldError("metadata.generation", INVALID, "must be greater than or equal to 0", generation, "metadata"))
    return found


def _labels_and_annotations(metadata: dict, known: Callable[[Any], bool]) -> list[FieldError]:
    found = []
    labels = metadata.get("labels") if isinstance(metadata.get("labels"), dict) else {}
    for key, value in labels.items():
        value = "" if value is None else value  # a null is Go's empty string in a map[string]string
        if not isinstance(value, str):
            continue  # the typed conversion refused it
        if known(key):
            found += [FieldError("metadata.labels", INVALID, message, key, "metadata") for message in qualified_name(key)]
        if known(value):
            found += [FieldError("metadata.labels", INVALID, message, value, "metadata") for message in _label_value(value)]
    annotations = metadata.get("annotations") if isinstance(metadata.get("annotations"), dict) else {}
    for key in annotations:
        if known(key):
            found += [
                FieldError("metadata.annotations", INVALID, message, key, "metadata") for message in qualified_name(key.lower())
            ]
    values = _strings(annotations)
    if all(known(value) for value in values.values()):
        total = sum(len(key.encode()) + len(value.encode()) for key, value in values.items())
        if total > TOTAL_ANNOTATION_SIZE_LIMIT:
            found.append(
                FieldError("metadata.annotations", TOO_LONG, f"may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes")
            )
    return found


def _owners_and_finalizers(metadata: dict) -> list[FieldError]:
    found = []
    owners = metadata.get("ownerReferences") if isinstance(metadata.get("ownerReferences"), list) else []
    controllers = []
    for owner in owners:
        if not isinstance(owner, dict):
            continue
        version = str(owner.get("apiVersion") or "").rpartition("/")[2]
        checks = (("apiVersion", version, "version must not be empty"), ("kind", owner.get("kind"), "must not be empty"))
        checks += (("name", owner.get("name"), "must not be empty"), ("uid", owner.get("uid"), "must not be empty"))
        found += [
            FieldError(f"metadata.ownerReferences.{field}", INVALID, message, owner.get(field) or "", "metadata")
            for field, value, message in checks
            if not value
        ]
        if owner.get("controller") is True:
            controllers.append(f"{owner.get('kind')}/{owner.get('name')}")
    if len(controllers) > 1:
        message = f'Only one reference can have Controller set to true. Found "true" in references for {controllers[0]} and {controllers[1]}'
        found.append(FieldError("metadata.ownerReferences", INVALID, message, "", "metadata"))
    listed = metadata.get("finalizers") if isinstance(metadata.get("finalizers"), list) else []  # else typed_errors
    finalizers = [item for item in listed if isinstance(item, str)]
    for finalizer in finalizers:
        found += [
            FieldError("metadata.finalizers", INVALID, message, finalizer, "metadata") for message in qualified_name(finalizer)
        ]
    if _FINALIZER_ORPHAN in finalizers and _FINALIZER_FOREGROUND in finalizers:
        message = f"finalizer {_FINALIZER_ORPHAN} and {_FINALIZER_FOREGROUND} cannot be both set"
        found.append(FieldError("metadata.finalizers", INVALID, message, "", "metadata"))
    return found


def metadata_errors(metadata: Any, is_unknown: Callable[[Any], bool]) -> list[FieldError]:
    """Step 2, ``ValidateObjectMetaAccessor`` (none about a value unknown at preview)."""
    if not isinstance(metadata, dict):
        return []

    def known(value: Any) -> bool:
        return not is_unknown(value)

    return _names(metadata, known) + _labels_and_annotations(metadata, known) + _owners_and_finalizers(metadata)
