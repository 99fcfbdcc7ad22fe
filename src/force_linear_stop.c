// force_linear_stop.c: placeholder until the model lands.
#include "contactsim/contactsim.h"
#include "forces.h"


static void placeholderApply(const csModel* m, csData* d, int e) {
  (void)m;
  (void)d;
  (void)e;
}


const csForceKind cs_kindLinearStop = {
    .name = "linear_stop",
    .doc = "not yet implemented",
    .apply = placeholderApply,
};
