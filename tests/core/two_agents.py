"""Two agents with a fact each, on one store: what the isolation and cross-agent tests start
from."""

from __future__ import annotations

ALPHA = "Alpha deploys with Kubernetes on GKE"
BETA = "Beta deploys with Nomad on bare metal"


def two_agents(engram):
    """Agents alpha and beta, made on ENGRAM, remembering ALPHA and BETA: (alpha, beta,
    alpha's fact id, beta's fact id)."""
    a = engram.agent("alpha", create=True)
    b = engram.agent("beta", create=True)
    return a, b, a.remember(ALPHA).fact_id, b.remember(BETA).fact_id
