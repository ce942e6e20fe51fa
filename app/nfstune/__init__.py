"""nfstune: a desktop tuning assistant for NFS."""

__version__ = "0.1.0"
