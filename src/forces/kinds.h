// kinds.h: the kind table each force file defines (private); registry.c collects them.
#ifndef CONTACTSIM_FORCES_KINDS_H
#define CONTACTSIM_FORCES_KINDS_H

#include "contactsim/types.h"
#include "engine/forces.h"

extern const csForceKind cs_kindGravity;
extern const csForceKind cs_kindSpring;
extern const csForceKind cs_kindMobilitySpring;
extern const csForceKind cs_kindMobilityDamper;
extern const csForceKind cs_kindConstant;
extern const csForceKind cs_kindExpSpring;
extern const csForceKind cs_kindSmoothSphere;
extern const csForceKind cs_kindHuntCrossley;
extern const csForceKind cs_kindCompliantPoint;
extern const csForceKind cs_kindLinearStop;
extern const csForceKind cs_kindLinearBushing;
extern const csForceKind cs_kindCounter;

// The key that replaced an old scene key (or discrete variable) `key` of kind `kind`, with a
// note on what changed beyond the name ("" when only the name did) written to *note; NULL when
// `key` was never a key of that kind. Loaders use it to name the new key in their message.
const char* cs_renamedKey(const csForceKind* kind, const char* key, const char** note);

#endif  // CONTACTSIM_FORCES_KINDS_H
