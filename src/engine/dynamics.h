// dynamics.h: private helpers of the articulated-body algorithm.
#ifndef CONTACTSIM_DYNAMICS_H
#define CONTACTSIM_DYNAMICS_H

#include "contactsim/types.h"

// Fill d->aba_I0 with every body's rotational inertia about its origin in body coordinates (done
// once when the data is made: it depends only on the model).
void cs_spatialInertias(const csModel* m, csData* d);

// Let the stages work on every body, force element and plane (the default).
void cs_activateAll(const csModel* m, csData* d);

#endif  // CONTACTSIM_DYNAMICS_H
