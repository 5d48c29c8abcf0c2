"""The offline runner: a program under mocks, every registration with parent, dependencies, secrets."""

from pathlib import Path

import pytest
from percona_mysql_k8s.cli.offline import run_program, stack_config

PROGRAM = """
import pulumi, pulumi_random as random, pulumi_kubernetes as k8s
config = pulumi.Config()
password = random.RandomPassword("root", length=20, special=False)
ns = k8s.core.v1.Namespace("ns", metadata={"name": config.require("namespace")})
k8s.core.v1.Secret("creds", metadata={"namespace": "db"}, string_data={"root": password.result},
                   opts=pulumi.ResourceOptions(depends_on=[ns], parent=ns))
pulumi.export("size", config.require_int("size"))
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    (tmp_path / "__main__.py").write_text(PROGRAM)
    return tmp_path


def test_collects_every_registration_with_parent_and_dependencies(program):
    records = run_program(program, stack="t", project="p", config={"p:namespace": "db", "p:size": "3"})
    by_type = {record.type: record for record in records}
    assert set(by_type) == {
        "random:index/randomPassword:RandomPassword",
        "kubernetes:core/v1:Namespace",
        "kubernetes:core/v1:Secret",
    }
    namespace, secret = by_type["kubernetes:core/v1:Namespace"], by_type["kubernetes:core/v1:Secret"]
    assert namespace.inputs["metadata"]["name"] == "db"
    assert secret.parent == namespace.urn
    assert namespace.urn in secret.dependencies
    # the generated password flows through as a deterministic placeholder, never empty
    assert secret.inputs["stringData"]["root"].startswith("offline")


def test_program_errors_propagate(program):
    with pytest.raises(Exception, match="namespace"):
        run_program(program, stack="t", project="p", config={"p:size": "3"})


def test_stack_config_layers_stack_file_over_project_defaults(tmp_path):
    (tmp_path / "Pulumi.yaml").write_text(
        "name: p\nstackConfigDir: stacks\nconfig:\n  engine: {type: string, default: pxc}\n  size: {type: integer, default: 3}\n"
    )
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text("config:\n  p:size: 5\n  p:zones: [a, b]\n  p:token: {secure: AAAA}\n")
    config = stack_config("dev", tmp_path)
    assert config["p:engine"] == "pxc"
    assert config["p:size"] == "5"
    assert config["p:zones"] == '["a", "b"]'
    assert config["p:token"].startswith("offline")
