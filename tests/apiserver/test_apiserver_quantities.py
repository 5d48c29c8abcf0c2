"""Quantities: the project's reader (core.quantity) against a real API server, both ways.

Each quantity goes into a Pod (a built-in object: ``Quantity.UnmarshalJSON`` then ParseQuantity and the
Pod's validation) and into a PerconaServerMySQL (the CRD's pattern and int-or-string schema), applied with
``dryRun=All`` in ``default``: nothing is stored. The API server's verdict must be the reader's, and for a
Pod the amount it stores (re-serialized in canonical form) must read as the same number of bytes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from kubernetes.dynamic.exceptions import DynamicApiError
from percona_mysql_k8s.core.quantity import CRD_PATTERN, QuantityError, Schema, parse_quantity
from percona_mysql_k8s.core.units import memory_to_bytes
from test_apiserver_rejects import good_spec

pytestmark = pytest.mark.apiserver

# Other people's notation, legal and not: each row is sent as written.
QUANTITIES = [
    "1Gi",
    "1.5Gi",
    "1.",
    ".5Gi",
    "+2Gi",
    "007Mi",
    "1E",
    "1e9",
    "1E+9",
    "1e-3",
    "0.1n",
    "9Ei",
    "1e4294967305",
    " 1Gi",
    "1Gi ",
    "1Gi\n",
    "\t1Gi",
    "\u00a01Gi",
    "\u30001Gi",
    "\x851Gi",
    "\u20281Gi",
    "-",
    "Gi",
    "1e",
    "1K",
    "1ki",
    "8GB",
    "1KiB",
    "1e2.5",
    "1.2.3",
    "٣Gi",
    "３Gi",
    "1 Gi",
    "\x1f1Gi",
    2147483648,
    1.5,
    1e9,
]


def _pod(memory) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "quantity", "namespace": "default"},
        "spec": {
            "containers": [
                {"name": "c", "image": "busybox", "resources": {"requests": {"memory": memory}, "limits": {"memory": memory}}}
            ]
        },
    }


def _ps(memory) -> dict:
    spec = good_spec()
    spec["mysql"]["resources"] = {"requests": {"memory": memory}, "limits": {"memory": memory}}
    return {
        "apiVersion": "ps.percona.com/v1",
        "kind": "PerconaServerMySQL",
        "metadata": {"name": "quantity", "namespace": "default"},
        "spec": spec,
    }


def _verdict(cluster, body) -> tuple[bool, dict | str]:
    try:
        return True, cluster.apply(body, dry_run=True)
    except DynamicApiError as error:
        return False, f"{error.status} {error.reason}"


@pytest.mark.parametrize("quantity", QUANTITIES, ids=repr)
def test_a_pod_takes_exactly_what_the_reader_takes(cluster, quantity):
    accepted, stored = _verdict(cluster, _pod(quantity))
    try:
        ours = memory_to_bytes(quantity, Schema.BUILTIN)
    except QuantityError as error:
        ours = None
        # the Pod's own validation refuses what parses but is negative; nothing else differs
        assert not accepted, f"the API server took {quantity!r}, the reader refused it: {error}"
        return
    assert accepted, f"the reader took {quantity!r} as {ours} bytes, the API server refused it: {stored}"
    canonical = stored["spec"]["containers"][0]["resources"]["limits"]["memory"]
    assert memory_to_bytes(canonical, Schema.BUILTIN) == ours, canonical


@pytest.mark.parametrize("quantity", QUANTITIES, ids=repr)
def test_a_custom_resource_takes_what_the_crd_pattern_takes(cluster, reference: Path, quantity):
    """The API server checks only the CRD's pattern (and int-or-string); the operator then parses the string
    with ParseQuantity. The reader refuses what either refuses: the one quantity the API server stores and
    ParseQuantity refuses (a fractional exponent) is named here."""
    cluster.install_crds([reference / "ps-operator-v1.2.0-crd.yaml"])
    accepted, stored = _verdict(cluster, _ps(quantity))
    # a JSON number the API server decodes as a whole number (1e9 as 1000000000.0) is an integer to the schema
    whole = isinstance(quantity, int) or (isinstance(quantity, float) and quantity.is_integer())
    pattern_ok = whole or (isinstance(quantity, str) and re.fullmatch(CRD_PATTERN[1:-1], quantity, re.ASCII) is not None)
    assert accepted == pattern_ok, (quantity, stored)
    try:
        parse_quantity(quantity, Schema.CRD)
        ours = True
    except QuantityError:
        ours = False
    if quantity == "1e2.5":
        assert accepted and not ours  # stored by the API server, refused by the operator's ParseQuantity
    else:
        assert ours == accepted, (quantity, stored)
