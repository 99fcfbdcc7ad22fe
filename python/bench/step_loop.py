#!/usr/bin/env python3
"""The cost of stepping a simulation one integrator step at a time from Python, against the same
loop in C (step_loop.c); docs/performance.md, "Python".

Usage: step_loop.py SCENE.json [REPEATS]   (with the contactsim module importable)
"""
import sys
import time

import contactsim


def main():
    path = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    model = contactsim.load(path)
    duration = model.options["duration"]
    best, steps = float("inf"), 0
    for _ in range(repeats):
        sim = contactsim.Simulation(model)
        step = sim.step
        # the loop a user writes: one step per call, until the scene's duration
        n = 0
        c0 = time.process_time()
        while sim.time < duration:
            step()
            n += 1
        best = min(best, time.process_time() - c0)
        steps = n
    print(f"Python loop: {steps} steps, best of {repeats}: {best:.6f} s CPU, "
          f"{1e6 * best / steps:.3f} us per step")


if __name__ == "__main__":
    main()
