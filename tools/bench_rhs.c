// bench_rhs.c: CPU time of one right-hand-side evaluation (kinematics, forces, articulated-body
// dynamics) for a scene, without the integrator.
//
//   bench_rhs SCENE.json [N] [--model NAME] [--stages] [--json]
//
// Each evaluation perturbs the state slightly (alternating signs, so it never drifts), marks the
// data invalid and calls cs_rates (the integrator's right-hand side), so no stage can reuse an
// earlier result. Times are process CPU time (CLOCK_PROCESS_CPUTIME_ID). The cost of the perturbation alone is measured by a loop
// of its own and subtracted. Without N the count is chosen so the timed loop lasts about 0.3 s.
//
// --stages adds the cost of each stage (the general path's: a model that takes the planar
// right-hand side realizes no stage there). Reading the clock around every stage would cost more
// than a small stage (the process CPU clock is a system call), so the stages are timed by
// cumulative loops instead: loop k realizes stages 1..k on a fresh state N times, and stage k
// costs loop k minus loop k-1.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "contactsim/contactsim.h"

// relative size of the perturbation of each state entry
#define PERTURBATION 1e-9


// process CPU time: other work on a shared machine does not count, as it would in wall time
static double cpuSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


// the initial state and the pattern of perturbations applied to it
typedef struct Bench {
  const csModel* m;
  csData* d;
  double* q0;              // (nq)
  double* u0;              // (nu)
  double checksum;         // sum of accelerations, printed so no work can be skipped
  long nonfinite;          // evaluations that reported a non-finite value
} Bench;


// the state of evaluation k: the initial one plus a small alternating offset
static void perturb(Bench* b, long k) {
  csData* d = b->d;
  // alternating signs: odd and even evaluations mirror each other around the initial state
  double s = (k & 1) ? PERTURBATION : -PERTURBATION;
  // relative to each entry (with a floor of 1e-3 for zeros), with a factor varying along the state
  // so that no two entries move alike
  for (int i = 0; i < d->nq; i++) {
    d->q[i] = b->q0[i] + s * (1.0 + (double)(i % 7)) * (1e-3 + fabs(b->q0[i]));
  }
  for (int i = 0; i < d->nu; i++) {
    d->u[i] = b->u0[i] + s * (1.0 + (double)(i % 5)) * (1e-3 + fabs(b->u0[i]));
  }
  // the state changed: no stage may reuse its realized values
  cs_invalidate(d);
}


// n evaluations realizing stages 1..upto (0: perturbation only; 5: the right-hand side, cs_rates);
// CPU seconds
static double timeLoop(Bench* b, long n, int upto) {
  const csModel* m = b->m;
  csData* d = b->d;
  double t0 = cpuSeconds();
  for (long k = 0; k < n; k++) {
    perturb(b, k);
    // each realize call realizes the stages below it first, so stage k here costs stages 1..k
    switch (upto) {
      case 0:
        break;
      case 1:
        cs_realizePosition(m, d);
        break;
      case 2:
        cs_realizeVelocity(m, d);
        break;
      case 3:
        cs_realizeDynamics(m, d);
        break;
      case 4:
        cs_realizeAcceleration(m, d);
        break;
      default:
        if (cs_rates(m, d) != 0) {
          b->nonfinite++;
        }
        break;
    }
  }
  double t = cpuSeconds() - t0;
  // the checksum is taken after the clock stops, so that the work cannot be dropped by the
  // compiler and the timing does not include the sum
  if (upto >= 4) {
    for (int i = 0; i < d->nu; i++) {
      b->checksum += d->udot[i];
    }
  }
  return t;
}


static void usage(void) {
  fprintf(stderr,
          "usage: bench_rhs SCENE.json [N] [--model NAME] [--stages] [--json]\n"
          "  N         evaluations to time (default: as many as fit in about 0.3 s)\n"
          "  --model   contact model to load (default: the scene's default)\n"
          "  --stages  also time position, velocity, dynamics and acceleration stages\n"
          "  --json    print one JSON object instead of text\n");
}


