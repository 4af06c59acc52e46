"""Rule system ``zones-3d6`` (RULES.md §5; seed 004)."""
