// force_hunt_crossley.c: placeholder until the model lands.
#include "contactsim/contactsim.h"
#include "forces.h"


static void placeholderApply(const csModel* m, csData* d, int e) {
  (void)m;
  (void)d;
  (void)e;
}


const csForceKind cs_kindHuntCrossley = {
    .name = "hunt_crossley",
    .doc = "not yet implemented",
    .apply = placeholderApply,
};
