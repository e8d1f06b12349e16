"""Operator policy: which domains search and fetch may touch, and the state behind budgets."""

from weblens.policy.domains import DomainPolicy, normalise_domain
from weblens.policy.state import Bench, LocalPolicyState, PolicyState

__all__ = ["Bench", "DomainPolicy", "LocalPolicyState", "PolicyState", "normalise_domain"]
