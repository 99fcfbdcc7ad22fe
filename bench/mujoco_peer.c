// mujoco_peer.c: contactsim's benchmark scenes (scenes/bench/) built in MuJoCo 2.2.2, for
// timing MuJoCo at its defaults on the same bodies.
//
//   mujoco_peer SCENE [--timestep H] [--integrator Euler|RK4] [--traj FILE.csv]
//                     [--report-interval DT] [--stops mujoco|scene]
//                     [--contact mujoco|hunt_crossley]
//
// SCENE: block_spin_slide, incline_stick, incline_slide, sphere_bounce_roll, pendulum_stop,
// bushing_hang, chain_N (N >= 1). Masses, inertias, geometry, initial states and joint ranges
// are those of scenes/bench/SCENE.json. The contact and limit models are MuJoCo's own (soft
// constraints with its default solref/solimp and one friction coefficient: the kinetic one,
// 0.5, 0.6 for the ball), since MuJoCo has no penalty springs or Stribeck curves: the motion
// differs from contactsim's in detail, and each engine's error is measured against its own
// converged run.
//
// The joint stops of pendulum_stop and chain_N can instead be the scene's own (--stops scene):
// the joints unlimited, and the scene's linear stops (seed 002, src/forces/linear_stop.c:
// beyond a bound, f = -k x (1 + d qdot), never pulling) added to MuJoCo's passive forces by its
// mjcb_passive callback, so that both engines integrate the same equations. In the same way the
// contacts of incline_stick, incline_slide and sphere_bounce_roll can be the Hunt-Crossley
// spheres contactsim's bench compares them on (--contact hunt_crossley; the law of
// src/forces/hunt_crossley.c and Simbody's HuntCrossleyForce, each sphere's force applied at its
// contact point), with MuJoCo's own contacts switched off. The bushing is expressed exactly:
// three slide and three hinge joints (x-y-z body-fixed Euler angles, as the bushing's gimbal)
// with joint stiffness and damping.
//
// Defaults: timestep 2 ms, Euler (MuJoCo's defaults). Prints one line of key=value pairs with
// steps and cpu_integration (process CPU seconds of the mj_step loop alone, no output) and the
// final qpos/qvel; --traj writes, after the run, t and every body's centre of mass in Ground
// at each report time.
#include <math.h>
#include <stdarg.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpuSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

enum { XML_MAX = 1 << 20 };

typedef struct Scene {
  char xml[XML_MAX];
  size_t len;
  double duration;
} Scene;

