"""``percona-mysql-admission``: the pack's rules at admission (docs/admission.md).

    percona-mysql-admission serve --mode enforce --cert tls.crt --key tls.key
    percona-mysql-admission manifests --mode enforce --image REGISTRY/percona-mysql-admission:TAG --tls-dir ./admission-tls

``serve`` answers AdmissionReview v1 over HTTPS only (``--cert``/``--key``; a plaintext request gets no answer), watches
the cluster's Nodes for the Node rules and, every ``--audit-seconds``, judges the Percona custom resources already
there (Events, metrics). ``manifests`` prints what the Pulumi component deploys, as YAML for ``kubectl apply`` or a
GitOps repository: one plan (percona_mysql_k8s.plan.admission), two renderers. Bad input exits 2 with one line.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import sys
from pathlib import Path

import yaml

from percona_mysql_k8s.core.command_line import Parser, parsed_or_error
from percona_mysql_k8s.core.errors import InputError, one_line
from percona_mysql_k8s.plan import admission as plan

LOG = logging.getLogger("percona_mysql_k8s.admission")


def _parser() -> Parser:
    parser = Parser(prog="percona-mysql-admission", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    serve = commands.add_parser("serve", help="answer AdmissionReviews over HTTPS")
    serve.add_argument("--mode", choices=plan.MODES, required=True)
    serve.add_argument("--cert", type=Path, required=True, help="the serving certificate (PEM); HTTPS only")
    serve.add_argument("--key", type=Path, required=True, help="its private key (PEM)")
    serve.add_argument("--host", default="0.0.0.0")
    serve.add_argument("--port", type=int, default=plan.WEBHOOK_PORT)
    serve.add_argument("--metrics-port", type=int, default=plan.METRICS_PORT, help="Prometheus metrics over TLS (0: none)")
    serve.add_argument("--audit-seconds", type=int, default=plan.AUDIT_SECONDS_DEFAULT, help="audit sweep interval (0: none)")
    serve.add_argument("--workers", type=int, default=1, help="policy pack processes: one review each at a time")
    serve.add_argument("--policy-config", type=Path, help="JSON policy config, as for `pulumi preview --policy-pack-config`")
    serve.add_argument("--policy-pack", type=Path, help="the pack's directory (default: the one the package ships)")
    serve.add_argument(
        "--kubeconfig", help="kubeconfig for the Node watch and the audit (default: in-cluster, else ~/.kube/config)"
    )
    serve.add_argument(
        "--no-cluster", action="store_true", help="no Node watch and no audit: judge reviews alone (benchmarks, tests)"
    )
    manifests = commands.add_parser("manifests", help="print the Kubernetes objects that deploy the server, as YAML")
    manifests.add_argument("--mode", choices=plan.MODES, required=True)
    manifests.add_argument("--image", required=True, help="the image built from modules/percona_mysql_k8s/admission/Dockerfile")
    manifests.add_argument("--namespace", default=plan.NAMESPACE)
    manifests.add_argument("--failure-policy", choices=("Fail", "Ignore"), default="Fail")
    manifests.add_argument("--audit-seconds", type=int, default=plan.AUDIT_SECONDS_DEFAULT)
    manifests.add_argument(
        "--api-server-cidr", action="append", default=[], help="where the API server calls from (repeatable; none: any address)"
    )
    manifests.add_argument(
        "--metrics-namespace", action="append", default=[], help="a namespace whose pods may scrape (repeatable)"
    )
    manifests.add_argument(
        "--node-selector", action="append", default=[], metavar="KEY=VALUE", help="the monitoring pool's labels"
    )
    manifests.add_argument("--toleration", action="append", default=[], metavar="KEY=VALUE:EFFECT", help="a taint of that pool")
    manifests.add_argument(
        "--tls-dir", type=Path, help="keep the CA and certificate here, reused and renewed on the next run (default: new ones)"
    )
    manifests.add_argument("--url", help="call the server at this URL instead of its Service (a server outside the cluster)")
    manifests.add_argument("--ip", action="append", default=[], help="an IP address the certificate names (with --url)")
    return parser


def _pairs(items: list[str], flag: str) -> dict[str, str]:
    pairs = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(flag, f"{item!r} is not KEY=VALUE")
        pairs[key] = value
    return pairs


def _tolerations(items: list[str]) -> list[dict[str, str]]:
    found = []
    for item in items:
        pair, sep, effect = item.rpartition(":")
        key, _, value = pair.partition("=")
        if not sep or not key or effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
            raise InputError("toleration", f"{item!r} is not KEY=VALUE:EFFECT (NoSchedule, PreferNoSchedule or NoExecute)")
        found.append({"key": key, "operator": "Equal", "value": value, "effect": effect})
    return found


def tls_for(material) -> plan.Tls:
    return plan.Tls(
        material.ca_pem,
        material.cert_pem,
        material.key_pem,
        base64.b64encode(material.ca_pem.encode()).decode(),
        hashlib.sha256(material.cert_pem.encode()).hexdigest(),
    )


def manifest_objects(args) -> list[dict]:
    from . import tls

    placement: dict = {}
    if args.node_selector:
        placement["nodeSelector"] = _pairs(args.node_selector, "node-selector")
    if args.toleration:
        placement["tolerations"] = _tolerations(args.toleration)
    settings = plan.AdmissionSettings(
        mode=args.mode,
        image=args.image,
        failure_policy=args.failure_policy,
        audit_seconds=args.audit_seconds,
        api_server_cidrs=tuple(args.api_server_cidr),
        metrics_namespaces=tuple(args.metrics_namespace),
        placement=placement,
        namespace=args.namespace,
    )
    plan.check_settings(settings)
    names = plan.dns_names(settings)
    material = tls.kept(args.tls_dir, names, args.ip) if args.tls_dir else tls.make(names, args.ip)
    objects = plan.admission_objects(settings, tls_for(material))
    if args.url:
        objects = [
            plan.webhook_configuration(settings, tls_for(material).ca_bundle, url=args.url)
            if o["kind"] == "ValidatingWebhookConfiguration"
            else o
            for o in objects
        ]
    return objects


def _missing(error: ModuleNotFoundError) -> int:
    """A package of the ``admission`` extra is not installed: say which extra installs it, in one line."""
    from percona_mysql_k8s._extras import missing_extra

    print(one_line(f"error: {missing_extra(error, __name__, 'admission')}"), file=sys.stderr)
    return 2


def _manifests(args) -> int:
    try:
        objects = manifest_objects(args)
    except InputError as error:
        print(one_line(f"error: {error}"), file=sys.stderr)
        return 2
    except ModuleNotFoundError as error:
        return _missing(error)
    print(
        "# percona-mysql-admission: the objects the Pulumi component deploys (docs/admission.md). The Secret holds the\n"
        "# webhook's private key: keep this output as a secret (never commit it in plain text)."
    )
    print(yaml.safe_dump_all(objects, sort_keys=False), end="")
    return 0


def _serve(args) -> int:
    from percona_mysql_k8s.cli.check import read_policy_config

    try:
        from .server import serve
    except ModuleNotFoundError as error:
        return _missing(error)

    try:
        policy_config = read_policy_config(args.policy_config)
    except ValueError as error:
        print(one_line(f"error: {error}"), file=sys.stderr)
        return 2
    for flag, path in (("--cert", args.cert), ("--key", args.key)):
        if not path.is_file():
            print(f"error: {flag} {path}: no such file (the server answers over HTTPS only)", file=sys.stderr)
            return 2
    if args.mode == "audit" and (args.no_cluster or args.audit_seconds <= 0):
        print("error: --mode audit needs the cluster and --audit-seconds above 0: it only sweeps", file=sys.stderr)
        return 2
    return serve(args, policy_config)


def main(argv: list[str] | None = None) -> int:
    args = parsed_or_error(_parser(), argv)
    if args is None:
        return 2
    return _manifests(args) if args.command == "manifests" else _serve(args)


if __name__ == "__main__":
    sys.exit(main())
