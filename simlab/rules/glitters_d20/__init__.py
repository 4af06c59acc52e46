"""Rule system ``glitters-d20`` ("All That Glitters", docs/rules/glitters-d20.md; seed 003)."""
