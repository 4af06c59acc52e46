"""Shattered Spirits, earlier draft (RULES.md §2; seed ``000_769fd88b5f91a8f7.txt``)."""
