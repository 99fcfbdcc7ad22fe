// force_linear_bushing.c: placeholder until the model lands.
#include "contactsim/contactsim.h"
#include "forces.h"


static void placeholderApply(const csModel* m, csData* d, int e) {
  (void)m;
  (void)d;
  (void)e;
}


const csForceKind cs_kindLinearBushing = {
    .name = "linear_bushing",
    .doc = "not yet implemented",
    .apply = placeholderApply,
};
