// force_smooth_sphere.c: placeholder until the model lands.
#include "contactsim/contactsim.h"
#include "forces.h"


static void placeholderApply(const csModel* m, csData* d, int e) {
  (void)m;
  (void)d;
  (void)e;
}


const csForceKind cs_kindSmoothSphere = {
    .name = "smooth_sphere_half_space",
    .doc = "not yet implemented",
    .apply = placeholderApply,
};
