"""The engine benchmark's process sampler (benchmarks/process_cpu.py): it returns a command's whole output however
much it writes, and charges CPU to the role of the process that spent it."""

import subprocess
import sys
import textwrap

from benchmarks import process_cpu
from tests.conftest import REPOSITORY

# more than a pipe holds (64 KiB on Linux) on each stream: a preview with 4,000 findings writes ~1 MB
LOUD = "import sys; sys.stdout.write('o' * 1_000_000); sys.stderr.write('e' * 1_000_000)"


def test_a_command_that_writes_more_than_a_pipe_holds_finishes_with_all_its_output():
    # in a child with a timeout: the sampler as it was blocked for ever here (nothing read the pipes while it polled)
    probe = textwrap.dedent(f"""
        import sys
        from benchmarks import process_cpu
        done, _ = process_cpu.run([sys.executable, "-c", {LOUD!r}])
        print(done.returncode, len(done.stdout), len(done.stderr))
    """)
    finished = subprocess.run([sys.executable, "-c", probe], cwd=REPOSITORY, capture_output=True, text=True, timeout=120)
    assert finished.stdout.split() == ["0", "1000000", "1000000"], finished.stderr


def test_cpu_is_charged_to_the_role_of_the_process_that_spent_it():
    burn = "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass"
    done, roles = process_cpu.run(["bash", "-c", f"{sys.executable} -c '{burn}'"])
    assert done.returncode == 0
    assert roles["program and other Python"] >= 0.4
    assert roles["bash"] < 0.2


def test_roles_are_read_from_the_command_line():
    assert process_cpu.role(["/x/pulumi", "preview"]) == "pulumi CLI (engine)"
    assert process_cpu.role(["/x/pulumi-language-python", "-root"]) == "language hosts"
    assert process_cpu.role(["/x/pulumi-resource-kubernetes"]) == "provider kubernetes"
    assert (
        process_cpu.role(["/v/bin/python", "-u", "-m", "pulumi.policy", "--logtostderr"]) == "the pack (python -m pulumi.policy)"
    )
