"""Custom resources as the Kubernetes API server admits them, against the pinned operators' CRDs.

The one reader of the CRD format (OpenAPI v3 structural schemas and ``x-kubernetes-validations`` CEL rules):
:func:`admit` says whether the API server would accept a PerconaXtraDBCluster, a PerconaServerMySQL or one of
their backup and restore kinds, why not (each reason worded as the API server words it), and what it would
store (pruned and defaulted), which is what the operator then reads. The policy pack (rule C1) and the tests
read custom resources through it. The schemas ship with the package (``schemas/``, core.crd.generate); the
OpenAPI half runs on jsonschema, the CEL half on cel-expr-python (Google's CEL runtime), each with Kubernetes'
semantics where they differ, cited in the modules: structural (numbers, undeclared fields, pruning, nulls,
defaults), openapi, listtype, cel; admission puts them in the API server's order.
"""

from .admission import CEL_SKIPPED, KUBECTL, PULUMI, Admission, admit
from .catalog import kinds, sources
from .cel import Unjudged
from .errors import FieldError

__all__ = ["CEL_SKIPPED", "KUBECTL", "PULUMI", "Admission", "FieldError", "Unjudged", "admit", "kinds", "sources"]
