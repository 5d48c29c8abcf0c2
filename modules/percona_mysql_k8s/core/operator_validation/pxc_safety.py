"""The PXC operator 1.20.0's safe-configuration checks (``checkSafeDefaults``, 1501-1531), configuration templates
(``executeConfigurationTemplate``, 1648-1669) and TLS validity durations (1392-1405); every source line cited is in
pkg/apis/pxc/v1/pxc_types.go. Each check yields (path, what it holds, the operator's words, the fix)."""

from __future__ import annotations

from typing import Any

from ..go_text import NANOSECONDS_PER_HOUR, GoSyntaxError, go_duration_ns
from .model import ABSENT, Reader
from .pxc_basics import (
    DEFAULT_CA_HOURS,
    DEFAULT_CERT_HOURS,
    MAX_SAFE_PXC_SIZE,
    MIN_SAFE_PROXY_SIZE,
    MINIMUM_CERT_HOURS,
    RENEW_BEFORE_HOURS,
    SAFE_DEFAULTS_SINCE,
    Found,
    cr_version,
    has_pxc,
)


def unsafe(r: Reader, flag: str) -> bool:
    """An unsafe flag as CheckNSetDefaults sets them: allowUnsafeConfigurations turns on all of them (1150-1159)."""
    return r.flag("spec.allowUnsafeConfigurations") or r.flag(f"spec.unsafeFlags.{flag}")


def tls_enabled(r: Reader) -> bool:
    """``*cr.Spec.TLS.Enabled`` after CheckNSetDefaults: true when unset, false under allowUnsafeConfigurations."""
    if r.flag("spec.allowUnsafeConfigurations"):
        return False
    value = r.get("spec.tls.enabled")
    return True if value is ABSENT else r.flag("spec.tls.enabled")


def _safe_defaults_apply(r: Reader) -> bool:
    version = cr_version(r)
    return has_pxc(r) and version is not None and version.at_least(SAFE_DEFAULTS_SINCE) and not r.flag("spec.pause")


def safe_tls(r: Reader) -> Found:
    if _safe_defaults_apply(r) and not unsafe(r, "tls") and not tls_enabled(r):
        yield (
            "spec.tls.enabled",
            "is false without spec.unsafeFlags.tls",
            "TLS must be enabled. Set spec.unsafeFlags.tls to true to disable this check",
            "set spec.tls.enabled: true (the operator generates the certificates)",
        )


def safe_pxc_size(r: Reader) -> Found:
    if not _safe_defaults_apply(r) or unsafe(r, "pxcSize"):
        return
    size = r.number("spec.pxc.size")
    words = None
    if size < 3:
        words = "PXC size must be at least 3"
    elif size > MAX_SAFE_PXC_SIZE:
        words = f"PXC size must be at most {MAX_SAFE_PXC_SIZE}"
    elif size % 2 == 0:
        words = "PXC size must be an odd number"
    if words:
        yield (
            "spec.pxc.size",
            f"is {size}",
            f"{words}. Set spec.unsafeFlags.pxcSize to true to disable this check",
            f"set spec.pxc.size: {3 if size < 4 else 5}",
        )


def safe_proxy_size(component: str, label: str) -> Any:
    def check(r: Reader) -> Found:
        if not _safe_defaults_apply(r) or not r.flag(f"spec.{component}.enabled") or unsafe(r, "proxySize"):
            return
        size = r.number(f"spec.{component}.size")
        if size < MIN_SAFE_PROXY_SIZE:
            yield (
                f"spec.{component}.size",
                f"is {size}",
                f"{label} size must be at least {MIN_SAFE_PROXY_SIZE}. Set spec.unsafeFlags.proxySize to true to disable this check",
                f"set spec.{component}.size: 3",
            )

    return check


