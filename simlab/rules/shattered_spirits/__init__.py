"""Shattered Spirits, later draft (RULES.md §1; seed ``001_2974713b00da527b.txt``)."""
