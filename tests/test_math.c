// test_math.c: math helpers against values worked out by hand.
#include "contactsim/contactsim.h"  // first: the public header must stand alone

#include "helpers.h"

#define PI 3.14159265358979323846


static void test_quaternion_rotation(void** state) {
  (void)state;
  // 90 degrees about z takes x to y
  csQuat q = csu_quatFromAxisAngle(csu_vec3(0, 0, 2), PI / 2);
  csVec3 v = csu_quatRotate(q, csu_vec3(1, 0, 0));
  th_assertClose(v.x, 0, 0, 1e-15, "x");
  th_assertClose(v.y, 1, 0, 1e-15, "y");
  // composition: a*b applies b first
  csQuat a = csu_quatFromAxisAngle(csu_vec3(1, 0, 0), PI / 2);
  csVec3 w = csu_quatRotate(csu_quatMul(a, q), csu_vec3(1, 0, 0));  // x -> y -> z
  th_assertClose(w.z, 1, 0, 1e-15, "composed");
  // matrix round trip, including the w < 0 branch and each Shepperd case
  csQuat samples[] = {csu_quatFromAxisAngle(csu_vec3(1, 2, 3), 0.3),
                      csu_quatFromAxisAngle(csu_vec3(1, 0, 0), 3.0),
                      csu_quatFromAxisAngle(csu_vec3(0, 1, 0), 3.1),
                      csu_quatFromAxisAngle(csu_vec3(0, 0.1, 1), 3.1)};
  for (int i = 0; i < 4; i++) {
    csMat33 R = csu_quatToMat(samples[i]);
    csQuat back = csu_matToQuat(&R);
    double sign = back.w * samples[i].w + back.x * samples[i].x + back.y * samples[i].y +
                  back.z * samples[i].z > 0 ? 1 : -1;
    th_assertClose(sign * back.x, samples[i].x, 0, 1e-14, "qx round trip");
    th_assertClose(sign * back.y, samples[i].y, 0, 1e-14, "qy round trip");
    th_assertClose(sign * back.z, samples[i].z, 0, 1e-14, "qz round trip");
    assert_true(back.w >= 0);
  }
}


static void test_transforms(void** state) {
  (void)state;
  csTransform X = csu_transformFromPosQuat(csu_vec3(1, 2, 3),
                                           csu_quatFromAxisAngle(csu_vec3(0, 0, 1), PI / 2));
  csVec3 p = csu_transformPoint(&X, csu_vec3(1, 0, 0));  // (1,2,3) + (0,1,0)
  th_assertClose(p.x, 1, 0, 1e-15, "px");
  th_assertClose(p.y, 3, 0, 1e-15, "py");
  csTransform Xi = csu_transformInverse(&X);
  csTransform I = csu_transformMul(&X, &Xi);
  th_assertClose(csu_norm(I.p), 0, 0, 1e-15, "X * X^-1 position");
  th_assertClose(I.R.m[0][0] + I.R.m[1][1] + I.R.m[2][2], 3, 0, 1e-15, "X * X^-1 rotation");
}


static void test_inertia_shapes(void** state) {
  (void)state;
  csMat33 box = csu_inertiaBox(12, csu_vec3(0.5, 1, 1.5));  // sides 1, 2, 3
  th_assertClose(box.m[0][0], 12 * (4 + 9) / 12.0, 1e-15, 0, "box xx");
  th_assertClose(box.m[1][1], 12 * (1 + 9) / 12.0, 1e-15, 0, "box yy");
  th_assertClose(box.m[2][2], 12 * (1 + 4) / 12.0, 1e-15, 0, "box zz");
  csMat33 sphere = csu_inertiaSphere(5, 2);
  th_assertClose(sphere.m[1][1], 0.4 * 5 * 4, 1e-15, 0, "sphere");
  csMat33 cyl = csu_inertiaCylinder(6, 1, 2);  // length 4
  th_assertClose(cyl.m[2][2], 3, 1e-15, 0, "cylinder axial");
  th_assertClose(cyl.m[0][0], 6 * (3 + 16) / 12.0, 1e-15, 0, "cylinder transverse");
  assert_true(csu_inertiaIsValid(&box));
  assert_true(csu_inertiaIsValid(&cyl));
}


static void test_inertia_validity(void** state) {
  (void)state;
  csMat33 triangle = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 3}}};  // 3 > 1 + 1
  assert_false(csu_inertiaIsValid(&triangle));
  csMat33 negative = {{{1, 0, 0}, {0, -1, 0}, {0, 0, 1}}};
  assert_false(csu_inertiaIsValid(&negative));
  csMat33 asym = {{{2, 0.1, 0}, {0, 2, 0}, {0, 0, 2}}};
  assert_false(csu_inertiaIsValid(&asym));
  // a rod is the limit case: allowed
  csMat33 rod = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 2}}};
  assert_true(csu_inertiaIsValid(&rod));
  // a rotated box stays valid (off-diagonal terms)
  csMat33 box = csu_inertiaBox(1, csu_vec3(0.1, 0.2, 0.3));
  csMat33 R = csu_quatToMat(csu_quatFromAxisAngle(csu_vec3(1, 1, 0), 0.5));
  csMat33 RI = csu_mulMM(&R, &box);
  csMat33 rotated = csu_mulMM(&RI, &(csMat33){{{R.m[0][0], R.m[1][0], R.m[2][0]},
                                                {R.m[0][1], R.m[1][1], R.m[2][1]},
                                                {R.m[0][2], R.m[1][2], R.m[2][2]}}});
  assert_true(csu_inertiaIsValid(&rotated));
}


static void test_step5(void** state) {
  (void)state;
  assert_true(csu_step5(-1) == 0);
  assert_true(csu_step5(2) == 1);
  th_assertClose(csu_step5(0.5), 0.5, 0, 1e-15, "midpoint");
  // zero slope at both ends: (f(h) - f(0)) / h -> 0
  assert_true(csu_step5(1e-4) / 1e-4 < 1e-6);
}


// csu_min and csu_max follow fmin and fmax: the other argument when one is NaN, in either place
static void test_min_max(void** state) {
  (void)state;
  double values[] = {-2.5, -0.0, 0.0, 1e-300, 3.0, INFINITY, -INFINITY, NAN};
  int n = (int)(sizeof(values) / sizeof(values[0]));
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      double a = values[i], b = values[j];
      double lo = csu_min(a, b), hi = csu_max(a, b);
      if (isnan(a) && isnan(b)) {
        assert_true(isnan(lo) && isnan(hi));
      } else if (a == 0 && b == 0) {
        // fmin(-0, +0) may give either zero; so may these
        assert_true(lo == 0 && hi == 0);
      } else {
        assert_true(lo == fmin(a, b));
        assert_true(hi == fmax(a, b));
      }
    }
  }
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_quaternion_rotation),
      cmocka_unit_test(test_transforms),
      cmocka_unit_test(test_inertia_shapes),
      cmocka_unit_test(test_inertia_validity),
      cmocka_unit_test(test_step5),
      cmocka_unit_test(test_min_max),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
