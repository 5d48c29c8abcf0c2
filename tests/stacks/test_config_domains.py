"""No silent accepts in stack config (issue 11 §4): every class of bad value stops the program with one
line naming the key, before any resource is registered; a misspelled key names the closest real one; a
plaintext PMM token is refused (S1); kind without its tools is a RunError, never a traceback."""

from __future__ import annotations

import pulumi
import pytest
from config_bases import EKS, GKE, HOST, KIND
from percona_mysql_k8s.cli import offline
from percona_mysql_k8s.clusters import kind as kind_component
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.plan.clusters import kind as kind_plan
from percona_mysql_k8s.stack.settings import check_config_keys, stack_settings_from_config


def settings(values):
    return stack_settings_from_config(values, host=lambda: HOST)


@pytest.mark.parametrize("base", [GKE, EKS, KIND], ids=["gke", "eks", "kind"])
def test_the_bases_are_valid(base):
    settings(base)


# (id, base, key, bad value): each a class of value that was accepted silently before
BAD = [
    ("quantity that is not one", GKE, "pmmStorageSize", "abc"),
    ("volume above the largest disk", GKE, "storageSize", "100Ti"),
    ("step longer than a day", GKE, "sysbenchDuration", 99_999_999_999),
    ("warm-up longer than a day", GKE, "sysbenchWarmup", 10**9),
    ("rate beyond any server", GKE, "sysbenchRate", 10**9),
    ("thread count of zero", GKE, "sysbenchThreads", [0, 4]),
    ("IOPS no volume offers", GKE, "diskIops", 10**9),
    ("connections above MySQL's maximum", GKE, "connections", 200_000),
    ("storage class that is not a name", GKE, "storageClass", "Fast SSD"),
    ("reserved namespace", GKE, "namespace", "kube-system"),
    ("namespace that is not a DNS label", GKE, "namespace", "My_DB"),
    ("a PMM host longer than a DNS name", {**GKE, "installPmm": False}, "pmmServerHost", ("a" * 60 + ".") * 4 + "a" * 10),
    ("a run id longer than its Job name allows", GKE, "sysbenchRunId", "a" * 17),
    ("GCE network that is not a name", GKE, "gkeNetwork", "my network"),
    ("GCE subnetwork that is not a name", GKE, "gkeSubnetwork", "../etc"),
    ("boot disk above the largest", GKE, "databaseDiskSizeGb", 100_000),
    ("node pool beyond any topology", GKE, "databaseNodeCount", 1000),
    ("EKS version that does not exist", EKS, "eksVersion", "1.99"),
    ("kind image that is not a reference", KIND, "kindNodeImage", "not an image!"),
    ("another target's key on gke", GKE, "kindHostShare", "0.5"),
    ("another target's key on kind", KIND, "gcpProject", "perf-project"),
    ("a node count kind would ignore", KIND, "databaseNodeCount", 5),
    ("an existing-cluster key on eks", EKS, "databasePoolLabels", "a=b"),
    # issue 20 §3: each refused with the key, the rule and the fix
    ("storage size in full-width digits", GKE, "storageSize", "１００Gi"),
    ("storage size in Arabic-Indic digits", GKE, "storageSize", "١٠٠Gi"),
    ("a PMM volume of one millibyte", GKE, "pmmStorageSize", "1m"),
    ("a PMM volume below what PMM needs", GKE, "pmmStorageSize", "10Gi"),
    ("backups more often than one can finish", GKE, "backupSchedule", "* * * * *"),
    ("PITR uploads less often than the retention", GKE, "pitrUploadSeconds", 8 * 86400),
    ("a retention beyond ten years", GKE, "backupRetentionDays", 4000),
    ("a count in Arabic-Indic digits", GKE, "diskIops", "١٢٠٠"),
    ("a fraction of a CPU as a host", KIND, "kindHostCpu", "7500m"),
    ("more CPUs than any host", KIND, "kindHostCpu", "100000"),
    ("more memory than any host", KIND, "kindHostMemory", "5Pi"),
    ("a host too small to run kind at all", KIND, "kindHostMemory", "11"),
    ("a share in Arabic-Indic digits", KIND, "kindHostShare", "٠.٥"),
    ("an await state no operator writes for it", GKE, "databaseAwait", "initialized"),
    ("an await that is not a string", KIND, "databaseAwait", True),
]


