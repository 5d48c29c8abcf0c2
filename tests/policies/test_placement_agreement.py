"""One scheduler matcher everywhere (K4, B1): a resource judged alone, against the configured pools, lands
where the stack checks find it lands against real GKE pools with the same labels and taint (hypothesis over
selectors, ORed terms of ANDed expressions, In/NotIn/Exists/DoesNotExist over several pools, tolerations
including the ones every pod gets by default)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from percona_mysql_k8s.core.pools import DATABASE_TAINT, POOL_LABEL
from percona_mysql_k8s.core.scheduling import PodPlacement, gke_pool_nodes
from percona_mysql_k8s.policies._readers.placement import configured_pools

DATABASE, MONITORING = {POOL_LABEL: "database"}, {POOL_LABEL: "monitoring"}
VALUES = st.sampled_from(["database", "monitoring", "other"])
EXPRESSION = st.one_of(
    st.builds(
        lambda op, values: {"key": POOL_LABEL, "operator": op, "values": values},
        st.sampled_from(["In", "NotIn"]),
        st.lists(VALUES, min_size=1, max_size=3),
    ),
    st.builds(lambda op: {"key": POOL_LABEL, "operator": op}, st.sampled_from(["Exists", "DoesNotExist"])),
)
TERMS = st.lists(st.lists(EXPRESSION, min_size=1, max_size=2).map(lambda e: {"matchExpressions": e}), min_size=1, max_size=3)
TOLERATIONS = st.lists(
    st.sampled_from(
        [
            DATABASE_TAINT.as_toleration(),
            {"operator": "Exists"},
            {"key": POOL_LABEL, "operator": "Exists"},
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
            {"key": POOL_LABEL, "operator": "Equal", "value": "monitoring", "effect": "NoSchedule"},
        ]
    ),
    max_size=3,
)


@st.composite
def placements(draw):
    selector = draw(st.one_of(st.just({}), st.builds(lambda v: {POOL_LABEL: v}, VALUES)))
    affinity = draw(
        st.one_of(
            st.none(),
            TERMS.map(
                lambda terms: {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
            ),
        )
    )
    return PodPlacement(selector, affinity, tuple(draw(TOLERATIONS)))


@settings(max_examples=500, deadline=None)
@given(placements())
def test_the_configured_pools_and_real_pools_give_the_same_answer(placement):
    configured_database, configured_monitoring = configured_pools(DATABASE, DATABASE_TAINT, MONITORING)
    real_database = gke_pool_nodes(
        name="db",
        machine_type="n2-standard-8",
        labels=DATABASE,
        taints=[{**DATABASE_TAINT.as_k8s(), "effect": "NO_SCHEDULE"}],
        location="europe-west1-b",
    )
    real_monitoring = gke_pool_nodes(name="mon", machine_type="e2-standard-4", labels=MONITORING, location="europe-west1-b")
    configured = (placement.can_land_on(configured_database), placement.can_land_on(configured_monitoring))
    real = (placement.can_land_on(real_database), placement.can_land_on(real_monitoring))
    assert configured == real, (placement, configured, real)
