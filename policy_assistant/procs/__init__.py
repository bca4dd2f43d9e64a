"""Worker processes: the forked parse pool, children that die with their parent, side jobs.

`pool` spreads parsing over forked workers and hands results back in order; `children`
makes a child end when its parent does; `side_job` runs one job in a forked child beside
the caller (the writer builds retrieval units there while it writes chunk segments).
"""