@pytest.mark.parametrize(("base", "key", "bad"), [case[1:] for case in BAD], ids=[case[0] for case in BAD])
def test_every_bad_value_class_names_its_key(base, key, bad):
    with pytest.raises(InputError) as error:
        settings({**base, key: bad})
    assert error.value.key == key, str(error.value)


@pytest.mark.parametrize("written", ["1,4,16", " 1, 4 ,16 ", "[1, 4, 16]"])
def test_a_thread_ladder_written_as_text_is_read_as_numbers(written):
    # `pulumi config set sysbenchThreads 1,4,16` stores text; its steps are the numbers it names
    assert settings({**KIND, "sysbenchEnabled": True, "sysbenchThreads": written}).sysbench.threads == (1, 4, 16)


@pytest.mark.parametrize(("written", "said"), [("1,four,16", "'1,four,16'"), (["1", "4"], "['1', '4']")])
def test_a_thread_ladder_that_is_no_list_of_numbers_is_named_whole(written, said):
    with pytest.raises(InputError) as error:
        settings({**GKE, "sysbenchThreads": written})
    assert error.value.key == "sysbenchThreads" and said in str(error.value), str(error.value)


def test_a_key_of_another_target_at_its_default_is_not_an_error():
    # the engine hands the program Pulumi.yaml's defaults too: only a changed value is "set"
    settings({**GKE, "kindHostShare": "auto", "databasePoolLabels": ""})


def test_a_misspelled_key_names_the_closest_setting():
    with pytest.raises(InputError) as error:
        check_config_keys({"percona-mysql:connectionz": "5"}, project="percona-mysql", secret_keys=())
    assert error.value.key == "connectionz" and "did you mean connections?" in str(error.value)
    # other namespaces (providers' keys such as gcp:project) are not ours to judge
    check_config_keys({"gcp:project": "p", "percona-mysql:connections": "5"}, project="percona-mysql", secret_keys=())


def test_a_plaintext_token_is_refused_and_an_encrypted_or_empty_one_is_not():
    token = {"percona-mysql:pmmServerToken": "glsa_abc"}
    with pytest.raises(InputError) as error:
        check_config_keys(token, project="percona-mysql", secret_keys=())
    assert error.value.key == "pmmServerToken" and error.value.rule == "S1"
    check_config_keys(token, project="percona-mysql", secret_keys={"percona-mysql:pmmServerToken"})
    check_config_keys({"percona-mysql:pmmServerToken": ""}, project="percona-mysql", secret_keys=())


@pytest.fixture
def laptop(monkeypatch):
    monkeypatch.setattr(kind_plan, "host_resources", lambda: HOST)


def test_the_program_stops_on_a_misspelled_key_before_any_resource(laptop):
    with pytest.raises(pulumi.RunError) as error:
        offline.run_stack("gke", overrides={"connectionz": 500})
    assert "connectionz" in str(error.value) and "did you mean connections?" in str(error.value)


def test_the_program_refuses_a_plaintext_token(laptop):
    overrides = {"installPmm": False, "pmmServerHost": "monitoring-service.pmm"}
    with pytest.raises(pulumi.RunError) as error:
        offline.run_stack("gke", overrides={**overrides, "pmmServerToken": "glsa_plain"})
    assert "S1: pmmServerToken" in str(error.value)
    assert offline.run_stack("gke", overrides=overrides, secrets={"pmmServerToken": "glsa_secret"})


