"""The admission* keys: off unless asked, validated before any resource (each error names its key), failurePolicy
Fail on production stacks and Ignore on ephemeral ones, and two replicas reserved on the monitoring pool (K5)."""

from __future__ import annotations

import pytest
from config_bases import GKE, HOST, KIND
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.monitoring import ADMISSION_REPLICAS, ADMISSION_SERVER
from percona_mysql_k8s.plan.config import stack_settings_from_config

IMAGE = "registry.example/percona-mysql-admission:0.2.0"
ON = {"admission": "enforce", "admissionImage": IMAGE, "admissionApiServerCidrs": ["172.16.0.0/28"]}


def settings(values):
    return stack_settings_from_config(values, host=lambda: HOST)


def test_off_by_default():
    assert settings(GKE).admission is None and settings(GKE).monitoring.admission is None


def test_a_production_stack_fails_closed_on_the_monitoring_pool():
    found = settings({**GKE, **ON})
    admission = found.admission
    assert admission.failure_policy == "Fail" and admission.api_server_cidrs == ("172.16.0.0/28",)
    assert admission.placement["nodeSelector"] == found.cluster.monitoring_pool.placement().as_pod_spec()["nodeSelector"]
    assert admission.metrics_namespaces == (found.database.namespace,)
    without = settings(GKE).monitoring.total
    assert found.monitoring.total.memory_bytes - without.memory_bytes == ADMISSION_REPLICAS * ADMISSION_SERVER.memory_bytes


def test_an_ephemeral_stack_ignores_failures_and_may_leave_the_api_server_open():
    admission = settings({**KIND, "admission": "warn", "admissionImage": IMAGE}).admission
    assert admission.failure_policy == "Ignore" and admission.api_server_cidrs == ()


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"admission": "strict"}, "admission"),
        ({"admissionImage": ""}, "admissionImage"),
        ({"admissionImage": "has space"}, "admissionImage"),
        ({"admissionApiServerCidrs": []}, "admissionApiServerCidrs"),
        ({"admissionApiServerCidrs": ["172.16.0.1/28"]}, "admissionApiServerCidrs"),  # host bits set
        ({"admissionApiServerCidrs": ["not-a-cidr"]}, "admissionApiServerCidrs"),
        ({"admissionAuditSeconds": 5}, "admissionAuditSeconds"),
        ({"admissionAuditSeconds": 10**6}, "admissionAuditSeconds"),
    ],
)
def test_bad_values_name_their_key(change, key):
    with pytest.raises(InputError) as raised:
        settings({**GKE, **ON, **change})
    assert raised.value.key == key


def test_a_setting_without_the_server_is_refused():
    with pytest.raises(InputError) as raised:
        settings({**GKE, "admissionImage": IMAGE})
    assert raised.value.key == "admissionImage"


def test_a_monitoring_node_too_small_for_the_replicas_is_k5():
    small = {**GKE, "monitoringNodeType": "e2-standard-4", "daemonsetCpu": "1500m", "installPmm": False, "pmmEnabled": False}
    settings(small)  # it holds the rest
    with pytest.raises(InputError) as raised:
        settings({**small, **ON})
    assert raised.value.rule == "K5" and "the admission server (2 replicas)" in raised.value.message
