"""Shattered Spirits, later draft (docs/rules/shattered-spirits.md; seed
``001_2974713b00da527b.txt``)."""
