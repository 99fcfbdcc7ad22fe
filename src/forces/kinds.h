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

#endif  // CONTACTSIM_FORCES_KINDS_H
