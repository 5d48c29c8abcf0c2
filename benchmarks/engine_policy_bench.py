"""Benchmark (not a test): what the policy pack adds to ``pulumi preview``, through the real Pulumi CLI.

    scripts/engine.sh ensure-built                            # once: the CLI, the language host, the providers
    .venv/bin/python -m benchmarks.engine_policy_bench [--sizes 1,200,400,1000] [--rounds 5] [--mixes stacks,quiet,findings]

For every mix and size it generates a program of N resources (benchmarks/engine_programs.py), creates its stack
on a local file backend, and then runs ``pulumi preview`` without and with ``--policy-pack policies`` in turn,
``--rounds`` times (ABBA order, so a drift of the machine's load falls on both alike), after one untimed run of
each. It prints the medians, what the pack adds and its share of a plain preview, and the machine's load average
over the runs (2 cores shared with other work move the figures: read them beside the load). The kubernetes
provider renders YAML (no cluster), so every second is the engine's, the program's, the providers' or the
pack's.

The pack is the checkout's ``policies/`` with its own virtualenv, made as the README says when it is missing.
``pulumi`` is the one on PATH, else the engine ``scripts/engine.sh ensure-built`` built
(``../shared/tools/pulumi-engine``). ``--pack-env KEY=VALUE[,KEY=VALUE]`` adds a column, the pack run with that
environment (``--pack-env PERCONA_POLICY_LEAN_SERVER=0,PERCONA_POLICY_FAST_CALLS=0,...`` for the SDK's own code,
docs/policies.md names the switches); the digests printed under the table are those of the previews'
``Policies:`` sections, the same for every variant when they agree byte for byte. Python keeps its byte code as on
a user's machine (``PYTHONDONTWRITEBYTECODE`` is dropped from the previews' environment).
``--floor`` adds the floor, a pack that evaluates nothing and reports as many findings as this one on the
``findings`` mix (benchmarks/floor_pack, on this pack's server): what it adds is what any pack costs under this
engine, and what this pack adds beyond it is its own. ``--profile DIR`` leaves the engine's own log (``-v=7``) of one previewed run with the pack per program there.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import process_cpu
from benchmarks.engine_programs import REPOSITORY, mix, write_program

ENGINE_TOOL = REPOSITORY.parent / "shared" / "tools" / "pulumi-engine" / "pulumi-engine"
PACK = REPOSITORY / "policies"
FLOOR = REPOSITORY / "benchmarks" / "floor_pack"  # evaluates nothing, reports as much: what any pack costs
PASSPHRASE = "engine-policy-bench"  # the benchmark's throwaway stacks hold no secret worth one


@dataclass
class Variant:
    label: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    same_verdict: bool = True  # a variant of the pack under test, whose Policies: section must be the same


@dataclass
class Figures:
    seconds: dict[str, list[float]] = field(default_factory=dict)
    cpu: dict[str, list[float]] = field(default_factory=dict)
    roles: dict[str, list[Counter]] = field(default_factory=dict)
    loads: list[float] = field(default_factory=list)
    digests: dict[str, set[str]] = field(default_factory=dict)
    diagnostics: int = 0


def engine_environment() -> dict[str, str]:
    """The environment ``pulumi`` runs in: yours when it is on PATH, else the built engine's (its ``env``)."""
    env = dict(os.environ)
    if not shutil.which("pulumi"):
        if not ENGINE_TOOL.is_file():
            raise SystemExit(f"no pulumi on PATH and no engine tool at {ENGINE_TOOL}: run scripts/engine.sh ensure-built")
        exports = subprocess.run(["bash", str(ENGINE_TOOL), "env"], capture_output=True, text=True, check=True).stdout
        for line in exports.splitlines():
            key, _, value = line.removeprefix("export ").partition("=")
            value = value.strip('"')
            env[key] = value.replace("$PATH", os.environ.get("PATH", "")).replace("${PULUMI_HOME:-", "").rstrip("}")
    for key in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"):  # the program and the pack pick their own venvs
        env.pop(key, None)
    # as on a user's machine, Python keeps the byte code it compiles (a session that sets this compiles every
    # module of the library at every start of the pack: 0.08 s more of its start, measured)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def ensure_pack(env: dict[str, str]) -> None:
    """The README's install of the checkout's pack (its venv), when it has none."""
    if (PACK / "venv" / "bin" / "python").exists():
        return
    command = "python3 -m venv venv && venv/bin/pip install -r requirements.txt -e .."
    print(f"installing the pack's venv: (cd policies && {command})", flush=True)
    subprocess.run(["bash", "-c", command], cwd=PACK, env=env, check=True)


