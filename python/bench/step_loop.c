// step_loop.c: the cost of stepping a simulation one integrator step at a time from C, the
// reference for the same loop in Python (step_loop.py); docs/performance.md, "Python".
//
// Usage: bench_step_loop SCENE.json [REPEATS]
// Loads the scene, then REPEATS times: a new simulation, cs_simStep until the scene's duration,
// timed with the process CPU clock. Prints the steps and the best time per step.
#include "contactsim/contactsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>


static double cpuSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_step_loop SCENE.json [REPEATS]\n");
    return 2;
  }
  int repeats = argc > 2 ? atoi(argv[2]) : 5;
  csError err;
  csModel* m = cs_loadScene(argv[1], NULL, &err);
  if (!m) {
    fprintf(stderr, "%s: %s: %s\n", err.file, err.path, err.message);
    return 2;
  }
  double duration = cs_modelOptions(m).duration;
  double best = 1e300;
  long steps = 0;
  for (int r = 0; r < repeats; r++) {
    csSimulation* s = cs_newSimulation(m, NULL, &err);
    if (!s) {
      fprintf(stderr, "%s\n", err.message);
      return 2;
    }
    // the loop a program driving the simulation itself writes: one step per call
    long n = 0;
    double c0 = cpuSeconds();
    while (cs_simTime(s) < duration) {
      if (cs_simStep(s, &err) != CS_OK) {
        fprintf(stderr, "step failed at t = %g: %s\n", err.time, err.message);
        return 1;
      }
      n++;
    }
    double c = cpuSeconds() - c0;
    best = c < best ? c : best;
    steps = n;
    cs_deleteSimulation(s);
  }
  printf("C loop: %ld steps, best of %d: %.6f s CPU, %.3f us per step\n", steps, repeats, best,
         1e6 * best / (double)steps);
  cs_deleteModel(m);
  return 0;
}
