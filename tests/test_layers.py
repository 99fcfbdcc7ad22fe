#!/usr/bin/env python3
"""The tree's layers point one way (docs/architecture.md): each file under src/ includes only
from its own layer or those below it, SUNDIALS only from the integrator, cJSON only from the
file formats, and the Python C API only from python/. Prints "N passed, N failed"."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# lowest first; a layer may include its own headers and those of the layers before it
LAYERS = ["engine", "forces", "io", "api", "app"]
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)

problems = {}  # file -> what is wrong with it; every file checked is one case


def check(ok, what, rel):
    problems.setdefault(rel, [])
    if not ok:
        problems[rel].append(what)


def sources(top):
    for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
        for n in sorted(names):
            if n.endswith((".c", ".h", ".cpp")):
                path = os.path.join(dirpath, n)
                with open(path, encoding="utf-8") as f:
                    yield os.path.relpath(path, ROOT), INCLUDE.findall(f.read())


seen = {layer: 0 for layer in LAYERS}
for rel, includes in sources("src"):
    layer = rel.split(os.sep)[1]
    check(layer in LAYERS, f"{rel}: not in a layer folder ({', '.join(LAYERS)})", rel)
    if layer not in LAYERS:
        continue
    seen[layer] += 1
    allowed = LAYERS[: LAYERS.index(layer) + 1]
    for inc in includes:
        top = inc.split("/")[0]
        if top in LAYERS:
            check(top in allowed, f"{rel} includes {inc}, from the {top} layer above {layer}", rel)
        if inc.startswith(("cvode/", "arkode/", "sundials/", "sunlinsol/", "sunmatrix/", "nvector/",
                           "sunnonlinsol/")):
            check(rel in (os.path.join("src", "engine", "integrator.c"),
                          os.path.join("src", "engine", "sundials_ops.c"),
                          os.path.join("src", "engine", "sundials_ops.h")),
                  f"{rel} includes SUNDIALS ({inc}); only the integrator (and its compiled "
                  "SUNDIALS operations) may", rel)
        if inc == "cJSON.h":
            check(layer == "io", f"{rel} includes cJSON.h; only the file formats (src/io) may", rel)
        if inc in ("Python.h",) or inc.startswith("numpy/"):
            check(False, f"{rel} includes {inc}; only python/ may", rel)
for layer, n in seen.items():
    check(n > 0, f"src/{layer} has no sources", f"src/{layer}")
# the public headers stand alone: nothing private from src/
for rel, includes in sources("include"):
    for inc in includes:
        check(inc.split("/")[0] not in LAYERS, f"{rel} (public) includes private {inc}", rel)

failed = [rel for rel, what in problems.items() if what]
for rel in failed:
    for what in problems[rel]:
        print("FAIL:", what)
print(f"{len(problems) - len(failed)} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
