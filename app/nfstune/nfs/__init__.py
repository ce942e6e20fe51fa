"""Pure NFS configuration code: parsers and renderers, no I/O."""
