"""Journaled changes on hosts: each change is recorded in the journal (and the original bytes copied on the host)
before it is made, and undone on success, cancel and failure, or at the next connect after a crash. The pure
parts (parsers, renderers, the planned edits) live in nfstune.nfs; this package runs them on a Host."""
