"""The database layer's plan, as data: custom resources, backups, proxy configuration, Job scripts, chart
sources and pinned versions, network policies. Pure (no Pulumi): the components of
:mod:`percona_mysql_k8s.database` register what these modules decide.
"""