static void add(Scene* s, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(Scene* s, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(s->xml + s->len, XML_MAX - s->len, fmt, ap);
  va_end(ap);
  if (n > 0) {
    s->len += (size_t)n;
  }
}

static void header(Scene* s, double h, const char* integrator) {
  add(s, "<mujoco><compiler angle=\"degree\"/>"
         "<option timestep=\"%.17g\" integrator=\"%s\" gravity=\"0 0 -9.81\"/>"
         "<worldbody>", h, integrator);
}

static void blockSpinSlide(Scene* s) {
  add(s, "<geom type=\"plane\" size=\"0 0 1\" friction=\"0.5 0.005 0.0001\"/>"
         "<body name=\"block\" pos=\"0 0 0.103261976704\"><freejoint/>"
         "<inertial pos=\"0 0 0\" mass=\"10\" diaginertia=\"1 1 1\"/>"
         "<geom type=\"box\" size=\"0.1 0.1 0.1\" friction=\"0.5 0.005 0.0001\"/></body>");
  s->duration = 12.0;
}

static void incline(Scene* s, double deg, double px, double pz, double duration) {
  add(s, "<geom type=\"plane\" size=\"0 0 1\" axisangle=\"0 1 0 %g\" friction=\"0.5 0.005 0.0001\"/>"
         "<body name=\"block\" pos=\"%.17g 0 %.17g\" axisangle=\"0 1 0 %g\"><freejoint/>"
         "<geom type=\"box\" size=\"0.1 0.1 0.1\" mass=\"10\" friction=\"0.5 0.005 0.0001\"/>"
         "</body>", deg, px, pz, deg);
  s->duration = duration;
}

static void sphereBounceRoll(Scene* s) {
  add(s, "<geom type=\"plane\" size=\"0 0 1\" friction=\"0.6 0.005 0.0001\"/>"
         "<body name=\"ball\" pos=\"0 0 0.5\"><freejoint/>"
         "<geom type=\"sphere\" size=\"0.1\" mass=\"1\" friction=\"0.6 0.005 0.0001\"/></body>");
  s->duration = 3.0;
}

// Hunt-Crossley spheres against a plane through the origin, for --contact hunt_crossley (both
// surfaces of one material, as the bench scenes give it: k = E^(2/3) / 2, each surface taking
// half of the overlap)
enum { SPHERES_MAX = 16 };
typedef struct Sphere {
  double center[3];  // in the body frame, m
  double radius, k, c, us, ud, uv, vt;
  double nout[3];    // the plane's outward normal in Ground
} Sphere;
static int g_nsphere;
static Sphere g_sphere[SPHERES_MAX];
static int g_sphereBody = 1;  // the scenes' one body

static void addSpheres(const double (*centers)[3], int n, double radius, double E, double c,
                       double us, double ud, double vt, double planeDeg) {
  double a = planeDeg * 3.14159265358979323846 / 180;
  for (int i = 0; i < n && g_nsphere < SPHERES_MAX; i++) {
    Sphere* sp = &g_sphere[g_nsphere++];
    memcpy(sp->center, centers[i], sizeof(sp->center));
    sp->radius = radius;
    sp->k = pow(E, 2.0 / 3.0) / 2;
    sp->c = c;
    sp->us = us;
    sp->ud = ud;
    sp->uv = 0;
    sp->vt = vt;
    // the plane turned by planeDeg about Ground y, as the scenes' ramps
    sp->nout[0] = sin(a);
    sp->nout[1] = 0;
    sp->nout[2] = cos(a);
  }
}

// the spheres' forces, applied at their contact points through MuJoCo's Jacobians
static void spherePassive(const mjModel* m, mjData* d) {
  const double* xp = d->xpos + 3 * g_sphereBody;
  const double* R = d->xmat + 9 * g_sphereBody;
  for (int i = 0; i < g_nsphere; i++) {
    const Sphere* sp = &g_sphere[i];
    double ctr[3];
    for (int r = 0; r < 3; r++) {
      ctr[r] = xp[r] + R[3 * r] * sp->center[0] + R[3 * r + 1] * sp->center[1] +
               R[3 * r + 2] * sp->center[2];
    }
    const double* no = sp->nout;
    double x = sp->radius - (ctr[0] * no[0] + ctr[1] * no[1] + ctr[2] * no[2]);
    if (!(x > 0)) {
      continue;
    }
    // the contact point, half of the overlap into the sphere from its lowest point
    double point[3];
    for (int r = 0; r < 3; r++) {
      point[r] = ctr[r] - (sp->radius - 0.5 * x) * no[r];
    }
    // the body's material point there: its velocity, the penetration rate and the slip (the
    // scenes' one free body: nv = 6)
    double jacp[3 * 6], v[3] = {0, 0, 0};
    mj_jac(m, d, jacp, NULL, point, g_sphereBody);
    for (int r = 0; r < 3; r++) {
      for (int j = 0; j < m->nv; j++) {
        v[r] += jacp[r * m->nv + j] * d->qvel[j];
      }
    }
    double xdot = -(v[0] * no[0] + v[1] * no[1] + v[2] * no[2]);
    double vt[3] = {v[0] + xdot * no[0], v[1] + xdot * no[1], v[2] + xdot * no[2]};
    double slip = sqrt(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2]);
    double fH = (4.0 / 3.0) * sp->k * x * sqrt(sp->radius * sp->k * x);
    double fn = fmax(0, fH * (1 + 1.5 * sp->c * xdot));
    double vr = slip / sp->vt;
    double mu = fmin(vr, 1.0) * (sp->ud + 2 * (sp->us - sp->ud) / (1 + vr * vr)) + sp->uv * slip;
    double f[3], zero[3] = {0, 0, 0};
    for (int r = 0; r < 3; r++) {
      f[r] = fn * no[r] - (slip > 0 ? fn * mu / slip * vt[r] : 0);
    }
    mj_applyFT(m, d, f, zero, point, g_sphereBody, d->qfrc_passive);
  }
}

