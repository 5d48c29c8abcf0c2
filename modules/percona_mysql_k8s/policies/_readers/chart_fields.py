"""What every chart field rendering shares (chart_render's pxc-db and ps-db renderers read fields with it).

A field is one of ``(key, condition, how)``: condition ``always`` (rendered whatever it holds), ``if``
(rendered when true to Go's templates) or ``has`` (when the key is present); how ``yaml`` (``toYaml``),
``print`` (``{{ x }}``), ``tpl`` (``tpl (toYaml x)``), ``text`` (``tpl x`` in a YAML block, pxc-db's way)
or ``text-`` (the same with ``{{-``, ps-db's way).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .helm_template import interpolated, to_yaml, tpl_text, tpl_yaml, truthy
from .values import MISSING, NotKnown, Unknown, Unrenderable

Field = tuple[str, str, str]


def guarded(build: Callable[[], Any]) -> Any:
    """What ``build`` renders, or, when a condition it decides on is unknown at preview, an unknown value
    named by that condition's values path: only what the condition decides is unknown."""
    try:
        return build()
    except NotKnown as error:
        return Unknown(error.sentinel, error.path)


def _render_field(out: dict, source: dict, key: str, condition: str, how: str, where: str) -> None:
    value = source.get(key, MISSING) if isinstance(source, dict) else MISSING
    if isinstance(value, Unknown):  # printed, copied or tested: what is rendered is unknown either way
        out[key] = value
        return
    if condition == "if" and not truthy(value):
        return
    if condition == "has" and value is MISSING:
        return
    path = f"{where}.{key}"
    if how == "yaml":
        out[key] = to_yaml(value)
    elif how == "print":
        out[key] = interpolated(value)
    elif how == "tpl":
        out[key] = tpl_yaml(value, path)
    elif isinstance(value, str):  # text: "key: |" then tpl of the string, as a YAML block
        out[key] = _block(tpl_text(value, path), path, leading_line=how == "text")
    else:
        out[key] = Unrenderable(f"{path} is not text, and the chart writes it as a block of text")


def _block(text: str | Unrenderable, path: str, leading_line: bool) -> str | Unrenderable:
    """A ``key: |`` block holding ``text`` indented by nindent. pxc-db writes ``    {{ tpl x $ | nindent 6 }}``:
    a line of four blanks opens the block, which YAML keeps as a first empty line; ps-db writes
    ``{{- tpl x $ | nindent 6 }}``, which opens none. YAML keeps one final newline (clip)."""
    if isinstance(text, Unrenderable):
        return text
    first = next((line for line in text.split("\n") if line.strip()), "")
    if first[:1] in (" ", "\t"):
        return Unrenderable(
            f"{path} starts with a blank: the chart's YAML block would take its indentation from it and end at the next line"
        )
    body = text.rstrip("\n")
    return ("\n" if leading_line else "") + body + "\n" if body else ""


def render(source: Any, fields: Iterable[Field], where: str) -> dict:
    """The fields of ``source`` as the template writes them; every field the template writes unknown when
    ``source`` itself is unknown at preview."""
    out: dict = {}
    if isinstance(source, Unknown):
        return {key: source for key, _, _ in fields}
    source = source if isinstance(source, dict) else {}
    for key, condition, how in fields:
        _render_field(out, source, key, condition, how, where)
    return out


def _get(values: Any, path: str) -> Any:
    """The value at ``path`` (MISSING when absent); an unknown step is the value (unknown, named by its path)."""
    for key in path.split("."):
        if isinstance(values, Unknown):
            return values
        if not isinstance(values, dict):
            return MISSING
        values = values.get(key, MISSING)
    return values


def _image(image: Any) -> Any:
    """``{{ x.image.repository }}:{{ x.image.tag }}``."""
    return interpolated(_get(image, "repository"), (":",), _get(image, "tag"))


def _resources(component: dict, where: str, key: str = "resources") -> dict:
    """``resources: requests: tpl(toYaml), limits: tpl(toYaml)`` (nothing else of the block is rendered)."""
    block = _get(component, key)
    return {
        "requests": tpl_yaml(_get(block, "requests"), f"{where}.{key}.requests"),
        "limits": tpl_yaml(_get(block, "limits"), f"{where}.{key}.limits"),
    }


def _lifecycle(component: dict | Unknown) -> dict | Unknown | None:
    if isinstance(component, Unknown):
        return component
    if "lifecycle" not in component:
        return None
    if isinstance(component["lifecycle"], Unknown):
        return component["lifecycle"]
    lifecycle = component["lifecycle"] if isinstance(component["lifecycle"], dict) else {}
    return {key: to_yaml(lifecycle[key]) for key in ("preStop", "postStart") if key in lifecycle}