int main(int argc, char** argv) {
  const char* path = NULL;
  const char* model = NULL;
  long n = 0;
  int stages = 0, json = 0;
  // arguments: flags anywhere, then the scene path and an optional count
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--stages") == 0) {
      stages = 1;
    } else if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc) {
      model = argv[++i];
    } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage();
      return 0;
    } else if (argv[i][0] == '-') {
      usage();
      return 2;
    } else if (!path) {
      path = argv[i];
    } else if (n == 0) {
      char* end = NULL;
      n = strtol(argv[i], &end, 10);
      if (!end || *end || n <= 0) {
        fprintf(stderr, "bench_rhs: error: N must be a positive integer, not '%s'\n", argv[i]);
        return 2;
      }
    } else {
      usage();
      return 2;
    }
  }
  if (!path) {
    usage();
    return 2;
  }

  // load the scene and make its data
  csError err;
  memset(&err, 0, sizeof(err));
  csLoadOptions lopt = {.contact_model = model};
  csModel* m = cs_loadScene(path, &lopt, &err);
  if (!m) {
    fprintf(stderr, "bench_rhs: error: %s%s%s: %s\n", err.file, err.path[0] ? ": " : "",
            err.path, err.message);
    return 2;
  }
  csData* d = cs_makeData(m);
  Bench b = {.m = m, .d = d};
  // the initial state every perturbation starts from (+1: never a zero-size malloc)
  b.q0 = malloc(sizeof(double) * (size_t)(m->nq + 1));
  b.u0 = malloc(sizeof(double) * (size_t)(m->nu + 1));
  if (!d || !b.q0 || !b.u0) {
    fprintf(stderr, "bench_rhs: error: out of memory\n");
    return 1;
  }
  memcpy(b.q0, d->q, sizeof(double) * (size_t)m->nq);
  memcpy(b.u0, d->u, sizeof(double) * (size_t)m->nu);

  // warm up, then pick the count so the full loop lasts about 0.3 s
  timeLoop(&b, 100, 5);
  if (n == 0) {
    // grow the count fourfold until a loop lasts 30 ms, well above the clock's resolution, then
    // scale it to 0.3 s from the time per evaluation
    n = 100;
    while (timeLoop(&b, n, 5) < 0.03 && n < 100000000L) {
      n *= 4;
    }
    double once = timeLoop(&b, n, 5) / (double)n;
    n = once > 0 ? (long)(0.3 / once) : 1000000L;
    n = n < 10 ? 10 : n;
  }

  // the full right-hand side, less the cost of perturbing the state
  // allocations counted across the whole timed loop: a right-hand side must make none
  long allocs = csu_allocationCount();
  double tperturb = timeLoop(&b, n, 0);
  double tfull = timeLoop(&b, n, 5);
  long rhsAllocs = csu_allocationCount() - allocs;
  // microseconds per evaluation; noise can make the difference negative, hence the clamp
  double us = 1e6 * (tfull - tperturb) / (double)n;
  us = us > 0 ? us : 0;

  // cumulative stage loops
  static const char* const names[4] = {"position", "velocity", "dynamics", "acceleration"};
  double stage[4] = {0, 0, 0, 0};
  if (stages) {
    // stage k costs loop k minus loop k-1; loop 0 (perturbation only) is the baseline
    double prev = tperturb;
    for (int s = 1; s <= 4; s++) {
      double t = timeLoop(&b, n, s);
      stage[s - 1] = 1e6 * (t - prev) / (double)n;
      prev = t;
    }
  }

  // one JSON object for scripts, or text for people
  if (json) {
    printf("{\"scene\": \"%s\", \"model\": \"%s\", \"nbody\": %d, \"nq\": %d, \"nu\": %d, "
           "\"nz\": %d, \"nforce\": %d, \"evaluations\": %ld, \"us_per_rhs\": %.6g, "
           "\"us_perturbation\": %.6g, \"allocations\": %ld, \"nonfinite\": %ld, "
           "\"planar_path\": %s",
           m->name, model ? model : "", m->nbody - 1, m->nq, m->nu, m->nz, m->nforce, n, us,
           1e6 * tperturb / (double)n, rhsAllocs, b.nonfinite,
           b.d->planar_model ? "true" : "false");
    if (stages) {
      printf(", \"stages_us\": {");
      for (int s = 0; s < 4; s++) {
        printf("%s\"%s\": %.6g", s ? ", " : "", names[s], stage[s]);
      }
      printf("}");
    }
    printf(", \"checksum\": %.17g}\n", b.checksum);
  } else {
    printf("scene %s%s%s: %d bodies, nq %d, nu %d, nz %d, %d force elements\n", m->name,
           model ? ", model " : "", model ? model : "", m->nbody - 1, m->nq, m->nu, m->nz,
           m->nforce);
    printf("%ld evaluations: %.4g us per RHS evaluation (CPU; perturbing the state costs "
           "%.3g us more)\n", n, us, 1e6 * tperturb / (double)n);
    if (b.d->planar_model) {
      printf("the right-hand side is the planar one%s\n",
             stages ? "; the stages below are the general path's" : "");
    }
    if (stages) {
      double total = stage[0] + stage[1] + stage[2] + stage[3];
      for (int s = 0; s < 4; s++) {
        printf("  %-13s %9.4g us  %5.1f %%\n", names[s], stage[s],
               total > 0 ? 100.0 * stage[s] / total : 0.0);
      }
    }
    // allocations or non-finite evaluations make the timing meaningless: say so
    if (rhsAllocs || b.nonfinite) {
      printf("warning: %ld allocations, %ld non-finite evaluations\n", rhsAllocs, b.nonfinite);
    }
    printf("(checksum %.6g)\n", b.checksum);
  }

  free(b.q0);
  free(b.u0);
  cs_deleteData(d);
  cs_deleteModel(m);
  return 0;
}