def test_kind_without_its_tools_is_a_run_error_not_a_traceback(laptop, monkeypatch):
    # as if a real engine ran on a machine without kind and Docker (the check is skipped under mocks)
    monkeypatch.setattr(kind_component, "_commands_will_run", lambda: True)
    monkeypatch.setattr(kind_component.shutil, "which", lambda name: None)
    with pytest.raises(pulumi.RunError) as error:
        offline.run_stack("kind", overrides={"kindHostCpu": "8", "kindHostMemory": "32Gi"})
    assert "stack config: target: the kind target" in str(error.value) and "install kind" in str(error.value)


@pytest.mark.parametrize(
    ("key", "value", "what"),
    [
        ("percona-mysql:backupKeyId", "AKIAIOSFODNN7EXAMPLE", "holds an AWS access key id"),  # AKIA + 16
        ("aws:secretKey", {"secure": "v1:AAAA"}, "cloud provider's static credential"),  # encrypted, still a key
        ("percona-mysql:s3SecretAccessKey", "x", "named like a secret access key"),
    ],
)
def test_a_static_cloud_key_in_config_is_refused_on_production_stacks(key, value, what):
    """R4: the same test as the pack's (core.cloud_keys); the error names the key and the rule."""
    with pytest.raises(InputError) as error:
        check_config_keys({key: value, "percona-mysql:connections": "5"}, project="percona-mysql", secret_keys=())
    assert error.value.key == key and error.value.rule == "R4" and what in str(error.value)


def test_an_ephemeral_stack_may_hold_a_static_key():
    # the kind stack's in-cluster MinIO: ephemeral, exempt from R4 as from R1-R3; the name check still runs
    with pytest.raises(InputError) as error:
        check_config_keys(
            {"percona-mysql:ephemeral": "true", "percona-mysql:minioSecretAccessKey": "minio123"},
            project="percona-mysql",
            secret_keys=(),
        )
    assert error.value.rule is None and error.value.key == "minioSecretAccessKey"  # not a setting of the project
    check_config_keys(
        {"percona-mysql:ephemeral": "true", "aws:accessKey": "AKIAIOSFODNN7EXAMPLE"}, project="percona-mysql", secret_keys=()
    )


def test_the_bounds_pass_at_their_edge():
    settings({**GKE, "pmmStorageSize": "13Gi", "backupSchedule": "*/2 * * * *", "pitrUploadSeconds": 7 * 86400})
    settings({**KIND, "kindHostCpu": "8000m"})  # whole CPUs, in millicores


def test_the_shipped_gcp_project_placeholder_is_refused_by_a_real_engine(laptop, monkeypatch):
    from percona_mysql_k8s.clusters import gke as gke_component
    from percona_mysql_k8s.plan.clusters.gke import PLACEHOLDER_PROJECT

    assert f"gcpProject: {PLACEHOLDER_PROJECT}" in (offline.program_dir() / "Pulumi.gke.yaml").read_text()
    settings_ = settings({**GKE, "gcpProject": PLACEHOLDER_PROJECT})  # judged offline, with a note that says so
    assert any("placeholder" in note and "gcpProject" in note for note in settings_.cluster.notes)
    monkeypatch.setattr(gke_component, "real_engine", lambda: True)  # as under `pulumi preview`/`up`
    with pytest.raises(pulumi.RunError) as error:
        offline.run_stack("gke")
    assert "gcpProject" in str(error.value) and "placeholder" in str(error.value)
    assert offline.run_stack("gke", overrides={"gcpProject": "shop-prod-4711"})  # a project of the user's own


def test_an_eks_endpoint_no_one_outside_the_vpc_reaches_is_said_first():
    eks = settings(EKS).cluster
    assert any(note.startswith("eksPublicAccessCidrs is empty: the EKS API endpoint is private") for note in eks.notes)
    opened = settings({**EKS, "eksPublicAccessCidrs": ["203.0.113.0/24"]}).cluster
    assert not any("eksPublicAccessCidrs" in note for note in opened.notes)
