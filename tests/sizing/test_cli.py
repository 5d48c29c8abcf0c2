"""``python -m percona_mysql_k8s.sizing``: the JSON contract, the table, the picture, and one-line errors."""

import json
import subprocess
import sys

import pytest
from percona_mysql_k8s.core.report import CONTRACT_KEYS
from percona_mysql_k8s.sizing.cli import main

GR_EXAMPLE = [
    "--engine",
    "group-replication",
    "--cpu",
    "4000m",
    "--memory",
    "8Gi",
    "--load",
    "heavy-oltp",
    "--connections",
    "0",
    "--proxy",
    "haproxy",
]
PXC_NODE = ["--engine", "pxc", "--node-type", "n2-standard-16", "--provider", "gke"]


def run(*args):
    return subprocess.run([sys.executable, "-m", "percona_mysql_k8s.sizing", *args], capture_output=True, text=True, timeout=60)


def test_json_contract():
    completed = run(*GR_EXAMPLE, "--format", "json")
    assert completed.returncode == 0, completed.stderr
    answer = json.loads(completed.stdout)
    assert set(CONTRACT_KEYS) <= set(answer)
    assert "mysqld" in answer["resources"]
    for container in answer["resources"].values():
        for side in ("requests", "limits"):
            assert isinstance(container[side]["cpu"], int) and isinstance(container[side]["memory"], int)
        assert container["requests"] == container["limits"]
    assert all(isinstance(value, str) for value in answer["mysqld"].values())
    model = answer["memory_model"]
    assert model["peak_bytes"] == sum(model["terms"].values()) <= model["limit_bytes"]
    assert model["limit_bytes"] == answer["resources"]["mysqld"]["limits"]["memory"]
    assert isinstance(answer["brownout_seconds"], float)
    assert answer["rules"]["loose_group_replication_flow_control_applier_threshold"] == ["F2", "F5"]
    assert answer["input"]["engine"] == "group-replication"


def test_pxc_provider_options_are_one_string():
    answer = json.loads(run(*PXC_NODE, "--format", "json").stdout)
    options = answer["mysqld"]["wsrep_provider_options"]
    assert "gcs.fc_limit=" in options and "gcs.fc_factor=" in options and "gcache.size=" in options
    assert answer["budget"]["source"] == "node" and answer["budget"]["node"]["machine"] == "n2-standard-16"


def test_table_has_mycnf_resources_and_the_split_bar():
    completed = run(*PXC_NODE)
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert "[mysqld]" in out and "innodb_buffer_pool_size=" in out
    assert "Resources" in out and "pmm-client" in out and "haproxy" in out
    assert "mysqld memory split" in out and "█" in out


@pytest.mark.parametrize("suffix,magic", [(".png", b"\x89PNG"), (".svg", b"<?xml")])
def test_plot_writes_a_picture(tmp_path, suffix, magic):
    target = tmp_path / f"split{suffix}"
    completed = run(*GR_EXAMPLE, "--plot", str(target))
    assert completed.returncode == 0, completed.stderr
    assert target.read_bytes().startswith(magic)


def test_plot_without_matplotlib_says_how_to_get_it(tmp_path, monkeypatch, capsys):
    # matplotlib is a development dependency (requirements-dev.txt); a runtime-only venv lacks it.
    # None in sys.modules makes `import matplotlib` raise ImportError, as an absent package does.
    from percona_mysql_k8s.sizing import cli

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert cli.main([*GR_EXAMPLE, "--plot", str(tmp_path / "split.png")]) == 2
    error = capsys.readouterr().err
    assert "matplotlib" in error and "requirements-dev.txt" in error
    assert not (tmp_path / "split.png").exists()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--engine", "pxc", "--cpu", "4", "--memory", "4096Mx"], "K1: --memory"),
        (["--engine", "pxc", "--cpu", "4", "--memory", "1Gi"], "M1: --memory"),
        (["--engine", "pxc", "--cpu", "0", "--memory", "8Gi"], "K1: --cpu"),
        (["--engine", "pxc", "--cpu", "-1", "--memory", "8Gi"], "K1: --cpu"),
        (["--engine", "mysql", "--cpu", "4", "--memory", "8Gi"], "--engine"),
        (["--engine", "pxc", "--cpu", "4", "--memory", "8Gi", "--load", "batch"], "--load"),
        (["--engine", "pxc", "--cpu", "4", "--memory", "8Gi", "--proxy", "nginx"], "T2: --proxy"),
        (["--engine", "group-replication", "--cpu", "4", "--memory", "8Gi", "--proxy", "proxysql"], "T2: --proxy"),
        (["--engine", "pxc", "--cpu", "4", "--memory", "8Gi", "--proxy", "router"], "T2: --proxy"),
        (["--engine", "pxc", "--node-type", "n2-standard-15", "--provider", "gke"], "K1: --node-type"),
        (["--engine", "pxc", "--cpu", "4", "--memory", "8Gi", "--connections", "-5"], "M6: --connections"),
        (["--engine", "pxc", "--cpu", "4", "--memory", "8Gi", "--connections", "50000"], "M1: --connections"),
        (["--engine", "pxc", "--cpu", "4", "--memory", "8Gi", "--connections", "many"], "--connections"),
        (["--engine", "pxc", "--cpu", "4"], "K1: --memory"),
        (["--engine", "pxc", "--cpu", "4", "--memory", "8Gi", "--threshold", "max_fc_limit=lots"], "--threshold"),
    ],
)
def test_bad_input_is_one_line_naming_flag_and_rule(args, expected):
    completed = run(*args)
    assert completed.returncode == 2
    assert completed.stdout == ""
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], completed.stderr
    assert "Traceback" not in completed.stderr


