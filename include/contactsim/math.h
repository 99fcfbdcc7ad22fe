// contactsim/math.h: small value types and inline operations.
//
// Conventions, used everywhere in contactsim:
// - double precision only; vectors, quaternions and matrices are value structs passed by value.
// - csQuat is (w, x, y, z), unit length when it represents a rotation.
// - R_AB (a csMat33) re-expresses a vector from frame B in frame A: v_A = R_AB * v_B.
// - csTransform X_AB holds R_AB and p_AB, the position of B's origin measured from A's origin and
//   expressed in A; X_AB * p_B gives p_A.
// - csSpatialVec is (angular, linear) as in Simbody and MuJoCo: a spatial velocity is (w, v) and a
//   spatial force is (moment, force). The frame and the reference point are stated where used.
#ifndef CONTACTSIM_MATH_H
#define CONTACTSIM_MATH_H

#include <math.h>

// pi, for code compiled without POSIX math constants
#define CS_PI 3.14159265358979323846

typedef struct csVec3 {
  double x, y, z;
} csVec3;

typedef struct csQuat {
  double w, x, y, z;
} csQuat;

// row-major 3x3 matrix: m[row][col]
typedef struct csMat33 {
  double m[3][3];
} csMat33;

typedef struct csTransform {
  csMat33 R;  // rotation R_AB
  csVec3 p;   // origin of B from A's origin, in A
} csTransform;

typedef struct csSpatialVec {
  csVec3 w;  // angular part (angular velocity or moment)
  csVec3 v;  // linear part (linear velocity or force)
} csSpatialVec;


// The smaller and the larger of a and b, and the other one when either is NaN, as fmin and
// fmax: those stay library calls unless NaN rules are relaxed, and in an inner loop the call
// costs more than the comparison.
static inline double csu_min(double a, double b) {
  return (b < a || isnan(a)) ? b : a;
}

static inline double csu_max(double a, double b) {
  return (b > a || isnan(a)) ? b : a;
}

static inline csVec3 csu_vec3(double x, double y, double z) {
  csVec3 r = {x, y, z};
  return r;
}

static inline csVec3 csu_add(csVec3 a, csVec3 b) {
  return csu_vec3(a.x + b.x, a.y + b.y, a.z + b.z);
}

static inline csVec3 csu_sub(csVec3 a, csVec3 b) {
  return csu_vec3(a.x - b.x, a.y - b.y, a.z - b.z);
}

static inline csVec3 csu_scale(double s, csVec3 a) {
  return csu_vec3(s * a.x, s * a.y, s * a.z);
}

// a + s*b
static inline csVec3 csu_addScaled(csVec3 a, double s, csVec3 b) {
  return csu_vec3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}

static inline csVec3 csu_neg(csVec3 a) {
  return csu_vec3(-a.x, -a.y, -a.z);
}

static inline double csu_dot(csVec3 a, csVec3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline csVec3 csu_cross(csVec3 a, csVec3 b) {
  return csu_vec3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

static inline double csu_norm(csVec3 a) {
  return sqrt(csu_dot(a, a));
}

static inline csVec3 csu_vec3FromArray(const double* a) {
  return csu_vec3(a[0], a[1], a[2]);
}

static inline void csu_vec3ToArray(double* out, csVec3 a) {
  out[0] = a.x;
  out[1] = a.y;
  out[2] = a.z;
}

static inline int csu_isFiniteVec3(csVec3 a) {
  return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}


// matrices

static inline csMat33 csu_identity33(void) {
  csMat33 r = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  return r;
}

static inline csVec3 csu_mulMV(const csMat33* R, csVec3 v) {
  return csu_vec3(R->m[0][0] * v.x + R->m[0][1] * v.y + R->m[0][2] * v.z,
                  R->m[1][0] * v.x + R->m[1][1] * v.y + R->m[1][2] * v.z,
                  R->m[2][0] * v.x + R->m[2][1] * v.y + R->m[2][2] * v.z);
}

// R^T * v
static inline csVec3 csu_mulMtV(const csMat33* R, csVec3 v) {
  return csu_vec3(R->m[0][0] * v.x + R->m[1][0] * v.y + R->m[2][0] * v.z,
                  R->m[0][1] * v.x + R->m[1][1] * v.y + R->m[2][1] * v.z,
                  R->m[0][2] * v.x + R->m[1][2] * v.y + R->m[2][2] * v.z);
}

static inline csMat33 csu_mulMM(const csMat33* A, const csMat33* B) {
  csMat33 r;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      r.m[i][j] = A->m[i][0] * B->m[0][j] + A->m[i][1] * B->m[1][j] + A->m[i][2] * B->m[2][j];
    }
  }
  return r;
}

