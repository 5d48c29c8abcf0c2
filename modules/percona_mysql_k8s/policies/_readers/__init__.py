"""Readers: raw resources normalized into the views policies check (database clusters, pools, pods)."""
