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


// Keys renamed when the contact kinds got one vocabulary: mu_static, mu_dynamic and mu_viscous
// for friction everywhere, and a distinct name for each kind of stiffness (docs/contact-models.md,
// "One vocabulary"). The old names are refused, with a message naming the new key, rather than
// accepted as aliases: a scene then says one thing in one way.
typedef struct renamedKey {
  const char* kind;
  const char* old;
  const char* now;
  const char* note;
} renamedKey;

static const renamedKey g_renamed[] = {
    {"exponential_spring", "mu_kinetic", "mu_dynamic", ""},
    {"smooth_sphere_half_space", "stiffness", "plane_strain_modulus", ""},
    {"smooth_sphere_half_space", "static_friction", "mu_static", ""},
    {"smooth_sphere_half_space", "dynamic_friction", "mu_dynamic", ""},
    {"smooth_sphere_half_space", "viscous_friction", "mu_viscous", ""},
    {"hunt_crossley", "stiffness", "plane_strain_modulus",
     " (the modulus of each surface, as in smooth_sphere_half_space and Simbody: the old "
     "effective stiffness times 2^1.5 = 2.828)"},
    {"compliant_point", "stiffness", "penalty_stiffness", ""},
    {"compliant_point", "body_material.stiffness", "body_material.penalty_stiffness", ""},
    {"compliant_point", "plane_material.stiffness", "plane_material.penalty_stiffness", ""},
    {"hunt_crossley", "body_material.stiffness", "body_material.plane_strain_modulus", ""},
    {"hunt_crossley", "plane_material.stiffness", "plane_material.plane_strain_modulus", ""},
};


const char* cs_renamedKey(const csForceKind* kind, const char* key, const char** note) {
  for (size_t i = 0; kind && i < sizeof(g_renamed) / sizeof(g_renamed[0]); i++) {
    if (strcmp(g_renamed[i].kind, kind->name) == 0 && strcmp(g_renamed[i].old, key) == 0) {
      if (note) {
        *note = g_renamed[i].note;
      }
      return g_renamed[i].now;
    }
  }
  return NULL;
}
