"""Manifests and values read as kubectl and Helm read them: the one reader of Kubernetes YAML.

kubectl (``apply -f``, ``create -f``) reads a stream with cli-runtime v0.36.3 ``StreamVisitor``: apimachinery
v0.36.3 ``util/yaml.NewYAMLOrJSONDecoder`` takes it as JSON when its first non-space character (within 4 KiB)
is ``{``, else splits it into documents on lines that start with ``---`` (``YAMLReader``; anything but a
comment after the dashes is ``invalid Yaml document separator``; lines end at ``\\n`` with a ``\\r`` before it
dropped) and reads each with sigs.k8s.io/yaml v1.6.0 over go.yaml.in/yaml/v2 v2.4.3: YAML 1.1 scalars as go-yaml
resolves them (go_scalars), maps and merges as go-yaml decodes them (decode), JSON as sigs.k8s.io/yaml and
apimachinery make of them (to_json). A blank or ``null`` document is skipped. The API server reads an apply
request's YAML with the same code (apiserver ``handlers/patch.go``: ``util/yaml.Unmarshal``), and Helm reads a
values file with sigs.k8s.io/yaml too (``chartutil.ReadValues``: the first document of the file).

Every value keeps its position: :class:`Document` ``marks`` maps a JSON path (keys and list indices) to its
(line, column), 1-based, in the file (documents read as JSON carry the position of the document alone).
tests/core/test_kube_yaml_oracle.py holds this reader to kubectl's own code (tests/core/go_kube_yaml).
"""

from __future__ import annotations

from .stream import MAX_DEPTH, Document, KubeYamlError, read_first_document, read_stream

__all__ = ["MAX_DEPTH", "Document", "KubeYamlError", "read_first_document", "read_stream"]
