// math.c: math routines too long to inline.
//
// Pure functions of their arguments (no state, no allocation), so any of them may be called from
// a right-hand side.
#include <math.h>

#include "contactsim/contactsim.h"


// Rotation matrix to unit quaternion (w, x, y, z). The textbook w = sqrt(1 + tr) / 2 loses all
// precision near half-turns, where 1 + tr -> 0. 4w^2, 4x^2, 4y^2, 4z^2 are each a combination of
// the diagonal (they sum to 4, so the largest is at least 1), and the others follow from the
// off-diagonal sums and differences divided by it.
csQuat csu_matToQuat(const csMat33* R) {
  // Shepperd's method: pick the largest of w, x, y, z to divide by
  const double(*m)[3] = R->m;
  double tr = m[0][0] + m[1][1] + m[2][2];
  csQuat q;
  if (tr >= m[0][0] && tr >= m[1][1] && tr >= m[2][2]) {
    // w largest: tr >= m_ii is the same test as w^2 >= (x, y or z)^2; s = 4|w|
    double s = 2 * sqrt(1 + tr);
    q = csu_quat(0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s,
                 (m[1][0] - m[0][1]) / s);
  } else if (m[0][0] >= m[1][1] && m[0][0] >= m[2][2]) {
    // x largest (m00 >= m11 is x^2 >= y^2); s = 4|x|
    double s = 2 * sqrt(1 + m[0][0] - m[1][1] - m[2][2]);
    q = csu_quat((m[2][1] - m[1][2]) / s, 0.25 * s, (m[0][1] + m[1][0]) / s,
                 (m[0][2] + m[2][0]) / s);
  } else if (m[1][1] >= m[2][2]) {
    // y largest; s = 4|y|
    double s = 2 * sqrt(1 + m[1][1] - m[0][0] - m[2][2]);
    q = csu_quat((m[0][2] - m[2][0]) / s, (m[0][1] + m[1][0]) / s, 0.25 * s,
                 (m[1][2] + m[2][1]) / s);
  } else {
    // z largest; s = 4|z|
    double s = 2 * sqrt(1 + m[2][2] - m[0][0] - m[1][1]);
    q = csu_quat((m[1][0] - m[0][1]) / s, (m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s,
                 0.25 * s);
  }
  // keep w >= 0 so that the same rotation always gives the same quaternion
  if (q.w < 0) {
    q = csu_quat(-q.w, -q.x, -q.y, -q.z);
  }
  // renormalise: the input is only orthogonal to rounding
  return csu_quatNormalize(q);
}


// The quaternion is normalised first: scene files give rounded values, and the matrix formula
// assumes |q| = 1 (for any other length its result is not a rotation).
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


// solid box, full edges 2h: I_xx = m (Ly^2 + Lz^2) / 12 and so on
csMat33 csu_inertiaBox(double mass, csVec3 h) {
  double x2 = 4 * h.x * h.x, y2 = 4 * h.y * h.y, z2 = 4 * h.z * h.z;
  return diag33(mass * (y2 + z2) / 12, mass * (x2 + z2) / 12, mass * (x2 + y2) / 12);
}


// solid sphere: 2/5 m r^2 about every axis through the centre
csMat33 csu_inertiaSphere(double mass, double r) {
  double i = 0.4 * mass * r * r;
  return diag33(i, i, i);
}


// solid cylinder along z, full length 2h: I_xx = I_yy = m (3 r^2 + L^2) / 12, I_zz = m r^2 / 2
csMat33 csu_inertiaCylinder(double mass, double r, double h) {
  double len2 = 4 * h * h;
  double ixx = mass * (3 * r * r + len2) / 12;
  return diag33(ixx, ixx, 0.5 * mass * r * r);
}


// Whether a central inertia can belong to a real body: finite, symmetric, positive definite, and
// principal moments obeying the triangle inequality (I1 = int (y^2 + z^2) dm <= I2 + I3 for any
// nonnegative density). Each test relies on the earlier ones, and tolerances are relative to the
// trace so that units do not matter.
int csu_isPositiveDefinite(const csMat33* I) {
  // the leading minors of the matrix over its trace's magnitude, so that small moments (a body
  // of 1e-110 kg) do not underflow to zero in the products
  double scale = fabs(I->m[0][0]) + fabs(I->m[1][1]) + fabs(I->m[2][2]);
  if (!(scale > 0)) {
    return 0;
  }
  double a[3][3];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      a[i][j] = I->m[i][j] / scale;
    }
  }
  double m1 = a[0][0];
  double m2 = a[0][0] * a[1][1] - a[0][1] * a[1][0];
  double m3 = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
              a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
              a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  return m1 > 0 && m2 > 0 && m3 > 0;
}


int csu_inertiaIsValid(const csMat33* I) {
  const double(*a)[3] = I->m;
  // finite first: NaN fails every comparison, so it would pass the symmetry test below
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
  // criterion: the 1x1, 2x2 and 3x3 leading minors must all be positive; written as !(...) so
  // that a NaN minor fails too
  if (!csu_isPositiveDefinite(I)) {
    return 0;
  }
  // principal moments by the closed-form symmetric eigenvalue formula
  // (Smith 1961, the trigonometric solution of the characteristic cubic): with q = tr / 3,
  // p = sqrt(tr((A - qI)^2) / 6) and B = (A - qI) / p, the eigenvalues are
  // q + 2p cos(acos(det(B) / 2) / 3 + 2 pi k / 3). p1 is the off-diagonal sum of squares; when
  // it is negligible the matrix is already diagonal.
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
    // det(B) / 2 is in [-1, 1] in exact arithmetic; clamp the rounding before acos
    double r = fmax(-1.0, fmin(1.0, detb / 2));
    double phi = acos(r) / 3;
    // largest and smallest (2.0943... = 2 pi / 3); the middle one from the trace
    ev[0] = qm + 2 * p * cos(phi);
    ev[2] = qm + 2 * p * cos(phi + 2.0943951023931954923);
    ev[1] = 3 * qm - ev[0] - ev[2];
  }
  // the triangle inequality with slack, so that a flat plate (I_z = I_x + I_y exactly) passes
  double slack = 1e-9 * scale;
  return ev[0] <= ev[1] + ev[2] + slack && ev[1] <= ev[0] + ev[2] + slack &&
         ev[2] <= ev[0] + ev[1] + slack;
}


// The quintic smoothstep 10x^3 - 15x^4 + 6x^5 on [0, 1], clamped outside: its first and second
// derivatives vanish at both ends, so a friction law blended with it stays twice differentiable
// and the integrator meets no kink.
double csu_step5(double x) {
  if (x <= 0) {
    return 0;
  }
  if (x >= 1) {
    return 1;
  }
  // Horner form of x^3 (10 - 15x + 6x^2)
  return x * x * x * (10 + x * (-15 + 6 * x));
}
