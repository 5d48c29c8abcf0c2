"""The pack's rules at admission: ``percona-mysql-admission`` serves Kubernetes AdmissionReview v1 over HTTPS and
judges the Percona custom resources (clusters, backups, restores) with the offline checker's own path, beside the
cluster's Nodes (docs/admission.md). Needs the ``admission`` extra: ``pip install "percona-mysql-k8s[admission]"``.

``review`` (the protocol), ``judge`` (the verdict), ``nodes`` (the watched Node cache), ``audit`` (the sweep),
``metrics``, ``app`` (the ASGI application), ``server`` and ``cli`` (the command), ``tls`` (certificates for the
manifests renderer).
"""