def test_every_memory_term_is_in_the_report_the_table_and_the_picture(tmp_path, capsys):
    """M1: the new terms (descriptors, performance_schema, fragmentation, certification) reach every view."""
    args = ["--engine", "group-replication", "--node-type", "n2-standard-16", "--provider", "gke"]
    assert main([*args, "--format", "json"]) == 0
    terms = json.loads(capsys.readouterr().out)["memory_model"]["terms"]
    new = {"buffer_pool_descriptors", "performance_schema", "allocator_fragmentation", "certification_info"}
    assert new <= set(terms)
    picture = tmp_path / "split.svg"
    assert main([*args, "--plot", str(picture)]) == 0
    table = capsys.readouterr().out
    svg = picture.read_text()
    for term in terms:
        assert term in table, term
        assert term in svg, term


def test_json_lists_every_container_instance_and_the_sums_match():
    # Each member runs two PMM clients (the mysqld pod's and the proxy pod's): both are listed, and the
    # entries of ``resources`` add up to ``pods.member`` and to the pods' own totals.
    answer = json.loads(run(*PXC_NODE, "--format", "json").stdout)
    resources = answer["resources"]
    assert {"mysqld/pmm-client", "proxy/pmm-client"} <= set(resources) and "pmm-client" not in resources
    for side in ("requests", "limits"):
        for amount in ("cpu", "memory"):
            total = sum(entry[side][amount] for entry in resources.values())
            assert total == answer["pods"]["member"][side][amount]
            assert total == answer["pods"]["mysqld"][side][amount] + answer["pods"]["proxy"][side][amount]
            assert total <= answer["budget"][amount]
    assert answer["pods"]["member"]["containers"] == list(resources)
    connections = answer["connections"]
    # mysqld accepts every backend connection the proxies can open plus its own users (T5)
    limits = connections["proxy_limits"]
    assert limits["backend_total"] == connections["proxies"] * limits["backend_limit"]
    assert connections["max_connections"] >= limits["backend_total"] + connections["service_connections"]


@pytest.mark.parametrize(
    ("engine", "node", "provider", "proxy", "settings"),
    [
        ("pxc", "n2-standard-16", "gke", "haproxy", {"maxconn": 2048}),
        ("group-replication", "n2-standard-16", "gke", "haproxy", {"maxconn": 2048}),
        ("pxc", "m6i.4xlarge", "eks", "proxysql", {"mysql-max_connections": 2000, "scheduler.maxConnections": 1000}),
        ("group-replication", "m6i.4xlarge", "eks", "router", {"max_total_connections": 512, "max_idle_server_connections": 64}),
    ],
)
def test_16_vcpu_nodes_keep_70_percent_for_the_buffer_pool_and_show_both_connection_terms(
    engine, node, provider, proxy, settings
):
    answer = json.loads(
        run("--engine", engine, "--node-type", node, "--provider", provider, "--proxy", proxy, "--format", "json").stdout
    )
    model, connections = answer["memory_model"], answer["connections"]
    assert model["terms"]["buffer_pool"] >= 0.70 * model["limit_bytes"]
    # idle connections, running statements and threads are separate terms, and the JSON says what each is made of
    assert (
        connections["idle"]["bytes"]
        == model["terms"]["connections_idle"]
        == connections["idle"]["connections"] * connections["idle"]["bytes_each"]
    )
    assert (
        connections["active"]["bytes"]
        == model["terms"]["connections_active"]
        == connections["active"]["statements"] * connections["active"]["bytes_each"]
    )
    assert (
        connections["threads"]["bytes"]
        == model["terms"]["connection_threads"]
        == connections["threads"]["threads"] * connections["threads"]["bytes_each"]
    )
    # with the thread pool, 4 statements per group run with their buffers; the other connections idle, or wait
    # blocked on a thread of their own: the cap admits one per connection and a listener per group
    pool = connections["thread_pool"]
    assert pool["thread_handling"] == "pool-of-threads"
    groups = int(pool["thread_pool_size"])
    assert connections["active"]["statements"] == 4 * groups < connections["idle"]["connections"]
    assert int(pool["thread_pool_max_threads"]) == connections["max_connections"] + 1 + groups
    assert connections["threads"]["threads"] == int(pool["thread_pool_max_threads"]) + connections["service_connections"]
    # the proxies' limits: the operators' shipped values, which is what the derived count is made of
    assert connections["proxy_limits"]["proxy"] == proxy and connections["proxy_limits"]["settings"] == settings
    assert connections["max_connections"] == connections["proxy_limits"]["backend_total"] + connections["service_connections"]


