"""Stack config from the outside (hypothesis): every key, random and extreme values, as the CLI passes them.

The Pulumi CLI hands the program strings (``pulumi config set connections 500``) or, from YAML, decoded
values. Whatever a key holds, the settings are decided or refused with one InputError naming that key
(or, where one key's value makes another one wrong, naming the other and quoting this one); never any
other exception, never a value accepted beyond its documented bound.
"""

from __future__ import annotations

from config_bases import EKS, GKE, HOST
from config_bases import KIND as KIND_BASE
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.stack.settings import all_keys, stack_settings_from_config

KIND = {**KIND_BASE, "kindHostShare": "0.3"}  # a fixed share, not the default auto fit

NUMBER_TEXT = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.sampled_from(["0", "-1", "1e308", "nan", "inf", "1_000", "١٢", "３", "²", "9" * 60, "", " 3 ", "0.5", "1.0"]),
)
QUANTITY_TEXT = st.tuples(NUMBER_TEXT, st.sampled_from(["", "m", "k", "Mi", "Gi", "Ti", "Pi", "Ei", "e9", "GB", " Gi"])).map(
    "".join
)
VALUES = st.one_of(
    NUMBER_TEXT,
    QUANTITY_TEXT,
    st.text(max_size=16),
    st.integers(-(2**70), 2**70),
    st.floats(),
    st.booleans(),
    st.lists(st.one_of(st.integers(-5, 5000), st.text(max_size=6)), max_size=4),
    st.none(),
    st.sampled_from(
        [
            "* * * * *",
            "*/5 * * * *",
            "0 3 * * *",
            "@every 1m",
            "true",
            "false",
            "auto",
            "pxc",
            "haproxy",
            "n2-standard-16",
            "m6i.4xlarge",
            "a=b",
            "k=v:NoSchedule",
        ]
    ),
)


def _settings(values):
    return stack_settings_from_config(values, host=lambda: HOST)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([("gke", GKE), ("eks", EKS), ("kind", KIND)]), st.sampled_from(sorted(all_keys())), VALUES)
# DaemonSets that fit the kind node but leave its member too small: refused as kindHostShare's M1 (found by this test)
@example(("kind", KIND), "daemonsetMemory", "8656535411")
@example(("gke", GKE), "gcpZones", "0\n0")  # a zone with a newline: the message quotes it (one line)
def test_any_value_of_any_key_is_decided_or_refused_naming_it(base, key, value):
    _, values = base
    try:
        _settings({**values, key: value})
    except InputError as error:
        message = str(error)
        assert "\n" not in message
        # the key itself, or another key the message names together with this one's value
        assert error.key == key or key in message or (isinstance(value, str) and value and value in message), (
            key,
            value,
            message,
        )
