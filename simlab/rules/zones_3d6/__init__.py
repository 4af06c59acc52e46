"""Rule system ``zones-3d6`` (docs/rules/zones-3d6.md; seed 004)."""
