#!/usr/bin/env python3
"""Unpack or list a zip with nothing but Python: for hosts without unzip.

    python3 tools/unzip.py ARCHIVE DIR [MEMBER ...]   extract (all, or the
                                                     members named) into DIR
    python3 tools/unzip.py -l ARCHIVE                 the members' names, one
                                                     per line

Unlike `python3 -m zipfile -e`, an extracted file keeps the Unix mode the
archive recorded (run_autograder stays executable), as Info-ZIP's unzip
does. Names that would land outside DIR (absolute, or through "..") are
refused, and nothing is written. Exit status: 0 done, 1 a bad or unsafe
archive or a member not found, 2 a usage error.
"""
import os
import sys
import zipfile


def fail(msg, code=1):
    print("unzip.py: " + msg, file=sys.stderr)
    sys.exit(code)


def main(argv):
    if len(argv) == 2 and argv[0] == "-l":
        try:
            with zipfile.ZipFile(argv[1]) as z:
                for name in z.namelist():
                    print(name)
        except (OSError, zipfile.BadZipFile) as e:
            fail("%s: %s" % (argv[1], e))
        return 0
    if len(argv) < 2 or argv[0].startswith("-"):
        fail("usage: unzip.py ARCHIVE DIR [MEMBER ...] | unzip.py -l ARCHIVE", 2)
    archive, dest, wanted = argv[0], argv[1], argv[2:]
    try:
        z = zipfile.ZipFile(archive)
    except (OSError, zipfile.BadZipFile) as e:
        fail("%s: %s" % (archive, e))
    with z:
        infos = z.infolist()
        if wanted:
            by_name = {i.filename: i for i in infos}
            missing = [w for w in wanted if w not in by_name]
            if missing:
                fail("%s: not in the archive: %s" % (archive, ", ".join(missing)))
            infos = [by_name[w] for w in wanted]
        root = os.path.realpath(dest)
        for i in infos:
            target = os.path.realpath(os.path.join(root, i.filename))
            if target != root and not target.startswith(root + os.sep):
                fail("%s: %r would land outside %s: nothing extracted"
                     % (archive, i.filename, dest))
        os.makedirs(dest, exist_ok=True)
        for i in infos:
            path = z.extract(i, dest)
            mode = (i.external_attr >> 16) & 0o777
            if mode and not i.is_dir():
                os.chmod(path, mode)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