static const double g_corners[4][3] = {
    {-0.1, -0.1, -0.1}, {0.1, -0.1, -0.1}, {-0.1, 0.1, -0.1}, {0.1, 0.1, -0.1}};

// the scene's stops, for --stops scene: per degree of freedom, bounds (rad), k and d
enum { STOPS_MAX = 4096 };
static int g_nstop;
static double g_stop[STOPS_MAX][4];

static void addStop(double lower, double upper, double k, double d) {
  if (g_nstop < STOPS_MAX) {
    g_stop[g_nstop][0] = lower;
    g_stop[g_nstop][1] = upper;
    g_stop[g_nstop][2] = k;
    g_stop[g_nstop][3] = d;
    g_nstop++;
  }
}

// mjcb_passive: the linear stop of contactsim's linear_stop.c on hinge dof i (one per joint)
static void stopPassive(const mjModel* m, mjData* d) {
  for (int i = 0; i < g_nstop && i < m->njnt; i++) {
    double q = d->qpos[m->jnt_qposadr[i]], qd = d->qvel[m->jnt_dofadr[i]];
    double k = g_stop[i][2], c = g_stop[i][3], f = 0;
    if (q > g_stop[i][1]) {
      f = fmin(0, -k * (q - g_stop[i][1]) * (1 + c * qd));
    } else if (q < g_stop[i][0]) {
      f = fmax(0, -k * (q - g_stop[i][0]) * (1 - c * qd));
    }
    d->qfrc_passive[m->jnt_dofadr[i]] += f;
  }
}

// a hinge about Ground -y (contactsim's pin axis in these scenes) from lower to upper rad:
// MuJoCo's limit (the compiler reads degrees), or none and the scene's stop
static void stopJoint(Scene* s, int sceneStops, double lower, double upper, double k, double d) {
  if (sceneStops) {
    add(s, "<joint type=\"hinge\" axis=\"0 -1 0\"/>");
    addStop(lower, upper, k, d);
  } else {
    add(s, "<joint type=\"hinge\" axis=\"0 -1 0\" limited=\"true\" range=\"%.17g %.17g\"/>",
        lower * 180 / 3.14159265358979323846, upper * 180 / 3.14159265358979323846);
  }
}

static void pendulumStop(Scene* s, int sceneStops) {
  // the arm's mass centre 1 m below the pin at q = 0; stops at -0.5 and 0.8 rad
  add(s, "<body name=\"arm\" pos=\"0 0 2\">");
  stopJoint(s, sceneStops, -0.5, 0.8, 300, 0.1);
  add(s, "<inertial pos=\"0 0 -1\" mass=\"1\" diaginertia=\"0.001 0.001 0.001\"/></body>");
  s->duration = 5.0;
}

static void bushingHang(Scene* s) {
  // frame F at (0, 0, 1) on Ground; the body frame is the bushing's frame M, the box's centre
  // 0.1 m below it; joints: p_FM in F, then R_FM = Rx Ry Rz (seed 003)
  add(s, "<body name=\"block\" pos=\"0 0 1\">"
         "<joint type=\"slide\" axis=\"1 0 0\" stiffness=\"2000\" damping=\"20\"/>"
         "<joint type=\"slide\" axis=\"0 1 0\" stiffness=\"2000\" damping=\"20\"/>"
         "<joint type=\"slide\" axis=\"0 0 1\" stiffness=\"4000\" damping=\"30\"/>"
         "<joint type=\"hinge\" axis=\"1 0 0\" stiffness=\"50\" damping=\"1\"/>"
         "<joint type=\"hinge\" axis=\"0 1 0\" stiffness=\"50\" damping=\"1\"/>"
         "<joint type=\"hinge\" axis=\"0 0 1\" stiffness=\"30\" damping=\"0.6\"/>"
         "<inertial pos=\"0 0 -0.1\" mass=\"2\" diaginertia=\"%.17g %.17g %.17g\"/></body>",
      2.0 / 3 * 0.02, 2.0 / 3 * 0.02, 2.0 / 3 * 0.02);
  s->duration = 5.0;
}

