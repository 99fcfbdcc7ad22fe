// bounce.c: a ball dropped on the floor, through the contactsim C API.
//
// Builds against the installed library with nothing but pkg-config:
//
//   cc bounce.c $(pkg-config --cflags --libs contactsim) -o bounce && ./bounce
//
// It loads a scene from a string, advances the simulation to fixed times and by single steps,
// reads the ball's pose, velocity, energies and contact report, saves a checkpoint and continues
// from it, and checks the physics on the way against answers worked out by hand: the free fall
// before the first impact follows z(t) = z0 - g t^2 / 2, KE + PE + dissipated energy stays at its
// initial value, and the ball ends at rest on the floor where the Hertz contact force carries its
// weight m g. Exit status 0 when every check passes, 1 otherwise (the build's tests run it).
#include <contactsim/contactsim.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

// a 1 kg solid ball of radius 0.1 m with its centre 1.1 m above the floor, moving sideways at
// 0.5 m/s: its lowest point falls 1 m before it touches, it bounces a few times, and friction
// turns the sliding into rolling
static const char* kScene =
    "{\"name\": \"bounce\", \"gravity\": [0, 0, -9.81],\n"
    " \"bodies\": [{\"name\": \"ball\", \"mass\": 1.0, \"inertia\": {\"sphere\": 0.1},\n"
    "   \"joint\": {\"type\": \"free\", \"parent\": \"ground\",\n"
    "             \"initial\": {\"position\": [0, 0, 1.1], \"velocity\": [0.5, 0, 0]}}}],\n"
    " \"planes\": [{\"name\": \"floor\"}],\n"
    " \"contacts\": [{\"name\": \"ball_floor\", \"body\": \"ball\", \"plane\": \"floor\",\n"
    "                \"points\": [[0, 0, 0]], \"radius\": 0.1}],\n"
    " \"contact_models\": {\"default\": \"hunt_crossley\",\n"
    "   \"hunt_crossley\": {\"plane_strain_modulus\": 2.8284271e6, \"dissipation\": 0.5, "
    "\"mu_static\": 0.8,\n"
    "                     \"mu_dynamic\": 0.6, \"mu_viscous\": 0,\n"
    "                     \"transition_velocity\": 0.01}},\n"
    " \"simulation\": {\"duration\": 5.0, \"rtol\": 1e-9, \"atol\": 1e-11,\n"
    "                \"report_interval\": 0.01}}\n";

static int passes = 0, failures = 0;

// one check: print it, count it when it fails
static void check(int ok, const char* what, double got, double want, double tol) {
  printf("%-52s %-4s got %.9g, want %.9g (tolerance %.2g)\n", what, ok ? "ok" : "FAIL", got, want,
         tol);
  failures += !ok;
  passes += ok;
}


static void checkNear(const char* what, double got, double want, double tol) {
  check(fabs(got - want) <= tol, what, got, want, tol);
}


static double totalEnergy(csSimulation* sim) {
  double ke, pe, diss;
  cs_simEnergy(sim, &ke, &pe, &diss);
  return ke + pe + diss;
}


