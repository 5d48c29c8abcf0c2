"""The component package's entry point: the Python component provider host serving one component per target.

The CLI runs ``venv/bin/python <this directory> <engine address>`` (the Python language host's RunPlugin);
``component_provider_host`` infers the schema from the components' annotations (their Args TypedDicts and
output annotations, docstrings as descriptions) and serves Construct for them. The components are generated
from Pulumi.yaml (provider/generate.py) into percona_mysql_k8s.stack.components.
"""

import sys

try:
    from percona_mysql_k8s import __version__
    from percona_mysql_k8s._tokens import PACKAGE
    from percona_mysql_k8s.stack.components import COMPONENTS
except ModuleNotFoundError as error:
    if error.name != "percona_mysql_k8s":
        raise
    sys.exit(
        f"error: the component package's library (percona_mysql_k8s) is not installed in this virtualenv "
        f"({sys.prefix}): run `venv/bin/pip install -r requirements.txt` in the provider/ directory of the "
        "percona-mysql-k8s repository (pulumi package add does it)."
    )

from pulumi.provider.experimental import component_provider_host  # noqa: E402 - after the library is found

if __name__ == "__main__":
    component_provider_host(components=COMPONENTS, name=PACKAGE, version=__version__)
