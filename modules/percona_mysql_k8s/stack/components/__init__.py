"""The package's components, one per cluster target, for every Pulumi language (provider/PulumiPlugin.yaml).

Generated from Pulumi.yaml by `.venv/bin/python provider/generate.py`: do not edit here
(tests/packaging/test_component_package.py fails when this module is stale).

Each component is the stack program on its target as one resource (percona_mysql_k8s.stack.program): its inputs
are that target's stack config keys, validated as the stack validates them before any resource exists. The
inputs the sizing reads are plain values (TypeScript, Go and C# type them so): every size is decided when the
component is constructed, so they must be known then; a secret passes as an Input. The provider host
(provider/__main__.py) infers the schema from the annotations of the modules beside this one.
"""

from .eks import MysqlOnEks, MysqlOnEksArgs
from .existing import MysqlOnExistingCluster, MysqlOnExistingClusterArgs
from .gke import MysqlOnGke, MysqlOnGkeArgs
from .kind import MysqlOnKind, MysqlOnKindArgs

COMPONENTS = [MysqlOnGke, MysqlOnEks, MysqlOnKind, MysqlOnExistingCluster]

__all__ = [
    "COMPONENTS",
    "MysqlOnEks",
    "MysqlOnEksArgs",
    "MysqlOnExistingCluster",
    "MysqlOnExistingClusterArgs",
    "MysqlOnGke",
    "MysqlOnGkeArgs",
    "MysqlOnKind",
    "MysqlOnKindArgs",
]