// initial bushing coordinates of the scene's pose (centre (0.02, -0.01, 0.87), 15 degrees
// about (1, 1, 0), angular velocity (0, 0, 1) in Ground, at rest otherwise)
static void bushingInitial(const mjModel* m, mjData* d) {
  double axis[3] = {1 / sqrt(2.0), 1 / sqrt(2.0), 0}, quat[4], R[9];
  mju_axisAngle2Quat(quat, axis, 15 * 3.14159265358979323846 / 180);
  mju_quat2Mat(R, quat);
  // M origin = centre + R (0, 0, 0.1); p_FM = M origin - (0, 0, 1)
  double pm[3] = {0.02 + 0.1 * R[2], -0.01 + 0.1 * R[5], 0.87 + 0.1 * R[8] - 1.0};
  // R = Rx(a) Ry(b) Rz(c): R02 = sin b, R12 = -sin a cos b, R22 = cos a cos b,
  // R01 = -cos b sin c, R00 = cos b cos c
  double b = asin(R[2]), a = atan2(-R[5], R[8]), c = atan2(-R[1], R[0]);
  // angular velocity w = ex da + Rx(a) ey db + Rx(a) Ry(b) ez dc, solved for the rates
  double w[3] = {0, 0, 1};
  double J[9] = {1, 0, sin(b), 0, cos(a), -sin(a) * cos(b), 0, sin(a), cos(a) * cos(b)};
  double det = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
               J[2] * (J[3] * J[7] - J[4] * J[6]);
  double rates[3];
  for (int k = 0; k < 3; k++) {
    double Jk[9];
    memcpy(Jk, J, sizeof(Jk));
    for (int r = 0; r < 3; r++) {
      Jk[3 * r + k] = w[r];
    }
    rates[k] = (Jk[0] * (Jk[4] * Jk[8] - Jk[5] * Jk[7]) - Jk[1] * (Jk[3] * Jk[8] - Jk[5] * Jk[6]) +
                Jk[2] * (Jk[3] * Jk[7] - Jk[4] * Jk[6])) / det;
  }
  // velocity of M's origin: the centre is at rest, M is 0.1 m along R z from it
  double rm[3] = {0.1 * R[2], 0.1 * R[5], 0.1 * R[8]};
  double vm[3] = {w[1] * rm[2] - w[2] * rm[1], w[2] * rm[0] - w[0] * rm[2],
                  w[0] * rm[1] - w[1] * rm[0]};
  double q[6] = {pm[0], pm[1], pm[2], a, b, c};
  double v[6] = {vm[0], vm[1], vm[2], rates[0], rates[1], rates[2]};
  for (int i = 0; i < 6 && i < m->nq; i++) {
    d->qpos[i] = q[i];
    d->qvel[i] = v[i];
  }
}

static void chain(Scene* s, int n, int sceneStops) {
  for (int i = 0; i < n; i++) {
    add(s, "<body name=\"link%d\" pos=\"%s\">", i, i == 0 ? "0 0 1" : "0.1 0 0");
    stopJoint(s, sceneStops, -0.5, 0.5, 50, 0.2);
    add(s, "<inertial pos=\"0.05 0 0\" mass=\"0.1\" diaginertia=\"1e-5 1e-4 1e-4\"/>");
  }
  for (int i = 0; i < n; i++) {
    add(s, "</body>");
  }
  s->duration = 2.0;
}

