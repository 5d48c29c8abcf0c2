"""The plan: what to deploy, decided from the stack config before any resource exists (issue 23).

Pure (no Pulumi import; an import-linter contract and tests/plan/test_purity.py hold it), between the core and
the components::

    core  ->  plan  ->  components (clusters, database)  ->  stack (the program, the package's shells)

* :mod:`percona_mysql_k8s.plan.clusters`: the cluster plan, one module per target (gke, eks, kind, existing) and
  the shape every target decides (:class:`~percona_mysql_k8s.plan.clusters.shape.ClusterSettings`);
* :mod:`percona_mysql_k8s.plan.database`: custom resources, backups, proxy configuration, Job scripts,
  chart sources and versions, network policies, as data;
* :mod:`percona_mysql_k8s.plan.config`: the one config decoder, the stack config to typed settings, each setting
  decoded and parsed once (the backup schedule into a CronSchedule everything downstream receives).

The components (:mod:`percona_mysql_k8s.clusters`, :mod:`percona_mysql_k8s.database`) take these plans and register
resources; the offline check, the policy pack and the tests read the same plans. See docs/architecture.md.
"""
