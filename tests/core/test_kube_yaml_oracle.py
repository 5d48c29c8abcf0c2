"""core.kube_yaml against kubectl's own reading: a small Go program (tests/core/go_kube_yaml) built from the module
proxy runs apimachinery v0.36.3's ``NewYAMLOrJSONDecoder`` (sigs.k8s.io/yaml v1.6.0, go.yaml.in/yaml/v2 v2.4.3)
and the decoding kubectl's builder does after it, on the same bytes.

For streams written in other people's styles (YAML 1.1 scalars in every spelling, tags, quoting, keys that are
not strings, duplicate keys, anchors and merges, several documents, separators, CRLF, JSON streams), the answers
must be the same: the stream refused, or the same documents with the same values, an int64 where kubectl holds
an int64 and a float64 where it holds a float64.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from kubectl_reader import KubectlReader, untagged
from percona_mysql_k8s.core.kube_yaml import KubeYamlError, read_first_document, read_stream


@pytest.fixture(scope="module")
def kubectl(tmp_path_factory):
    reader = KubectlReader(tmp_path_factory.mktemp("go-kube-yaml"))
    yield reader.read
    reader.close()


def same(ours, theirs) -> bool:
    if isinstance(theirs, float):
        return isinstance(ours, float) and (ours == theirs or (math.isnan(ours) and math.isnan(theirs)))
    if isinstance(theirs, bool) or isinstance(ours, bool):
        return ours is theirs
    if isinstance(theirs, int):
        return isinstance(ours, int) and ours == theirs
    if isinstance(theirs, dict):
        return isinstance(ours, dict) and ours.keys() == theirs.keys() and all(same(ours[k], theirs[k]) for k in theirs)
    if isinstance(theirs, list):
        return isinstance(ours, list) and len(ours) == len(theirs) and all(map(same, ours, theirs))
    return ours == theirs


def agree(kubectl, stream: str) -> None:
    answer = kubectl(stream)
    try:
        ours = [document.value for document in read_stream(stream, "f.yaml")]
    except KubeYamlError as error:
        if "at random" in error.problem:
            return  # two keys of different types that read as one string: kubectl keeps either (Go map order)
        assert "error" in answer or any("undecodable" in d for d in answer.get("documents", [])), (
            f"we refuse what kubectl reads: {error}\n{stream!r}\nkubectl: {answer}"
        )
        return
    assert "error" not in answer, f"kubectl refuses ({answer['error']}) what we read as {ours!r}\n{stream!r}"
    theirs = [untagged(document["value"]) for document in answer["documents"]]
    assert same(ours, theirs), f"{stream!r}\nours:    {ours!r}\nkubectl: {theirs!r}"


# --- scalars in every spelling ---

TRICKY = [
    *"y Y n N yes Yes YES no NO on On ON off OFF true True TRUE tRue false FALSE null Null NULL nULL ~ = << <".split(),
    *".inf -.Inf +.INF .Infinity .nan .NaN NaN inf -inf".split(),
    *"0 00 -0 +0 08 09 0777 0o17 0O17 0o8 0x1F 0X1f 0x 0b101 0B11 -0b101 +0x10 -0x10 0x_1F 1_000 1__0 _1 1_".split(),
    *"1e5 1E5 1e+5 1e-5 1.5e-3 .5 .5e3 ._5 . 5. -5. +5 +.5 -.5e-2 1:30 1:30:00 190:20:30 -1:30 1.0 3.0 -0.0".split(),
    *"9223372036854775807 9223372036854775808 -9223372036854775808 -9223372036854775809 18446744073709551615".split(),
    *"18446744073709551616 0xFFFFFFFFFFFFFFFF 0x10000000000000000 1e400 -1e400 1e-400 1e308 1.7976931348623157e308".split(),
    *"1e21 1e20 9.9e20 123456789012345678901 0.000001 1e-7 2001-12-14 2001-12-14t21:59:43.10-05:00 2001-1-2".split(),
    "2001-12-14 21:59:43.10",
    "2001-13-01",
    "2001-02-30",
    "16Gi",
    "1.5",
    "3",
    "0.5e",
]
PLAIN_NUMBERISH = st.from_regex(r"\A[-+]?(0[xXoObB])?[0-9a-fA-F_]{0,8}(\.[0-9_]{0,4})?([eE][-+]?[0-9]{1,3})?\Z")
SCALAR = st.one_of(st.sampled_from(TRICKY), PLAIN_NUMBERISH, st.text(alphabet="yYnN01.e+-_:xo~=", min_size=1, max_size=6))
TAGS = ["", "!!str ", "!!int ", "!!float ", "!!bool ", "!!null ", "!!timestamp ", "!! ", "! ", "!custom ", "!!binary "]


@st.composite
def scalar_place(draw) -> str:
    text = draw(SCALAR)
    style = draw(st.sampled_from(["plain", "plain", "plain", "single", "double"]))
    rendered = {"plain": text, "single": "'" + text.replace("'", "''") + "'", "double": json.dumps(text)}[style]
    tag = draw(st.sampled_from(TAGS))
    where = draw(st.sampled_from(["value", "value", "key", "flow-seq", "flow-map"]))
    item = tag + rendered
    return {
        "value": f"apiVersion: v1\nkind: ConfigMap\nvalue: {item}\n",
        "key": f"{item}: value\nother: 1\n",
        "flow-seq": f"list: [{item}, {item}]\n",
        "flow-map": f"map: {{k: {item}}}\n",
    }[where]


@settings(max_examples=600)
@given(scalar_place())
@example("a: y\nb: n\nc: 1e5\nd: 0o17\ne: 08\nf: 1:30\ng: 0777\nh: =\n")
@example("a: !!int '3'\nb: !!float 1\nc: !!str 3\nd: !!bool yes\n")
@example("size: 9223372036854775807\nbig: 9223372036854775808\nneg: -9223372036854775809\nu: 18446744073709551615\n")
@example("a: .inf\n")
@example("a: !!float .nan\n")
@example("1.5: a\n1e10: b\n0.1: c\ntrue: d\n~: e\n")
@example("1: a\n'1': b\n")
@example("a: !!binary gIA=\n")
@example("a: !!int abc\n")
def test_kubectl_reads_every_scalar_as_we_do(kubectl, stream):
    agree(kubectl, stream)


# --- structure: duplicates, merges, anchors, documents, separators, line ends, JSON ---

STRUCTURES = [
    "a: 1\na: 2\n",
    "base: &b {x: 1, y: 2}\nm:\n  x: 0\n  <<: *b\n  y: 3\n",
    "m:\n  <<: [{a: 1}, {a: 2, b: 2}]\n",
    "m: {<<: {a: 1}, '<<': 2}\n",
    "a: &x 1\nb: *x\nc: &x 2\nd: *x\n",
    "a: &x [*x]\n",
    "a: *nope\n",
    "m:\n  <<: 3\n",
    "? [a]\n: 1\n",
    "? {a: 1}\n: 1\n",
    "a: 1\n---\nb: 2\n---\n\n---\n# only a comment\n---\nnull\n---\nc: 3\n",
    "--- # a comment\na: 1\n--- junk\nb: 2\n",
    "----\na: 1\n",
    "a: 1\r\nb: 'x\r\n  y'\r\n",
    "%YAML 1.1\n---\na: 1\n",
    "a: 1\n...\nb: 2\n",
    '{"a": 1, "a": 2}\n',
    '{"a": 1}\n{"b": 1.0}\n',
    '{"a": 1}\n---\nb: 2\n',
    "{a: 1, b: [y, n]}\n",
    '{"a": 1e400}\n',
    '{"a": 9223372036854775808}\n',
    "\ufeffa: 1\n",
    "a:\n\tb: 1\n",
    "a: 'unterminated\n",
    "a: b: c\n",
    "- a\n- b\n",
    "just a string\n",
    "a: |\n  ---\n  x\n",
    'a: "\\ud800"\n',
    'a: "\\x80\\u00e9"\n',
    "a: !!binary |\n  gICA\n  gA==\n",
]


@pytest.mark.parametrize("stream", STRUCTURES)
def test_kubectl_reads_every_structure_as_we_do(kubectl, stream):
    agree(kubectl, stream)


KEYS = st.sampled_from(["a", "b", "'a'", '"b"', "1", "'1'", "true", "yes", "~", "1.0", "<<"])
VALUES = st.sampled_from(["1", "x", "y", "{p: 1}", "[1, 2]", "*anchor", "&anchor {q: 2}", "~", "1e3"])


@settings(max_examples=300)
@given(st.lists(st.tuples(KEYS, VALUES), min_size=1, max_size=6), st.sampled_from(["\n", "\r\n"]), st.integers(0, 2))
def test_kubectl_reads_maps_with_repeats_anchors_and_merges_as_we_do(kubectl, pairs, newline, documents):
    body = newline.join(f"{key}: {value}" for key, value in pairs) + newline
    stream = ("---" + newline).join([body] * (documents + 1))
    agree(kubectl, stream)


def test_the_first_document_of_a_values_file_is_read_as_helm_reads_it():
    """Helm's chartutil.ReadValues: sigs.k8s.io/yaml over the whole file, so only its first document counts."""
    assert read_first_document("a: y\n---\nb: 2\n").value == {"a": True}
    assert read_first_document("") is None
