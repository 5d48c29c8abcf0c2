"""scripts/fetch-reference.sh: a verified copy of every reference item (or the named ones) in the cache.

Exit status: 0 when every item is verified in the cache (a mirror-only item that no mirror here holds is
reported and left out, unless --require-all or PERCONA_REFERENCE_REQUIRED=1); 1 when a copy was refused,
a download failed, or a required item is missing; 2 on a bad argument.
"""

from __future__ import annotations

import argparse
import os
import sys

from . import store
from .manifest import MANIFEST, ManifestError, load
from .store import REQUIRED_ENV


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scripts/fetch-reference.sh",
        description="Put a verified copy of the reference material the tests read into the cache "
        f"(${store.CACHE_ENV}, default {store.DEFAULT_CACHE}). Each item comes from the cache, a mirror "
        f"(${store.MIRROR_ENVS[0]}), ../shared/reference/percona/ beside the clone, or the network "
        f"(pinned URLs); its bytes must match the sums in {MANIFEST.name}.",
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help="items to fetch (default: all); see --list")
    parser.add_argument("--offline", action="store_true", help="never use the network")
    parser.add_argument(
        "--require-all",
        action="store_true",
        help=f"fail when an item stays missing, mirror-only ones included (also: {REQUIRED_ENV}=1)",
    )
    parser.add_argument("--path", metavar="NAME", help="fetch one item and print only its verified path")
    parser.add_argument("--list", action="store_true", help="list the items, their origin and sums, and exit")
    return parser


def _list(manifest) -> int:
    for item in manifest.items.values():
        pinned = f"{len(item.chart_files)} files pinned" if item.is_chart else f"sha256 {item.sha256}"
        print(f"{item.name}\n    {item.url()}\n    {pinned}")
    return 0


def _one_path(manifest, places, name: str, network: bool) -> int:
    try:
        path, _ = store.materialize(manifest.item(name), places, network=network)
    except KeyError as error:
        print(f"error: {error.args[0]}", file=sys.stderr)
        return 2
    except (store.Unavailable, store.MaterialError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(path)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        manifest = load()
    except ManifestError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.list:
        return _list(manifest)
    places = store.Places.from_environment()
    if args.path:
        return _one_path(manifest, places, args.path, not args.offline)
    unknown = [name for name in args.names if name not in manifest.items]
    if unknown:
        print(f"error: not in {MANIFEST.name}: {', '.join(unknown)} (see --list)", file=sys.stderr)
        return 2
    require_all = args.require_all or os.environ.get(REQUIRED_ENV) == "1"
    verified, missing, failed = 0, [], []
    network = not args.offline
    for name in args.names or list(manifest.items):
        item = manifest.item(name)
        try:
            _, source = store.materialize(item, places, network=network)
        except store.Unavailable as error:
            missing.append(name)
            print(f"missing  {error}")
            continue
        except store.MaterialError as error:
            failed.append(name)
            print(f"FAILED   {name}: {error}" if isinstance(error, store.Unreachable) else f"FAILED   {error}")
            if isinstance(error, store.Unreachable) and network:
                network = False
                print("         the network cannot be reached: the remaining items come from local copies only")
            continue
        verified += 1
        print(f"ok       {name}  ({source})")
    print(f"{verified} verified in {places.cache}; {len(missing)} missing; {len(failed)} refused or not downloaded")
    if missing and not require_all:
        print(
            "Tests that need a missing item skip with the reason; a mirror-only item comes only from a mirror "
            f"(${store.MIRROR_ENVS[0]} or ../shared/reference/percona/)."
        )
    return 1 if failed or (missing and require_all) else 0


if __name__ == "__main__":
    sys.exit(main())
