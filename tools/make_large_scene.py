#!/usr/bin/env python3
"""Write a large scene for measuring how long a scene takes to load (docs/performance.md,
"Loading"). Usage: make_large_scene.py bodies|points N OUT.json

bodies: N free blocks on one floor, each with a contact of one point (N bodies, N contact sets).
points: one block with one contact of N points (N contact elements)."""
import json
import sys

kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
nbody = n if kind == "bodies" else 1
bodies = [{"name": f"b{i}", "mass": 1.0, "inertia": {"box": [0.1, 0.1, 0.1]},
           "joint": {"type": "free", "initial": {"position": [i * 1.0, 0, 0.2]}}}
          for i in range(nbody)]
if kind == "bodies":
    contacts = [{"name": f"c{i}", "body": f"b{i}", "plane": "floor", "points": [[0, 0, -0.1]]}
                for i in range(n)]
else:
    contacts = [{"name": "c", "body": "b0", "plane": "floor",
                 "points": [[i * 1e-6, 0, -0.1] for i in range(n)]}]
scene = {"gravity": [0, 0, -9.81], "bodies": bodies, "planes": [{"name": "floor"}],
         "contacts": contacts, "contact_models": {"exponential_spring": {}},
         "simulation": {"duration": 0.01}}
with open(out, "w") as f:
    json.dump(scene, f)
