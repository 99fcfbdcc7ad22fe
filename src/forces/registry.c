// registry.c: the table of force kinds, indexed by csForceKindId. The engine reaches every kind
// through cs_forceKind; this file is the one place that names them all.
#include <string.h>

#include "contactsim/contactsim.h"
#include "forces/kinds.h"

// A const table rather than registration at run time: the set of kinds is fixed when the library
// is built, and a table that never changes is not mutable global state.
// indexed by csForceKindId
static const csForceKind* const g_kinds[CS_FORCE_KIND_COUNT] = {
    [CS_FORCE_GRAVITY] = &cs_kindGravity,
    [CS_FORCE_SPRING] = &cs_kindSpring,
    [CS_FORCE_MOBILITY_SPRING] = &cs_kindMobilitySpring,
    [CS_FORCE_MOBILITY_DAMPER] = &cs_kindMobilityDamper,
    [CS_FORCE_CONSTANT] = &cs_kindConstant,
    [CS_FORCE_EXP_SPRING] = &cs_kindExpSpring,
    [CS_FORCE_SMOOTH_SPHERE] = &cs_kindSmoothSphere,
    [CS_FORCE_HUNT_CROSSLEY] = &cs_kindHuntCrossley,
    [CS_FORCE_COMPLIANT_POINT] = &cs_kindCompliantPoint,
    [CS_FORCE_LINEAR_STOP] = &cs_kindLinearStop,
    [CS_FORCE_LINEAR_BUSHING] = &cs_kindLinearBushing,
    [CS_FORCE_COUNTER] = &cs_kindCounter,
};


// the kind of an id, NULL when out of range
const csForceKind* cs_forceKind(int id) {
  return (id >= 0 && id < CS_FORCE_KIND_COUNT) ? g_kinds[id] : NULL;
}


// by the name scene files use; -1 if none (a linear search over a dozen kinds)
int cs_forceKindByName(const char* name) {
  for (int i = 0; i < CS_FORCE_KIND_COUNT; i++) {
    if (strcmp(g_kinds[i]->name, name) == 0) {
      return i;
    }
  }
  return -1;
}
