"""What a check is looking at, built once per request from the resource (see percona_mysql_k8s.policies._framework.memo)."""

from __future__ import annotations

import functools

from ._framework import Context, memo
from ._readers.admission import admission, refusal_note
from ._readers.database import DatabaseView, database_view
from ._readers.helm import ValuesFromFiles
from ._readers.values import Malformed, NotKnown


def database(ctx: Context, rule: str) -> DatabaseView | None:
    """The database cluster the resource declares, or None (not a database resource, or unreadable: then
    ``rule`` is reported; or not applicable; or, when what the view rests on is unknown at preview (the chart,
    the values, the spec as a whole), every rule of the policy names it as not judged).

    A custom resource is read as the API server would store it; one the API server refuses is rule C1's
    (crd_admission) and no other rule's: not applicable to them."""
    resource = ctx.resource
    assert resource is not None
    answer = memo(resource.identity, "admission", lambda: admission(resource.type, resource.props))
    if answer is not None and answer.refused:
        ctx.not_applicable(refusal_note(answer))
        return None
    props = answer.stored if answer is not None else resource.props
    return _build(ctx, rule, "database", lambda: database_view(resource.type, props, resource.name))


def _build(ctx: Context, rule: str, key: str, build):
    """What ``build`` makes of the resource, memoized per request under ``key``; None where it cannot be read."""
    resource = ctx.resource
    assert resource is not None
    try:
        return memo(resource.identity, key, build)
    except ValuesFromFiles as error:
        ctx.not_applicable(error.reason)
    except Malformed as error:
        with ctx.checking(rule):
            raise error
    except NotKnown as error:
        for each in ctx.spec.rules:
            ctx.not_judged(each, error)
    return None


def workload(ctx: Context, rule: str):
    from ._readers.workloads import workload_view

    resource = ctx.resource
    return _build(ctx, rule, "workload", lambda: workload_view(resource.type, resource.props, resource.name))


def node_pool(ctx: Context, rule: str):
    from ._readers.pools import pool_view

    resource = ctx.resource
    return _build(ctx, rule, "pool", lambda: pool_view(resource.type, resource.props, resource.name))


def pmm_values(ctx: Context, rule: str) -> dict | None:
    """The values of a ``pmm`` chart release (merged over the chart defaults), or None."""
    from ._readers.helm import PMM, chart_name, chart_values, is_helm

    resource = ctx.resource
    if not is_helm(resource.type) or chart_name(resource.props) != PMM:
        return None
    return _build(ctx, rule, "pmm", lambda: chart_values(resource.props, PMM))


# ---- which resource types a policy reads (Spec.applies_to) ----------------------------------------
# Every policy asks this for every resource: the answers depend on the type token only, so they are
# cached per token (a stack has a few dozen types).


@functools.lru_cache(maxsize=1024)
def database_types(resource_type: str) -> bool:
    from ._readers.database import is_ps_cr, is_pxc_cr
    from ._readers.helm import is_helm

    return is_pxc_cr(resource_type) or is_ps_cr(resource_type) or is_helm(resource_type)


@functools.lru_cache(maxsize=1024)
def workload_types(resource_type: str) -> bool:
    from ._readers.workloads import POD_SPEC_PATHS

    return resource_type in POD_SPEC_PATHS


@functools.lru_cache(maxsize=1024)
def pool_types(resource_type: str) -> bool:
    from ._readers.pools import POOL_TYPES

    return resource_type in POOL_TYPES


def any_of(*predicates):
    @functools.lru_cache(maxsize=1024)
    def applies(resource_type: str) -> bool:
        return any(predicate(resource_type) for predicate in predicates)

    return applies


def exactly(*types: str):
    return frozenset(types).__contains__
