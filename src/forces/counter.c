// counter.c: a diagnostic element with no force. Its one auto-update variable counts the
// commits the integrator makes, and its discrete variable holds the step size it last saw, so a
// test can check that auto-updates are committed exactly once per successful step.
#include "contactsim/contactsim.h"
#include "forces/kinds.h"

static const char* const g_discNames[] = {"last_dt"};


static void counterApply(const csModel* m, csData* d, int e) {
  (void)m;
  (void)d;
  (void)e;
}


static void counterUpdate(const csModel* m, csData* d, int e) {
  const csForce* f = &m->force[e];
  d->auto_cache[f->autoadr] = d->autoval[f->autoadr] + 1;
  d->disc[f->discadr] = d->auto_dt;
}


const csForceKind cs_kindCounter = {
    .name = "commit_counter",
    .doc = "diagnostic: counts auto-update commits (no force)",
    .discnum = 1,
    .discnames = g_discNames,
    .autonum = 1,
    .apply = counterApply,
    .update = counterUpdate,
};
