"""Rule system ``glitters-d20`` ("All That Glitters", RULES.md §4; seed 003)."""
