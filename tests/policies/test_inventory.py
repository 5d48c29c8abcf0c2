"""The offline check's resource listing: sizes found wherever Kubernetes and the providers declare them."""

from percona_mysql_k8s.cli.inventory import sizes_of


def test_a_deployment_written_by_hand():
    # requests without limits, a CPU as a bare number, memory in decimal units, an unnamed container
    deployment = {
        "spec": {
            "replicas": 2.0,
            "template": {
                "spec": {
                    "containers": [
                        {"name": "app", "resources": {"requests": {"cpu": 0.5, "memory": "512M"}}},
                        {"resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "250m", "memory": "1Gi"}}},
                    ]
                }
            },
        }
    }
    sizes = {entry.path: entry for entry in sizes_of(deployment)}
    assert sizes["spec"].shape == {"replicas": 2}  # 2.0 as it crosses the engine's protocol
    app = sizes["spec.template.spec.containers[app]"]
    # one style whatever the spelling: 0.5 CPU = 500m; 512M = 512 * 10**6 bytes = 488.28 MiB
    assert app.describe() == "spec.template.spec.containers[app]: cpu 500m request, no limit, memory 488.28 MiB request, no limit"
    assert app.normalized() == {"cpu_millicores": 500, "memory_bytes": 512 * 10**6}
    second = sizes["spec.template.spec.containers[1]"]
    assert second.describe() == (
        "spec.template.spec.containers[1]: cpu 250m request, 1000m limit, memory 1.00 GiB (request = limit)"
    )


def test_a_claim_a_node_pool_and_bytes_as_a_number():
    claim = {"spec": {"resources": {"requests": {"storage": "50Gi"}}}}
    assert [s.describe() for s in sizes_of(claim)] == ["spec: storage 50.00 GiB"]
    pool = {"nodeCount": 3.0, "nodeConfig": {"machineType": "n2-standard-16", "diskSizeGb": 100.0}}
    assert [s.describe() for s in sizes_of(pool)] == [
        "inputs: nodeCount 3",
        "nodeConfig: machineType n2-standard-16, diskSizeGb 100",
    ]
    # 236431884 bytes / 2**20 = 225.48 MiB
    sidecar = {"pmm": {"resources": {"requests": {"memory": "236431884"}, "limits": {"memory": 236431884.0}}}}
    assert sizes_of(sidecar)[0].describe() == "pmm: memory 225.48 MiB (request = limit)"


def test_unknowns_and_rbac_lists_are_not_sizes():
    # a Role's rules[].resources is a list of resource names, not ResourceRequirements
    role = {"rules": [{"resources": ["pods"], "verbs": ["get"]}]}
    assert sizes_of(role) == []
    unknown = {"spec": {"resources": {"requests": {"cpu": None, "memory": "1Gi"}}}}
    (entry,) = sizes_of(unknown)
    assert entry.normalized() == {"memory_bytes": 2**30}  # the unknown CPU is shown as declared only
