"""Records corpus.json in this folder: what exportfs on the lab NAS says for every case of tests/corpus/exports
(`nfstune lab up` must be running). Run from the repository root after adding or editing a case:
`PYTHONPATH=app:. .venv/bin/python tests/captures/exportfs/make_capture.py`.
"""

from __future__ import annotations

import datetime
import sys

from tests.exportfs_corpus import NFS_UTILS, Capture, digest, disagreement, host_names, run_on_nas
from tests.unit.test_exports import corpus_cases

from nfstune.lab import LabConfig, host
from nfstune.nfs.exports import parse


def main() -> int:
    lab = LabConfig().as_running()
    cases = corpus_cases()
    names = host_names([parse(case.text, NFS_UTILS) for case in cases])
    with host(lab, "nas") as nas:
        versions = nas.run("uname -r; dpkg-query -W -f '${Version}' nfs-kernel-server").stdout.split()
    with run_on_nas(lab, cases, names) as run:
        missing = {case.id for case in cases} - set(run.results)
        if missing:
            print(f"no result for {len(missing)} cases: {sorted(missing)[:5]}", file=sys.stderr)
            return 1
        made = {
            "date": datetime.date.today().isoformat(),
            "kernel": versions[0],
            "nfs-kernel-server": versions[1],
            "how": "tests/captures/exportfs/make_capture.py on `nfstune lab up` (Debian 12 lab image)",
        }
        Capture(
            answers=run.answers, results={case.id: (digest(case), run.results[case.id]) for case in cases}, made=made
        ).save()
        problems = [p for case in cases if (p := disagreement(case, run))]
    print(f"{len(cases)} cases captured; {len(problems)} disagree with our reading")
    for problem in problems:
        print(problem)
    return 0


if __name__ == "__main__":
    sys.exit(main())
