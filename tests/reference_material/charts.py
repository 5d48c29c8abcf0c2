"""Chart archives: accepted when they hold exactly the pinned files, and packaged here from fetched files.

Helm reads a chart archive as the files of a gzipped tar, each path's first element (the chart's directory)
stripped, directories and tar extension headers skipped (helm/helm pkg/chart/loader/archive/archive.go,
``LoadArchiveFiles``). What a test or an install depends on is those files' bytes, so those are what the
manifest pins; the archive's own bytes (tar headers, gzip header, compression) are not.
"""

from __future__ import annotations

import datetime
import gzip
import hashlib
import io
import tarfile
from pathlib import PurePosixPath

from .manifest import Item

MAX_ARCHIVE_BYTES = 64 * 2**20  # the largest pinned chart unpacks to 0.7 MB; anything near this is not a chart


def archive_problems(item: Item, data: bytes) -> list[str]:
    """What differs between the archive and the pinned files (empty: every file present, nothing else, sums equal)."""
    top = PurePosixPath(item.path).name
    found: dict[str, str] = {}
    problems: list[str] = []
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            unpacked = 0
            for member in tar:
                path = PurePosixPath(member.name)
                if path.is_absolute() or ".." in path.parts or path.parts[:1] != (top,):
                    problems.append(f"{member.name}: outside the chart's directory {top}/")
                    continue
                if member.isdir():
                    continue
                if not member.isfile():
                    problems.append(
                        f"{member.name}: a {'link' if member.issym() or member.islnk() else 'special file'}, not a file"
                    )
                    continue
                unpacked += member.size
                if unpacked > MAX_ARCHIVE_BYTES:
                    return [f"unpacks to more than {MAX_ARCHIVE_BYTES} bytes"]
                found[PurePosixPath(*path.parts[1:]).as_posix()] = hashlib.sha256(tar.extractfile(member).read()).hexdigest()
    except (tarfile.TarError, EOFError, OSError, gzip.BadGzipFile) as error:
        return [f"not a gzipped tar archive ({error})"]
    pinned = dict(item.chart_files)
    problems += [f"{inner}: missing" for inner in sorted(set(pinned) - set(found))]
    problems += [f"{inner}: not in the pinned chart (sha256 {found[inner]})" for inner in sorted(set(found) - set(pinned))]
    problems += [
        f"{inner}: sha256 {found[inner]}, pinned {pinned[inner]}"
        for inner in sorted(set(found) & set(pinned))
        if found[inner] != pinned[inner]
    ]
    return problems


def package(item: Item, files: dict[str, bytes]) -> bytes:
    """The chart's files as ``helm package`` lays them out, reproducibly: sorted, directories first in each
    path, owner 0, modes 0644/0755, every time the commit's date (helm ignores all three)."""
    top = PurePosixPath(item.path).name
    mtime = datetime.datetime.combine(item.ref.date, datetime.time(), datetime.UTC).timestamp()
    directories = sorted(
        {top} | {f"{top}/{parent}" for inner in files for parent in map(str, PurePosixPath(inner).parents) if parent != "."}
    )
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, filename="") as compressed,
        tarfile.open(fileobj=compressed, mode="w", format=tarfile.GNU_FORMAT) as tar,
    ):
        for name in sorted([*directories, *(f"{top}/{inner}" for inner in files)]):
            info = tarfile.TarInfo(name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = int(mtime), 0, 0, "", ""
            inner = name[len(top) + 1 :]
            if name in directories:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.size, info.mode = len(files[inner]), 0o644
                tar.addfile(info, io.BytesIO(files[inner]))
    return buffer.getvalue()