// A^T * B
static inline csMat33 csu_mulMtM(const csMat33* A, const csMat33* B) {
  csMat33 r;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      r.m[i][j] = A->m[0][i] * B->m[0][j] + A->m[1][i] * B->m[1][j] + A->m[2][i] * B->m[2][j];
    }
  }
  return r;
}

static inline csMat33 csu_transpose(const csMat33* A) {
  csMat33 r;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      r.m[i][j] = A->m[j][i];
    }
  }
  return r;
}

static inline csVec3 csu_column(const csMat33* R, int j) {
  return csu_vec3(R->m[0][j], R->m[1][j], R->m[2][j]);
}


// quaternions

static inline csQuat csu_quat(double w, double x, double y, double z) {
  csQuat q = {w, x, y, z};
  return q;
}

static inline csQuat csu_quatIdentity(void) {
  return csu_quat(1, 0, 0, 0);
}

// Hamilton product a*b (apply b first, then a)
static inline csQuat csu_quatMul(csQuat a, csQuat b) {
  return csu_quat(a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                  a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                  a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                  a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w);
}

static inline csQuat csu_quatConj(csQuat a) {
  return csu_quat(a.w, -a.x, -a.y, -a.z);
}

// Unit quaternion in the same direction; the identity when q is (near) zero.
static inline csQuat csu_quatNormalize(csQuat q) {
  double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  if (!(n > 1e-300)) {
    return csu_quatIdentity();
  }
  return csu_quat(q.w / n, q.x / n, q.y / n, q.z / n);
}

// Rotation by angle (radians) about axis (need not be unit, must be non-zero).
static inline csQuat csu_quatFromAxisAngle(csVec3 axis, double angle) {
  double n = csu_norm(axis);
  double s = sin(0.5 * angle) / n;
  return csu_quat(cos(0.5 * angle), s * axis.x, s * axis.y, s * axis.z);
}

// Rotation matrix of a unit quaternion.
static inline csMat33 csu_quatToMat(csQuat q) {
  double w = q.w, x = q.x, y = q.y, z = q.z;
  csMat33 r = {{{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}}};
  return r;
}

static inline csVec3 csu_quatRotate(csQuat q, csVec3 v) {
  csMat33 R = csu_quatToMat(q);
  return csu_mulMV(&R, v);
}


// transforms

static inline csTransform csu_transformIdentity(void) {
  csTransform X = {csu_identity33(), {0, 0, 0}};
  return X;
}

// X_AC = X_AB * X_BC
static inline csTransform csu_transformMul(const csTransform* X_AB, const csTransform* X_BC) {
  csTransform X;
  X.R = csu_mulMM(&X_AB->R, &X_BC->R);
  X.p = csu_add(X_AB->p, csu_mulMV(&X_AB->R, X_BC->p));
  return X;
}

// X_BA from X_AB
static inline csTransform csu_transformInverse(const csTransform* X_AB) {
  csTransform X;
  X.R = csu_transpose(&X_AB->R);
  X.p = csu_neg(csu_mulMV(&X.R, X_AB->p));
  return X;
}

// p_A = X_AB * p_B
static inline csVec3 csu_transformPoint(const csTransform* X_AB, csVec3 p_B) {
  return csu_add(X_AB->p, csu_mulMV(&X_AB->R, p_B));
}

#endif  // CONTACTSIM_MATH_H
