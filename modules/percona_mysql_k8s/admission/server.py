"""``percona-mysql-admission serve``: the packs, the Node watch, the audit sweep, the metrics and the HTTPS server,
started in that order and stopped in the reverse one.

uvicorn serves the application with TLS only (its ``ssl_certfile``/``ssl_keyfile``; TLS 1.2 at least, Python's
``ssl`` defaults): a plaintext HTTP request fails its handshake and gets no answer. The metrics are served by
prometheus_client's own server on their port, with the same certificate.
"""

from __future__ import annotations

import logging
import signal
import ssl

import uvicorn
from kubernetes import client, config  # the admission extra's, like uvicorn: imported here so a missing one is named
from kubernetes.config.config_exception import ConfigException
from prometheus_client import start_http_server

from .app import build_app
from .judge import Judge
from .metrics import Metrics
from .nodes import NodeCache

LOG = logging.getLogger("percona_mysql_k8s.admission")


def _api_client(kubeconfig: str | None):
    if kubeconfig:
        return config.new_client_from_config(config_file=kubeconfig)
    try:
        config.load_incluster_config()
        return client.ApiClient()
    except ConfigException:
        return config.new_client_from_config()


def _stopped(signum, _frame) -> None:
    """What a SIGTERM does once uvicorn has shut down gracefully (it re-raises the signal it caught): leave through
    ``serve``'s cleanup, so the packs stop with the server, and exit 0."""
    raise SystemExit(0)


def serve(args, policy_config: dict) -> int:

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    metrics = Metrics()
    cache = NodeCache()
    judge = Judge(pack_dir=args.policy_pack, policy_config=policy_config, workers=args.workers, nodes=cache.snapshot)
    auditor = None
    try:
        if args.no_cluster:
            cache.listed.set()
        else:
            api_client = _api_client(args.kubeconfig)
            cache.start(api_client)
            metrics.nodes.set_function(lambda: len(cache.snapshot()[1]))
            if args.audit_seconds > 0:
                from .audit import Auditor, kubernetes_recorder

                list_objects, record_event = kubernetes_recorder(api_client)
                auditor = Auditor(judge, metrics, list_objects=list_objects, record_event=record_event)
                cache.listed.wait(30)  # the first sweep judges with the Nodes when they come in time
                auditor.start(args.audit_seconds)
        if args.metrics_port:
            start_http_server(
                args.metrics_port,
                addr=args.host,
                registry=metrics.registry,
                certfile=str(args.cert),
                keyfile=str(args.key),
                tls_min_version=ssl.TLSVersion.TLSv1_2,
            )
        app = build_app(judge, mode=args.mode, metrics=metrics, ready=cache.listed.is_set)
        server_config = uvicorn.Config(
            app,
            host=args.host,
            port=args.port,
            ssl_certfile=str(args.cert),
            ssl_keyfile=str(args.key),
            log_level="warning",
            access_log=False,  # the app logs each review itself, without the object
            timeout_graceful_shutdown=10,
        )
        for stop in (signal.SIGTERM, signal.SIGINT):
            signal.signal(stop, _stopped)
        LOG.info("serving %s mode on https://%s:%d/validate", args.mode, args.host, args.port)
        uvicorn.Server(server_config).run()
    finally:
        if auditor is not None:
            auditor.stop()
        cache.stop()
        judge.close()
    return 0
