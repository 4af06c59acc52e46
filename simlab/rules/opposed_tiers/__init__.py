"""Rule system ``opposed-tiers`` (docs/rules/opposed-tiers.md; seed
``002_ff432504c2806c52.txt``)."""