int main(void) {
  const double g = 9.81, z0 = 1.1, radius = 0.1, mass = 1.0;
  // ball and floor of one material, plane-strain modulus E: the pair's Hertz constant is
  // k^(3/2) with k = E^(2/3) / 2, that is E / 2^(3/2) = 1e6 N/m^(3/2)
  const double hertz = 2.8284271e6 / pow(2.0, 1.5);
  printf("contactsim %s (headers %s)\n", cs_versionString(), CS_VERSION_STRING);
  check(cs_version() == CS_VERSION, "library and header versions agree", cs_version(), CS_VERSION,
        0);

  // 1. the model: load the scene, find the ball and its contact by name
  csError err;
  csModel* model = cs_loadSceneString(kScene, "bounce.json", NULL, &err);
  if (!model) {
    fprintf(stderr, "bounce: %s: %s: %s\n", err.file, err.path, err.message);
    return 1;
  }
  int ball = cs_bodyId(model, "ball");
  // a contact entry makes one element per point, named ENTRY.INDEX
  int contact = cs_forceId(model, "ball_floor.0");
  printf("scene '%s': %d bodies (with ground), %d force elements, %d coordinates\n",
         cs_modelName(model), cs_modelCount(model, CS_COUNT_BODY),
         cs_modelCount(model, CS_COUNT_FORCE), cs_modelCount(model, CS_COUNT_Q));
  if (ball < 0 || contact < 0) {
    fprintf(stderr, "bounce: the scene has no ball or no ball_floor.0 contact\n");
    return 1;
  }

  // 2. a simulation with the scene's options; advance to fixed times during the free fall
  csSimulation* sim = cs_newSimulation(model, NULL, &err);
  if (!sim) {
    fprintf(stderr, "bounce: %s\n", err.message);
    return 1;
  }
  const double e0 = totalEnergy(sim);
  const double t_touch = sqrt(2 * (z0 - radius) / g);  // first contact, 0.4515 s
  for (double t = 0.1; t < t_touch; t += 0.1) {
    if (cs_simAdvanceTo(sim, t, &err) != CS_OK) {
      fprintf(stderr, "bounce: %s\n", err.message);
      return 1;
    }
    double p[3], w[3], v[3];
    cs_simBodyPose(sim, ball, p, NULL);
    cs_simBodyVelocity(sim, ball, w, v);
    char what[64];
    snprintf(what, sizeof(what), "free fall: height at t = %.1f s", t);
    checkNear(what, p[2], z0 - 0.5 * g * t * t, 1e-7);
    snprintf(what, sizeof(what), "free fall: vertical speed at t = %.1f s", t);
    checkNear(what, v[2], -g * t, 1e-7);
  }

  // 3. single steps through the first impact: the contact force appears and pushes up
  double peak = 0;
  while (cs_simTime(sim) < t_touch + 0.05) {
    if (cs_simStep(sim, &err) != CS_OK) {
      fprintf(stderr, "bounce: %s\n", err.message);
      return 1;
    }
    csContactReport r;
    cs_simContact(sim, contact, &r);
    peak = fmax(peak, r.force.v.z);
  }
  // the impact speed sqrt(2 g h) = 4.43 m/s brings a Hertz peak far above the weight
  check(peak > 100 * mass * g, "first impact: peak normal force above 100 m g", peak,
        100 * mass * g, 0);
  checkNear("energy balance after the impact (J)", totalEnergy(sim), e0, 1e-6 * fabs(e0));

  // 4. a checkpoint in the air after the first bounce (its apex is near 0.59 s); the run goes
  // on, then a second simulation continues from the checkpoint and must arrive at the same place
  cs_simAdvanceTo(sim, 0.55, &err);
  if (cs_simSaveState(sim, "bounce.state", &err) != CS_OK) {
    fprintf(stderr, "bounce: %s\n", err.message);
    return 1;
  }

  double p10[3];
  cs_simAdvanceTo(sim, 1.0, &err);
  cs_simBodyPose(sim, ball, p10, NULL);

  // 5. run to the end, writing the trajectory, and read the statistics
  if (cs_simRunCsv(sim, 5.0, "bounce.csv", NULL, &err) != CS_OK) {
    fprintf(stderr, "bounce: %s\n", err.message);
    return 1;
  }
  double p[3], q[4];
  cs_simBodyPose(sim, ball, p, q);
  csContactReport r;
  cs_simContact(sim, contact, &r);
  // at rest, the Hertz force (4/3) k^(3/2) sqrt(R) d^1.5 carries the weight
  // (docs/contact-models.md, hunt_crossley): d = (3 m g / (4 k^(3/2) sqrt(R)))^(2/3) = 0.815 mm
  double depth = pow(3 * mass * g / (4 * hertz * sqrt(radius)), 2.0 / 3.0);
  checkNear("rolling: normal force equals the weight (N)", r.force.v.z, mass * g, 1e-2);
  checkNear("rolling: height of the centre (m)", p[2], radius - depth, 1e-6);
  // friction at the contact point leaves the angular momentum about it unchanged: a solid ball
  // (I = 2/5 m R^2) sliding at v0 ends up rolling at 5/7 v0 (within the 1 % the penetration and
  // the impacts' tilt of the contact force account for)
  double w[3], v[3];
  cs_simBodyVelocity(sim, ball, w, v);
  checkNear("rolling: speed is 5/7 of the initial sliding speed", v[0], 5.0 / 7.0 * 0.5,
            0.01 * 0.5);
  // no slip at the contact point, which hunt_crossley puts midway through the overlap of two
  // surfaces of one material
  checkNear("rolling: no slip, v = w (R - d/2)", v[0], w[1] * (radius - depth / 2), 1e-5);
  checkNear("energy balance at the end (J)", totalEnergy(sim), e0, 1e-6 * fabs(e0));
  csRunStatistics st;
  cs_simStatistics(sim, &st);
  printf(
      "%ld steps, %ld right-hand sides, max penetration %.3g m, peak force %.4g N, "
      "energy error %.2g\n",
      st.nsteps, st.nrhs, st.max_penetration, st.peak_normal_force, st.energy_error);
  check(st.peak_normal_force >= peak, "statistics: peak force at least the first impact's",
        st.peak_normal_force, peak, 0);

  // 6. continue from the checkpoint in a second simulation: the same state at t = 4 s
  csSimulation* again = cs_newSimulation(model, NULL, &err);
  if (!again || cs_simLoadState(again, "bounce.state", &err) != CS_OK) {
    fprintf(stderr, "bounce: %s:%d: %s\n", err.file, err.line, err.message);
    return 1;
  }
  checkNear("checkpoint: the continued run starts at t = 0.55 s", cs_simTime(again), 0.55, 0);
  // three more impacts later, at 1 s, both runs must agree to the integration tolerance
  cs_simAdvanceTo(again, 1.0, &err);
  double p2[3];
  cs_simBodyPose(again, ball, p2, NULL);
  checkNear("checkpoint: continued run at t = 1 s, x (m)", p2[0], p10[0], 1e-6);
  checkNear("checkpoint: continued run at t = 1 s, height (m)", p2[2], p10[2], 1e-6);

  cs_deleteSimulation(again);
  cs_deleteSimulation(sim);
  cs_deleteModel(model);
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