// MuJoCo's warnings (an unstable run's reset among them) on standard error, where by default
// they would also go to MUJOCO_LOG.TXT in the working directory
static void warningToStderr(const char* msg) {
  fprintf(stderr, "mujoco_peer: MuJoCo warning: %s\n", msg);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: mujoco_peer SCENE [--timestep H] [--integrator Euler|RK4] "
                    "[--traj FILE.csv] [--report-interval DT] [--stops mujoco|scene] "
                    "[--contact mujoco|hunt_crossley]\n");
    return 2;
  }
  const char* name = argv[1];
  const char* integrator = "Euler";
  const char* traj = NULL;
  double h = 0.002, dt = 0.01;
  int sceneStops = 0, hc = 0;
  for (int i = 2; i < argc; i++) {
    int more = i + 1 < argc;
    if (!strcmp(argv[i], "--timestep") && more) {
      h = atof(argv[++i]);
    } else if (!strcmp(argv[i], "--integrator") && more) {
      integrator = argv[++i];
    } else if (!strcmp(argv[i], "--traj") && more) {
      traj = argv[++i];
    } else if (!strcmp(argv[i], "--report-interval") && more) {
      dt = atof(argv[++i]);
    } else if (!strcmp(argv[i], "--contact") && more &&
               (!strcmp(argv[i + 1], "mujoco") || !strcmp(argv[i + 1], "hunt_crossley"))) {
      hc = !strcmp(argv[++i], "hunt_crossley");
    } else if (!strcmp(argv[i], "--stops") && more &&
               (!strcmp(argv[i + 1], "mujoco") || !strcmp(argv[i + 1], "scene"))) {
      sceneStops = !strcmp(argv[++i], "scene");
    } else {
      fprintf(stderr, "mujoco_peer: unknown or incomplete option '%s'\n", argv[i]);
      return 2;
    }
  }

  static Scene s;
  header(&s, h, integrator);
  if (!strcmp(name, "block_spin_slide")) {
    blockSpinSlide(&s);
  } else if (!strcmp(name, "incline_stick")) {
    incline(&s, 20, 0.0353361756317, 0.0970853446381, 3.0);
    if (hc) {
      addSpheres(g_corners, 4, 0.002, 282842712.475, 1.0, 0.7, 0.5, 0.01, 20);
    }
  } else if (!strcmp(name, "incline_slide")) {
    incline(&s, 40, 0.0665244866543, 0.0792807959657, 2.0);
    if (hc) {
      addSpheres(g_corners, 4, 0.002, 282842712.475, 1.0, 0.7, 0.5, 0.01, 40);
    }
  } else if (!strcmp(name, "sphere_bounce_roll")) {
    sphereBounceRoll(&s);
    if (hc) {
      const double center[1][3] = {{0, 0, 0}};
      addSpheres(center, 1, 0.1, 28284271.2475, 0.2, 0.8, 0.6, 0.01, 0);
    }
  } else if (!strcmp(name, "pendulum_stop")) {
    pendulumStop(&s, sceneStops);
  } else if (!strcmp(name, "bushing_hang")) {
    bushingHang(&s);
  } else if (!strncmp(name, "chain_", 6) && atoi(name + 6) > 0) {
    chain(&s, atoi(name + 6), sceneStops);
  } else {
    fprintf(stderr, "mujoco_peer: unknown scene '%s'\n", name);
    return 2;
  }
  if (sceneStops && g_nstop == 0) {
    fprintf(stderr, "mujoco_peer: --stops scene: scene '%s' has no stops\n", name);
    return 2;
  }
  if (hc && g_nsphere == 0) {
    fprintf(stderr, "mujoco_peer: --contact hunt_crossley: scene '%s' has no such contacts\n",
            name);
    return 2;
  }
  add(&s, "</worldbody></mujoco>");

  mju_user_warning = warningToStderr;
  // MuJoCo 2.2 loads XML from a file or a virtual file system
  mjVFS vfs;
  mj_defaultVFS(&vfs);
  mj_makeEmptyFileVFS(&vfs, "scene.xml", (int)s.len);
  memcpy(vfs.filedata[vfs.nfile - 1], s.xml, s.len);
  char err[1000] = "";
  mjModel* m = mj_loadXML("scene.xml", &vfs, err, sizeof(err));
  mj_deleteVFS(&vfs);
  if (!m) {
    fprintf(stderr, "mujoco_peer: %s\n", err);
    return 1;
  }
  mjData* d = mj_makeData(m);
  if (g_nstop > 0) {
    mjcb_passive = stopPassive;
  }
  if (g_nsphere > 0) {
    if (m->nv != 6) {
      fprintf(stderr, "mujoco_peer: --contact hunt_crossley expects one free body\n");
      return 2;
    }
    // the spheres' forces in place of MuJoCo's contacts
    m->opt.disableflags |= mjDSBL_CONTACT;
    mjcb_passive = spherePassive;
  }

  // initial velocities and coordinates of the scene
  if (!strcmp(name, "block_spin_slide")) {
    d->qvel[0] = 3;
    d->qvel[5] = 12;
  } else if (!strcmp(name, "sphere_bounce_roll")) {
    d->qvel[0] = 1;
    d->qvel[4] = -20;
  } else if (!strcmp(name, "pendulum_stop")) {
    d->qpos[0] = 1.2;
  } else if (!strcmp(name, "bushing_hang")) {
    bushingInitial(m, d);
  }

  // step to every report time, keeping the coordinates in memory: after mj_step, d->xipos
  // still holds the kinematics of the step's start (Euler) or of RK4's last stage, not of
  // d->qpos at d->time, so the mass centres are computed from the kept coordinates after the
  // timed loop
  // (at least a step between reports, and a report at the end: an interval shorter than half a
  // step divided by zero, one beyond the duration wrote only the start)
  int per = (int)fmax(1, floor(dt / m->opt.timestep + 0.5));
  long nsteps = (long)floor(s.duration / m->opt.timestep + 0.5);
  int nb = m->nbody - 1;
  long nrows = nsteps / per + 2;
  size_t width = 1 + (size_t)m->nq;
  double* rows = malloc(sizeof(double) * (size_t)nrows * width);
  long r = 0;
  double t0 = cpuSeconds();
  mj_forward(m, d);
  for (long k = 0;; k++) {
    if ((k % per == 0 || k == nsteps) && r < nrows) {
      double* row = rows + r++ * width;
      row[0] = d->time;
      memcpy(row + 1, d->qpos, sizeof(double) * (size_t)m->nq);
    }
    if (k == nsteps) {
      break;
    }
    mj_step(m, d);
  }
  double cpu = cpuSeconds() - t0;

  printf("scene=%s stops=%s contact=%s integrator=%s timestep=%g t=%.17g steps=%ld "
         "cpu_integration=%.6f qpos=",
         name, sceneStops ? "scene" : "mujoco", hc ? "hunt_crossley" : "mujoco", integrator,
         m->opt.timestep, d->time, nsteps, cpu);
  for (int i = 0; i < m->nq; i++) {
    printf("%s%.17g", i ? "," : "", d->qpos[i]);
  }
  printf(" qvel=");
  for (int i = 0; i < m->nv; i++) {
    printf("%s%.17g", i ? "," : "", d->qvel[i]);
  }
  printf("\n");

  if (traj) {
    FILE* f = fopen(traj, "w");
    if (!f) {
      fprintf(stderr, "mujoco_peer: cannot write '%s'\n", traj);
      return 1;
    }
    fprintf(f, "t");
    for (int b = 0; b < nb; b++) {
      fprintf(f, ",b%d.cx,b%d.cy,b%d.cz", b, b, b);
    }
    fprintf(f, "\n");
    mjData* dk = mj_makeData(m);
    for (long i = 0; i < r; i++) {
      const double* row = rows + i * width;
      memcpy(dk->qpos, row + 1, sizeof(double) * (size_t)m->nq);
      mj_kinematics(m, dk);
      fprintf(f, "%.17g", row[0]);
      for (int j = 0; j < 3 * nb; j++) {
        fprintf(f, ",%.17g", dk->xipos[3 + j]);
      }
      fprintf(f, "\n");
    }
    mj_deleteData(dk);
    fclose(f);
  }
  free(rows);
  mj_deleteData(d);
  mj_deleteModel(m);
  return 0;
}
