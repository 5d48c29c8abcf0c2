"""The policy pack. The engine runs it as ``python -u -m pulumi.policy <engine> <this directory>`` here.

A pack built by ``percona-mysql-policy-bundle DIR`` carries the library's core and policies in ``_vendor/``
and runs exactly that code, on requirements.txt alone (what ``pulumi policy publish`` uploads and the
service's installs rebuild). Without ``_vendor/`` (the checkout's ``policies/``), the library installed in
the pack's virtualenv runs: ``venv/bin/pip install -r requirements.txt -e ..`` from this directory.
One source: this file is package data (percona_mysql_k8s/policies/pack/); the checkout's ``policies/`` links to it.
"""

import sys
from pathlib import Path

# Beside this file as the engine names it, not where a link points (the checkout's policies/ links here).
VENDOR = Path(__file__).absolute().parent / "_vendor"
if VENDOR.is_dir():
    sys.path.insert(0, str(VENDOR))

try:
    from percona_mysql_k8s import __version__
    from percona_mysql_k8s.policies import PACK_DESCRIPTION, PACK_NAME
    from percona_mysql_k8s.policies._fastpath import keep_non_finite_numbers, speed_up_calls
    from percona_mysql_k8s.policies._lazy import pack_policies
    from percona_mysql_k8s.policies._sdk import report_version, share_deserialization
    from percona_mysql_k8s.policies._server import serve_lean
except ModuleNotFoundError as error:
    if error.name != "percona_mysql_k8s":
        raise
    sys.exit(
        f"error: the policy pack's code (percona_mysql_k8s) is neither in {VENDOR} nor installed in this "
        f"virtualenv ({sys.prefix}). Build a self-contained pack with `percona-mysql-policy-bundle DIR`, or "
        "in a checkout run `venv/bin/pip install -r requirements.txt -e ..` in policies/."
    )

from pulumi_policy import PolicyPack  # noqa: E402 - after the library is found

report_version(__version__)  # GetAnalyzerInfo and every diagnostic name the pack's version, not the SDK's "0.0.1"
keep_non_finite_numbers()  # an infinite or NaN property gets C1's refusal, not a failed call
speed_up_calls()  # before the shared deserialization, which memoizes the faster conversion
share_deserialization()
serve_lean()
PolicyPack(name=PACK_NAME, description=PACK_DESCRIPTION, policies=pack_policies())