def configuration_template(component: str) -> Any:
    """executeConfigurationTemplate (1648-1653): a ``{{`` template needs the container's memory limit."""

    def check(r: Reader) -> Found:
        if component == "pxc" and not has_pxc(r):
            return
        if component != "pxc" and not r.flag(f"spec.{component}.enabled"):
            return
        text = r.text(f"spec.{component}.configuration")
        if "{{" in text and r.get(f"spec.{component}.resources.limits.memory") is ABSENT:
            yield (
                f"spec.{component}.resources.limits.memory",
                f"is not set while spec.{component}.configuration uses a {{{{ }}}} template",
                "resources.limits[memory] should be specified for template usage in configuration",
                f"set spec.{component}.resources.limits.memory (and requests.memory equal to it)",
            )

    return check


def _durations(r: Reader) -> dict[str, int | None]:
    """The TLS validity durations in hours as CheckNSetDefaults defaults them; None where unreadable."""
    hours: dict[str, int | None] = {}
    for key, default in (("certValidityDuration", DEFAULT_CERT_HOURS), ("caValidityDuration", DEFAULT_CA_HOURS)):
        text = r.get(f"spec.tls.{key}")
        if text is ABSENT:
            hours[key] = default * NANOSECONDS_PER_HOUR
            continue
        try:
            hours[key] = go_duration_ns(r.text(f"spec.tls.{key}"))
        except GoSyntaxError:
            hours[key] = None
    return hours


def duration_syntax(r: Reader) -> Found:
    """metav1.Duration.UnmarshalJSON: a text time.ParseDuration refuses makes the whole object undecodable."""
    for key in ("certValidityDuration", "caValidityDuration"):
        path = f"spec.tls.{key}"
        text = r.get(path)
        if text is ABSENT:
            continue
        try:
            go_duration_ns(r.text(path))
        except GoSyntaxError as error:
            yield (
                path,
                f"is {text!r}, which Go's time.ParseDuration refuses",
                str(error),
                f"write {path} as a Go duration, e.g. {DEFAULT_CERT_HOURS if key.startswith('cert') else DEFAULT_CA_HOURS}h",
            )


def tls_durations(r: Reader) -> Found:
    """1392-1405: with TLS on, the certificates' validity (defaults 2160h and 26280h)."""
    if not has_pxc(r) or (unsafe(r, "tls") and not tls_enabled(r)):
        return
    found = _durations(r)
    cert, ca = found["certValidityDuration"], found["caValidityDuration"]
    if cert is None or ca is None:
        return  # the object is not even decoded (duration_syntax)
    hour = NANOSECONDS_PER_HOUR
    if cert < MINIMUM_CERT_HOURS * hour:
        yield (
            "spec.tls.certValidityDuration",
            f"is {r.text('spec.tls.certValidityDuration')}",
            f".spec.tls.certValidityDuration shouldn't be smaller than {MINIMUM_CERT_HOURS} hours",
            f"set spec.tls.certValidityDuration: {DEFAULT_CERT_HOURS}h (the operator's default), at least {MINIMUM_CERT_HOURS}h",
        )
    elif ca < cert:
        yield (
            "spec.tls.caValidityDuration",
            f"is {_hours(ca)}, shorter than the certificates' {_hours(cert)}",
            ".spec.tls.caValidityDuration shouldn't be smaller than .spec.tls.certValidityDuration",
            f"set spec.tls.caValidityDuration: {max(_whole_hours(cert), RENEW_BEFORE_HOURS + 1)}h or longer",
        )
    elif ca <= RENEW_BEFORE_HOURS * hour:
        yield (
            "spec.tls.caValidityDuration",
            f"is {_hours(ca)}",
            f".spec.tls.caValidityDuration should be greater than {RENEW_BEFORE_HOURS} hours",
            f"set spec.tls.caValidityDuration: {DEFAULT_CA_HOURS}h (the operator's default), above {RENEW_BEFORE_HOURS}h",
        )


def _whole_hours(nanoseconds: int) -> int:
    return -(-nanoseconds // NANOSECONDS_PER_HOUR)


def _hours(nanoseconds: int) -> str:
    return f"{nanoseconds / NANOSECONDS_PER_HOUR:g}h"