def test_without_the_thread_pool_every_connection_is_charged_as_running():
    answer = json.loads(
        run(
            "--engine", "pxc", "--cpu", "4", "--memory", "8Gi", "--connections", "300", "--no-thread-pool", "--format", "json"
        ).stdout
    )
    connections = answer["connections"]
    assert connections["thread_pool"] is None and "thread_handling" not in answer["mysqld"]
    assert connections["active"]["statements"] == connections["idle"]["connections"] == 300


def test_table_uses_one_unit_per_column_and_counts_members():
    out = run("--engine", "pxc", "--cpu", "4", "--memory", "8Gi", "--size", "1", "--allow-unsafe-size").stdout
    assert "cpu (m)" in out and "memory (MiB)" in out
    assert "1 member," in out and "1 members" not in out
    assert "Gi " not in out and "Mi " not in out and "KiB" not in out


@pytest.mark.parametrize(
    ("threshold", "expected"),
    [
        ("min_buffer_pool_fraction_pxc=1.5", "M6: --threshold: threshold 'min_buffer_pool_fraction_pxc' must be < 1"),
        ("page_cache_reserve_fraction=0.99", "M1: --threshold: threshold 'page_cache_reserve_fraction' must be <= 0.5"),
        ("max_failover_brownout_seconds=0", "F5: --threshold: threshold 'max_failover_brownout_seconds' must be > 0"),
        ("max_fc_limit=1.0e999", "G1: --threshold: threshold 'max_fc_limit' must be a finite number"),
        ("max_fc_limit=99999999999999999999", "G1: --threshold: threshold 'max_fc_limit' must be <= 2147483647"),
        ("min_connections=2.5", "M6: --threshold: threshold 'min_connections' must be a whole number"),
        (
            "fixed_server_overhead_bytes=1e300",
            "M1: --threshold: threshold 'fixed_server_overhead_bytes' must be <= 9223372036854775807",
        ),
    ],
)
def test_thresholds_are_checked_against_their_own_domain(threshold, expected):
    completed = run("--engine", "pxc", "--cpu", "4", "--memory", "8Gi", "--format", "json", "--threshold", threshold)
    assert completed.returncode == 2 and completed.stdout == ""
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {expected}"), completed.stderr


@pytest.mark.parametrize("target", ["/nonexistent-directory/split.png", "split.pdf"])
@pytest.mark.parametrize("output", ["table", "json"])
def test_a_bad_plot_target_is_refused_before_anything_is_printed(tmp_path, target, output):
    completed = run(*GR_EXAMPLE, "--format", output, "--plot", target)
    assert completed.returncode == 2 and completed.stdout == ""
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --plot: ") and "Traceback" not in completed.stderr


@pytest.mark.parametrize(
    "budget",
    [["--cpu", "160", "--memory", "768Gi"], ["--cpu", "8192", "--memory", "768Gi"], ["--cpu", "8192", "--memory", "4Pi"]],
)
def test_very_large_budgets_stay_inside_every_range(budget):
    completed = run("--engine", "pxc", *budget, "--format", "json")
    assert completed.returncode == 0, completed.stderr
    assert "Infinity" not in completed.stdout and "NaN" not in completed.stdout
    mysqld = json.loads(completed.stdout)["mysqld"]
    assert 2 <= int(mysqld["wsrep_applier_threads"]) <= 512  # mysqld's range; 4 x 144 cores would be 576
    assert int(mysqld["max_connections"]) <= 100_000
    assert int(mysqld["innodb_buffer_pool_size"]) < 2**64


@pytest.mark.parametrize(
    ("budget", "flag"), [(["--cpu", "8193", "--memory", "8Gi"], "--cpu"), (["--cpu", "4", "--memory", "4097Ti"], "--memory")]
)
def test_a_budget_no_machine_has_is_refused(budget, flag):
    completed = run("--engine", "pxc", *budget)
    assert completed.returncode == 2 and completed.stdout == ""
    assert completed.stderr.startswith(f"error: K1: {flag}: ") and "more than any machine has" in completed.stderr
