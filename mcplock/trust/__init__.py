"""Who vouches and what is allowed: lock signatures (signing), the organisation's policy
(org_policy) and the per-item decision the guard, `call`, the API and exports read (decide)."""
