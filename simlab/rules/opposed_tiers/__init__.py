"""Rule system ``opposed-tiers`` (RULES.md §3; seed ``002_ff432504c2806c52.txt``)."""
