"""Start a Pulumi program as the Python language host does, under mocks; print what it registered as JSON.

The language host runs ``<venv>/bin/python <cli bin>/pulumi-language-python-exec --pwd <pwd> ... <main>``
(sdk/python/cmd/pulumi-language-python/main.go, Run and constructArguments), where for ``main: stacks/``
the engine passes pwd = ``<project>/stacks`` and main = ``.`` (pkg/engine/project.go, getPwdMain). The exec
script sets the config from PULUMI_CONFIG, chdirs to ``--pwd`` and calls ``runpy.run_path(main)``
(sdk/python/cmd/pulumi-language-python-exec). So the program's ``sys.path`` is ``.`` (run_path inserts a
directory it runs), this script's own directory, then the venv's: nothing of the project's. This file plays
the exec script, with the resource monitor replaced by mocks that echo inputs (pure pulumi: the program's
own imports are the first to need the library).
"""

import argparse
import json
import os
import runpy
import sys

import pulumi
import pulumi.runtime
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await


class EchoMocks(pulumi.runtime.Mocks):
    def __init__(self):
        self.types: list[str] = []

    def new_resource(self, args):
        self.types.append(args.typ)
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args):
        return {}


def main() -> None:
    parser = argparse.ArgumentParser()
    for option in ("project", "stack", "pwd", "root_directory", "dry_run"):
        parser.add_argument(f"--{option}")
    parser.add_argument("PROGRAM")
    args = parser.parse_args()
    mocks = EchoMocks()
    pulumi.runtime.set_mocks(mocks, project=args.project, stack=args.stack, preview=args.dry_run == "true")
    pulumi.runtime.set_all_config(pulumi.runtime.get_config_env(), pulumi.runtime.get_config_secret_keys_env())
    sys.argv = [args.PROGRAM]
    os.chdir(args.pwd)
    path = list(sys.path)  # what the program starts with, plus the "." run_path inserts while it runs
    _sync_await(run_pulumi_func(lambda: runpy.run_path(args.PROGRAM, run_name="__main__")))
    library = sys.modules.get("percona_mysql_k8s")
    print(json.dumps({"cwd": os.getcwd(), "sys_path": path, "types": mocks.types, "library": getattr(library, "__file__", None)}))


if __name__ == "__main__":
    main()
