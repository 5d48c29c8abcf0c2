"""Upper bounds of the numbers a user gives this project: beyond them a value is a typo, not a plan.

One definition each, read by the sizing command, the stack config and the docs (docs/sizing.md,
docs/policies.md list them). Rule thresholds carry their own bounds in :mod:`percona_mysql_k8s.core.rules`.
"""

from __future__ import annotations

# No machine has more: Linux's NR_CPUS tops out at 8192 (arch/x86/Kconfig, MAXSMP; arm64 allows 4096), and
# x86-64 addresses at most 2^52 bytes of physical memory (4 PiB, with 5-level paging). A member budget, a
# kind host or an existing node above them describes no machine.
MAX_MACHINE_CPU_MILLICORES = 8192 * 1000
MAX_MACHINE_MEMORY_BYTES = 2**52

# The most IOPS one volume offers: GCE Hyperdisk Extreme 350,000 (io2 Block Express 256,000).
MAX_DISK_IOPS = 350_000
MIN_DISK_IOPS = 100  # innodb_io_capacity's minimum (the sizing writes half the volume's IOPS, at least 100)
# The largest volume: a GCE persistent disk of 64 TiB (EBS volumes stop at 16 TiB).
MAX_VOLUME_BYTES = 64 * 2**40
# The fastest a volume is read, so the shortest a full backup of it can take: GCE pd-ssd and Hyperdisk
# Balanced read at most 1,200 MB/s per VM, EBS gp3 at most 1,000 MiB/s
# (https://cloud.google.com/compute/docs/disks/performance, https://docs.aws.amazon.com/ebs/latest/userguide/general-purpose.html).
MAX_VOLUME_READ_BYTES_PER_SECOND = 1_200_000_000
