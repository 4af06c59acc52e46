"""``python -m simlab`` runs the command line."""

from simlab.cli import entry

entry()
