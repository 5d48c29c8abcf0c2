"""A picture of the memory split (``--plot FILE``): the member budget and the mysqld limit as bars."""

from __future__ import annotations

from pathlib import Path

from percona_mysql_k8s.core.sizing import SizingResult
from percona_mysql_k8s.core.units import GIB


def write_plot(result: SizingResult, path: str) -> None:
    suffix = Path(path).suffix.lower()
    if suffix not in (".png", ".svg"):
        raise ValueError(f"{path}: the picture must be .png or .svg")
    try:
        import matplotlib
    except ModuleNotFoundError:  # an optional dependency (the `plot` extra): `pulumi up` never needs it
        raise ValueError("--plot needs matplotlib: pip install 'percona-mysql-k8s[plot]' "
                         "(in a checkout: pip install -r requirements-dev.txt)") from None

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(10, 3.2))
    rows = [
        ("member budget", [(name, size.memory_bytes) for name, size in _member_parts(result)], result.budget_memory_bytes),
        ("mysqld limit", list(result.memory.terms.items()), result.memory.limit_bytes),
    ]
    colours = plt.get_cmap("tab20").colors
    colour_of: dict[str, tuple] = {}
    for row, (_, parts, total) in enumerate(rows):
        left = 0.0
        for name, amount in parts:
            colour = colour_of.setdefault(name, colours[len(colour_of) % len(colours)])
            axes.barh(row, amount / GIB, left=left, color=colour, label=name if name not in axes.get_legend_handles_labels()[1] else None)
            left += amount / GIB
        if total > left * GIB:
            axes.barh(row, total / GIB - left, left=left, color="white", edgecolor="grey", hatch="//",
                      label="unused" if row == 0 else ("headroom" if row == 1 else None))
    axes.set_yticks(range(len(rows)), [label for label, _, _ in rows])
    axes.set_xlabel("GiB")
    axes.set_title(f"{result.input.engine} memory split (M1/M3): peak {result.memory.peak_bytes / GIB:.2f} GiB "
                   f"of {result.memory.limit_bytes / GIB:.2f} GiB")
    axes.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="small")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def _member_parts(result: SizingResult):
    for pod, names in result.pods.items():
        for name in names:
            yield (f"{pod}/{name}", result.containers[name])
