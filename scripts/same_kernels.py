#!/usr/bin/env python3
"""Whether two builds run the same kernels: compares the SASS of every kernel in two binaries
(`cuobjdump -sass` listings), ignoring kernel names, so that a refactor that renames or moves code
can show it changed no machine code.

    cuobjdump -sass before/sluice > before.sass; cuobjdump -sass after/sluice > after.sass
    scripts/same_kernels.py before.sass after.sass

Each function's instructions are normalised (addresses and symbol names dropped, encodings kept) and
hashed; the two listings match when they hold the same multiset of bodies. Prints the count of kernels
on each side and every body found on one side only, with its name; exits 1 if there is any.
"""
import collections
import hashlib
import re
import sys

SYMBOL = re.compile(r"_Z[0-9A-Za-z_$.]+")
ADDRESS = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s*")


def bodies(path):
    """name -> normalised body hash, and hash -> [names], for every function of a listing."""
    by_hash = collections.defaultdict(list)
    name, lines = None, []

    def finish():
        if name is not None:
            by_hash[hashlib.sha1("\n".join(lines).encode()).hexdigest()].append(name)

    with open(path, encoding="utf-8", errors="replace") as listing:
        for raw in listing:
            match = re.match(r"\s*Function : (\S+)", raw)
            if match:
                finish()
                name, lines = match.group(1), []
                continue
            if name is None or "headerflags" in raw or not raw.strip():
                continue
            lines.append(SYMBOL.sub("SYM", ADDRESS.sub("", raw.rstrip())))
    finish()
    return by_hash


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    before, after = bodies(sys.argv[1]), bodies(sys.argv[2])
    count = lambda b: sum(len(names) for names in b.values())
    print(f"kernels: {count(before)} before, {count(after)} after; distinct bodies {len(before)} / {len(after)}")
    differ = 0
    for label, one, other in (("only before", before, after), ("only after", after, before)):
        for digest, names in sorted(one.items()):
            extra = len(names) - len(other.get(digest, []))
            if extra > 0:
                differ += extra
                print(f"{label}: {names[0]}" + (f" (+{extra - 1} more of this body)" if extra > 1 else ""))
    print("same kernels" if differ == 0 else f"{differ} kernel bodies found on one side only")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
