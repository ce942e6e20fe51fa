"""A host's facts (kernel, NFS server, disks, network, appliance), as read by the probe. Pure."""
