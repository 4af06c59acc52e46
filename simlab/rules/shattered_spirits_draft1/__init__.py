"""Shattered Spirits, earlier draft (docs/rules/shattered-spirits-draft1.md; seed
``000_769fd88b5f91a8f7.txt``)."""
