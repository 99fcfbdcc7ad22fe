// math.c: math routines too long to inline.
#include <math.h>

#include "contactsim/contactsim.h"


csQuat csu_matToQuat(const csMat33* R) {
  // Shepperd's method: pick the largest of w, x, y, z to divide by
  const double(*m)[3] = R->m;
  double tr = m[0][0] + m[1][1] + m[2][2];
  csQuat q;
  if (tr >= m[0][0] && tr >= m[1][1] && tr >= m[2][2]) {
    double s = 2 * sqrt(1 + tr);
    q = csu_quat(0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s);
  } else if (m[0][0] >= m[1][1] && m[0][0] >= m[2][2]) {
    double s = 2 * sqrt(1 + m[0][0] - m[1][1] - m[2][2]);
    q = csu_quat((m[2][1] - m[1][2]) / s, 0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s);
  } else if (m[1][1] >= m[2][2]) {
    double s = 2 * sqrt(1 + m[1][1] - m[0][0] - m[2][2]);
    q = csu_quat((m[0][2] - m[2][0]) / s, (m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s);
  } else {
    double s = 2 * sqrt(1 + m[2][2] - m[0][0] - m[1][1]);
    q = csu_quat((m[1][0] - m[0][1]) / s, (m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s);
  }
  // keep w >= 0 so that the same rotation always gives the same quaternion
  if (q.w < 0) {
    q = csu_quat(-q.w, -q.x, -q.y, -q.z);
  }
  return csu_quatNormalize(q);
}


csTransform csu_transformFromPosQuat(csVec3 p, csQuat q) {
  csTransform X;
  X.R = csu_quatToMat(csu_quatNormalize(q));
  X.p = p;
  return X;
}


static csMat33 diag33(double a, double b, double c) {
  csMat33 r = {{{a, 0, 0}, {0, b, 0}, {0, 0, c}}};
  return r;
}


csMat33 csu_inertiaBox(double mass, csVec3 h) {
  double x2 = 4 * h.x * h.x, y2 = 4 * h.y * h.y, z2 = 4 * h.z * h.z;
  return diag33(mass * (y2 + z2) / 12, mass * (x2 + z2) / 12, mass * (x2 + y2) / 12);
}


csMat33 csu_inertiaSphere(double mass, double r) {
  double i = 0.4 * mass * r * r;
  return diag33(i, i, i);
}


csMat33 csu_inertiaCylinder(double mass, double r, double h) {
  double len2 = 4 * h * h;
  double ixx = mass * (3 * r * r + len2) / 12;
  return diag33(ixx, ixx, 0.5 * mass * r * r);
}


int csu_inertiaIsValid(const csMat33* I) {
  const double(*a)[3] = I->m;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      if (!isfinite(a[i][j])) {
        return 0;
      }
    }
  }
  // symmetric
  double scale = fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]);
  if (fabs(a[0][1] - a[1][0]) > 1e-9 * scale || fabs(a[0][2] - a[2][0]) > 1e-9 * scale ||
      fabs(a[1][2] - a[2][1]) > 1e-9 * scale) {
    return 0;
  }
  // positive definite by leading principal minors (Sylvester)
  double m1 = a[0][0];
  double m2 = a[0][0] * a[1][1] - a[0][1] * a[1][0];
  double m3 = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
              a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
              a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  if (!(m1 > 0 && m2 > 0 && m3 > 0)) {
    return 0;
  }
  // principal moments by the closed-form symmetric eigenvalue formula
  double p1 = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
  double ev[3];
  if (p1 <= 1e-30 * scale * scale) {
    ev[0] = a[0][0];
    ev[1] = a[1][1];
    ev[2] = a[2][2];
  } else {
    double qm = (a[0][0] + a[1][1] + a[2][2]) / 3;
    double p2 = (a[0][0] - qm) * (a[0][0] - qm) + (a[1][1] - qm) * (a[1][1] - qm) +
                (a[2][2] - qm) * (a[2][2] - qm) + 2 * p1;
    double p = sqrt(p2 / 6);
    double b[3][3];
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        b[i][j] = (a[i][j] - (i == j ? qm : 0)) / p;
      }
    }
    double detb = b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1]) -
                  b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0]) +
                  b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0]);
    double r = fmax(-1.0, fmin(1.0, detb / 2));
    double phi = acos(r) / 3;
    ev[0] = qm + 2 * p * cos(phi);
    ev[2] = qm + 2 * p * cos(phi + 2.0943951023931954923);
    ev[1] = 3 * qm - ev[0] - ev[2];
  }
  double slack = 1e-9 * scale;
  return ev[0] <= ev[1] + ev[2] + slack && ev[1] <= ev[0] + ev[2] + slack &&
         ev[2] <= ev[0] + ev[1] + slack;
}


double csu_step5(double x) {
  if (x <= 0) {
    return 0;
  }
  if (x >= 1) {
    return 1;
  }
  return x * x * x * (10 + x * (-15 + 6 * x));
}
