"""The stacks refuse, at config time, a cluster name the operator would refuse (rule C2), with the operator's own
definition (core.operator_validation) and one line naming the key."""

from __future__ import annotations

import pytest
from percona_mysql_k8s.core import operator_validation
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.plan.database.spec import DatabaseSpec


@pytest.mark.parametrize("engine", ["pxc", "group-replication"])
def test_a_name_the_pxc_operator_refuses_is_refused_with_its_words_for_either_engine(engine):
    name = "orders-eu-west-production"
    assert operator_validation.cluster_name_problem(name)
    with pytest.raises(InputError) as raised:
        DatabaseSpec(name=name, namespace="mysql", engine=engine)
    message = str(raised.value)
    assert (raised.value.key, raised.value.rule) == ("dbClusterName", "C2")
    assert message.startswith("C2: dbClusterName: 'orders-eu-west-production' is 25 characters")
    assert "cluster name (orders-eu-west-production) too long, must be no more than 22 characters" in message
    assert "e.g. 'orders-eu-west-product'" in message and "\n" not in message
    DatabaseSpec(name="orders-eu-west-product", namespace="mysql", engine=engine)  # the suggestion is taken


def test_the_limit_is_the_operators():
    assert operator_validation.CLUSTER_NAME_MAX == 22
    assert operator_validation.cluster_name_problem("a" * 22) is None
    assert operator_validation.cluster_name_problem("a" * 23)


@pytest.mark.parametrize("name", ["a" * 23, "a-" * 11 + "b"])
def test_the_suggested_name_is_one_the_api_server_and_the_operator_take(name):
    DatabaseSpec(name=operator_validation.shorten_cluster_name(name), namespace="mysql")
