"""What readers are shown: pattern and SPARQL queries, traces (``explain``), lineage, a
document's hierarchy, trace diffs and exports; built on ``core.backend`` alone."""
