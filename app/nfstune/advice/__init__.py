"""From measured results and the admin's own configuration to recommended /etc/exports, /etc/fstab and
nfs.conf lines, each with its reason and warnings. Pure but for reading a stored session."""
