"""S2: TLS stays on. No ``tls.enabled: false``, no ``unsafeFlags.tls``, no ``allowUnsafeConfigurations``
(which forces TLS off), and no my.cnf that turns mysqld's TLS off
(``ssl=OFF``, ``skip_ssl``, an empty ``tls_version``).
"""

from __future__ import annotations

from ._framework import Context, Spec, resource_policy
from ._subjects import database, database_types

SPEC = Spec(
    name="tls-on",
    rules=("S2",),
    applies_to=database_types,
    description="TLS stays on: no tls.enabled false, no unsafeFlags.tls, no allowUnsafeConfigurations, no ssl off in my.cnf",
    remediation="Remove the TLS-disabling setting; the operators generate certificates (or use cert-manager).",
)

_OFF = {"off", "0", "false", "no"}


def check(ctx: Context) -> None:
    view = database(ctx, "S2")
    if view is None:
        return
    with ctx.checking("S2"):
        findings = []
        if view.operator == "pxc":
            if not view.flag("tls.enabled", True):
                findings.append((view.path("tls.enabled"), "is false", "remove tls.enabled: false"))
            if view.flag("unsafeFlags.tls"):
                findings.append((view.path("unsafeFlags.tls"), "is true", "remove unsafeFlags.tls"))
            if view.flag("allowUnsafeConfigurations"):
                findings.append(
                    (
                        view.path("allowUnsafeConfigurations"),
                        "is true, which forces TLS off",
                        "remove allowUnsafeConfigurations and set the individual unsafeFlags you need",
                    )
                )
        for path, what, fix in findings:
            ctx.violation("S2", f"{path} {what}", "the rule keeps TLS on", fix, field=path)
    with ctx.checking("S2"):
        options = view.options()
        where = view.path(view.config_rel)
        off = {
            "ssl": options.get("ssl", "on").strip().lower() in _OFF,
            "skip_ssl": "skip_ssl" in options,
            "tls_version": options.get("tls_version", "x").strip() == "",
        }
        if any(off.values()):
            settings = view.effective().settings
            lines = (view.config_text() or "").splitlines()
            culprits = sorted(
                {settings[key].line for key, is_off in off.items() if is_off and key in settings and settings[key].line}
            )
            named = ", ".join(f"line {n} ({lines[n - 1].strip()})" for n in culprits if 0 < n <= len(lines))
            ctx.violation(
                "S2",
                f"{where} turns mysqld's TLS off (ssl/skip_ssl/tls_version{': ' + named if named else ''})",
                "the rule keeps TLS on",
                f"remove {named or 'ssl=OFF, skip_ssl and an empty tls_version'} from {where}",
                field=view.config_field("ssl", "skip_ssl", "tls_version"),
            )


POLICY = resource_policy(SPEC, check)
