"""What a check is looking at, built once per request from the resource (see policies._framework.memo)."""

from __future__ import annotations

from ._framework import Context, memo
from ._readers.database import DatabaseView, database_view
from ._readers.helm import ValuesFromFiles
from ._readers.values import Malformed, NotKnown


def database(ctx: Context, rule: str) -> DatabaseView | None:
    """The database cluster the resource declares, or None (not a database resource, or unreadable:
    then ``rule`` is reported, or the check is noted as unknown at preview / not applicable)."""
    resource = ctx.resource
    assert resource is not None
    try:
        return memo(resource.identity, "database", lambda: database_view(resource.type, resource.props, resource.name))
    except ValuesFromFiles as error:
        ctx.not_applicable(error.reason)
    except (Malformed, NotKnown) as error:
        with ctx.checking(rule):
            raise error
    return None