def pulumi(env: dict[str, str], cwd: Path, *args: str, extra: dict[str, str] | None = None, check: bool = True):
    return subprocess.run(
        ["pulumi", *args, "--non-interactive", "--color", "never"],
        cwd=cwd,
        env={**env, **(extra or {})},
        capture_output=True,
        text=True,
        check=check,
    )


def policies_section(stdout: str) -> str:
    """The ``Policies:`` section of a preview's output (the pack's whole verdict), or "" when it has none: the
    indented lines under its heading. What follows it is not the pack's: a failed preview's ``Diagnostics:`` carry
    the cancelled program's traceback, which differs from run to run with the moment it was interrupted."""
    lines = stdout.split("\n")
    if "Policies:" not in lines:
        return ""
    section = []
    for line in lines[lines.index("Policies:") + 1 :]:
        if not line.startswith("    "):
            break
        section.append(line)
    return "\n".join(section)


def policy_lines(section: str) -> int:
    """The findings in a ``Policies:`` section: one ``- [mandatory]``/``- [advisory]`` line each."""
    return sum(1 for line in section.split("\n") if line.lstrip().startswith("- ["))


def preview(env: dict[str, str], project: Path, variant: Variant) -> tuple[float, Counter, float, str]:
    """One ``pulumi preview``: (seconds, CPU seconds per role of every process it ran, load average at its end, its
    ``Policies:`` section). The CPU time is the load-proof figure: what the machine's other work does to the wall
    clock it does not do to the work done."""
    command = ["pulumi", "preview", "--stack", "bench", *variant.args, "--non-interactive", "--color", "never"]
    start = time.perf_counter()
    done, roles = process_cpu.run(command, cwd=project, env={**env, **variant.env})
    seconds = time.perf_counter() - start
    # a mandatory finding fails the preview (exit 1 or 255), after the Policies: section that is the pack's verdict
    judged = bool(variant.args) and "\nPolicies:\n" in done.stdout
    if (done.returncode != 0 and not judged) or (variant.args and not judged):
        raise SystemExit(f"pulumi {' '.join(command[1:])} failed in {project}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return seconds, roles, os.getloadavg()[0], policies_section(done.stdout)


def measure(env: dict[str, str], project: Path, variants: list[Variant], rounds: int) -> Figures:
    figures = Figures(
        seconds={v.label: [] for v in variants}, cpu={v.label: [] for v in variants}, digests={v.label: set() for v in variants}
    )
    for variant in variants:  # untimed: the language host's and the pack's first start (byte-code caches)
        preview(env, project, variant)
    for number in range(rounds):
        order = variants if number % 2 == 0 else variants[::-1]
        for variant in order:
            seconds, roles, load, section = preview(env, project, variant)
            figures.seconds[variant.label].append(seconds)
            figures.cpu[variant.label].append(sum(roles.values()))
            figures.roles.setdefault(variant.label, []).append(roles)
            figures.loads.append(load)
            if variant.args and variant.same_verdict:
                figures.digests[variant.label].add(hashlib.sha256(section.encode()).hexdigest()[:12])
                figures.diagnostics = policy_lines(section)
    return figures


def profile(env: dict[str, str], project: Path, variant: Variant, directory: Path) -> None:
    """The engine's own log of one run with the pack (every Analyze/Remediate call with its timestamps)."""
    directory.mkdir(parents=True, exist_ok=True)
    log = directory / f"{project.name}.engine.log"
    args = ("preview", "--stack", "bench", *variant.args, "-v=7", "--logtostderr", "--logflow")
    done = pulumi(env, project, *args, extra=variant.env, check=False)
    log.write_text(done.stderr)
    print(f"  engine log: {log}")


def print_processes(figures: Figures, variants: list[Variant]) -> None:
    """The median CPU seconds of each role of process over the timed previews, per variant."""
    names = {name for runs in figures.roles.values() for roles in runs for name in roles}
    rows = []
    for name in names:
        medians = [statistics.median(roles.get(name, 0.0) for roles in figures.roles[v.label]) for v in variants]
        rows.append((max(medians), name, medians))
    for largest, name, medians in sorted(rows, reverse=True):
        if largest < 0.005:
            continue
        print(f"    CPU {name:62} " + " | ".join(f"{seconds:6.2f} s" for seconds in medians))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,200,400,1000", help="resources per program, comma-separated")
    parser.add_argument("--mixes", default="stacks,quiet,findings", help="stacks, quiet, findings, components (comma-separated)")
    parser.add_argument("--rounds", type=int, default=5, help="timed previews of each variant per program")
    parser.add_argument("--pack", type=Path, default=PACK, help="the policy pack (default: the checkout's policies/)")
    parser.add_argument(
        "--pack-env",
        action="append",
        default=[],
        metavar="KEY=VALUE[,KEY=VALUE]",
        help="add a pack variant with this environment",
    )
    parser.add_argument(
        "--floor", action="store_true", help="add a column: a pack that evaluates nothing (benchmarks/floor_pack)"
    )
    parser.add_argument("--workdir", type=Path, help="keep the programs and the backend here (default: a temporary one)")
    parser.add_argument("--profile", type=Path, metavar="DIR", help="also write the engine's -v=7 log per program")
    parser.add_argument("--processes", action="store_true", help="also print the CPU seconds of each role of process")
    return parser


def _row(name: str, size: int, figures: Figures, labels: list[str]) -> str:
    """The program, N, the plain preview's median, each pack variant's median with what it adds and its share, the
    same for CPU seconds, and the median load average."""
    plain, plain_cpu = (statistics.median(figures.seconds[labels[0]]), statistics.median(figures.cpu[labels[0]]))
    cells = [f"{name:8} {size:5}", f"{plain:6.2f} s"]
    for label in labels[1:]:
        seconds = statistics.median(figures.seconds[label])
        cells.append(f"{seconds:6.2f} s {seconds - plain:+6.2f} s {(seconds - plain) / plain:5.0%}")
    cells.append(f"{plain_cpu:6.2f} s")
    for label in labels[1:]:
        cpu = statistics.median(figures.cpu[label])
        cells.append(f"{cpu:6.2f} s {cpu - plain_cpu:+6.2f} s")
    cells.append(f"{statistics.median(figures.loads):5.2f}")
    return " | ".join(cells)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    env = engine_environment()
    if args.pack.resolve() == PACK.resolve():
        ensure_pack(env)
    variants = [Variant("preview"), Variant("with the pack", ("--policy-pack", str(args.pack.resolve())))]
    for number, setting in enumerate(args.pack_env, start=2):  # KEY=VALUE[,KEY=VALUE...]: one more variant
        settings = dict(item.partition("=")[::2] for item in setting.split(","))
        variants.append(Variant(f"pack {number}", variants[1].args, settings))
        print(f"pack {number}: the pack with {setting}")
    if args.floor:
        variants.append(Variant("floor pack", ("--policy-pack", str(FLOOR)), same_verdict=False))
        print(f"floor pack: {FLOOR.relative_to(REPOSITORY)}, which evaluates nothing and reports as many findings")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="engine-policy-bench-"))
    backend = workdir / "state"
    backend.mkdir(parents=True, exist_ok=True)
    env.update(PULUMI_BACKEND_URL=f"file://{backend}", PULUMI_CONFIG_PASSPHRASE=PASSPHRASE, PULUMI_SKIP_UPDATE_CHECK="true")
    version = pulumi(env, workdir, "version").stdout.strip()
    print(f"pulumi {version}; pack {args.pack}; {args.rounds} rounds (medians); {os.cpu_count()} CPUs; workdir {workdir}")
    labels = [v.label for v in variants]
    packages = frozenset(
        name for name in ("kubernetes", "random", "command") if shutil.which(f"pulumi-resource-{name}", path=env.get("PATH"))
    )
    header = (
        ["program      N", "preview "]
        + [f"{label} (added, share)" for label in labels[1:]]
        + ["CPU: preview"]
        + [f"{label} (added)" for label in labels[1:]]
        + ["load"]
    )
    print(" | ".join(header), flush=True)
    results = {}
    for name in args.mixes.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            generated = mix(name, size, workdir, packages)
            project = write_program(workdir / f"{name}-{size}", f"bench-{name}-{size}", generated.entries, sys.prefix)
            pulumi(env, project, "stack", "select", "--create", "bench")  # a kept --workdir has it already
            figures = measure(env, project, variants, args.rounds)
            print(_row(name, size, figures, labels), flush=True)
            results[(name, size)] = (figures, generated.left_out)
            if args.profile:
                profile(env, project, variants[1], args.profile)
            if args.processes:
                print_processes(figures, variants)
    _footnotes(results, [v.label for v in variants[1:] if v.same_verdict])
    return 0


def _footnotes(results: dict, compared: list[str]) -> None:
    """Per program: the pack's findings and the digests of its variants' verdicts (one digest: byte for byte)."""
    print()
    for (name, size), (figures, _left_out) in results.items():
        digests = {label: sorted(figures.digests[label]) for label in compared}
        agree = len({tuple(d) for d in digests.values()}) == 1 and all(len(d) == 1 for d in digests.values())
        print(
            f"{name} {size}: {figures.diagnostics} policy lines; Policies: digest {json.dumps(digests)}"
            f"{'' if agree else '  <- the variants DIFFER'}"
        )
    left = next((left_out for (name, _), (_, left_out) in results.items() if name == "stacks"), None)
    if left:
        print(f"stacks mix, left out per round of the four stacks (no provider or chart archive here): {dict(left)}")


if __name__ == "__main__":
    sys.exit(main())
