// forces.h: the slot convention every contact kind follows (private to the library).
//
// Every contact kind follows one slot convention, so that the loader can turn a model-free
// "contacts" entry into elements of any contact kind:
//   ref[CS_REF_BODY]   the body that touches (second surface)
//   ref[CS_REF_PLANE]  the plane it touches (first surface; on any body)
//   param[CS_SLOT_STATION .. +2]  the station (point models) or sphere centre, in the body frame
//   param[CS_SLOT_RADIUS]         the sphere radius (sphere models; unused by point models)
#ifndef CONTACTSIM_FORCES_H
#define CONTACTSIM_FORCES_H

#include "contactsim/types.h"

enum {
  CS_REF_BODY = 0,
  CS_REF_PLANE = 1,
  CS_SLOT_STATION = 0,
  CS_SLOT_RADIUS = 3,
};

enum {
  CS_CONTACT_NONE = 0,
  CS_CONTACT_POINT = 1,
  CS_CONTACT_SPHERE = 2,
};

#endif  // CONTACTSIM_FORCES_H
