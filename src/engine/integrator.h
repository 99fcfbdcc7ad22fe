// integrator.h: the integrator object behind cs_simulate and csSimulation (private).
//
// A csIntegrator holds one CVODE instance per independent group of bodies for one model and
// data, from the data's state at creation; it is advanced to a time, by a step, or over a run
// with reports, as often as wanted. Between calls the data holds the state at the integrator's
// current time, everything active. After the data's state is edited (a checkpoint loaded, q or u
// set, a discrete variable changed), cs_integratorRestart starts every group again from it.
#ifndef CONTACTSIM_INTEGRATOR_H
#define CONTACTSIM_INTEGRATOR_H

#include "contactsim/contactsim.h"

typedef struct csIntegrator csIntegrator;

// Check options in the user's terms; 0, or -1 with err (path "simulation") filled.
int cs_validateSimOptions(const csSimOptions* opt, csError* err);
// Integrator for m and d from d's state at d->t, with a copy of opt. nchange_done: scheduled
// changes already applied (-1: those before d->t are skipped and those due at d->t are applied
// now). Returns NULL with err filled (CS_ERR_INPUT, CS_ERR_MEMORY or CS_ERR_SOLVER). The model
// and data must outlive it.
csIntegrator* cs_integratorNew(const csModel* m, csData* d, const csSimOptions* opt,
                               int nchange_done, csError* err);
// Free it (nullable); the data keeps the state it holds.
void cs_integratorFree(csIntegrator* it);
// Advance to t (>= the current time), no group stepping past horizon (>= t); the data is left
// at t. rep (nullable): its step hook after every successful step, its progress after every goal.
int cs_integratorAdvance(csIntegrator* it, double t, double horizon, const csReporter* rep,
                         csError* err);
// One step of every group that stands at the current time; the data is left at the earliest
// end of the groups' steps. No group steps past horizon.
int cs_integratorStep(csIntegrator* it, double horizon, const csReporter* rep, csError* err);
// Advance to t_end reporting at the current time, at every k * report_interval after it and at
// t_end (rep->report; nullable rep).
int cs_integratorRun(csIntegrator* it, double t_end, const csReporter* rep, csError* err);
// Commit the auto-updates of the steps that ended exactly at the current time.
void cs_integratorSettle(csIntegrator* it, const csReporter* rep);
// Start every group again from the data's state at d->t; nchange_done >= 0 replaces the count of
// scheduled changes already applied.
int cs_integratorRestart(csIntegrator* it, int nchange_done, csError* err);
// CVODE's counters (banked over restarts) and the group layout into st; the other fields of st
// are left alone.
void cs_integratorStats(const csIntegrator* it, csStats* st);
// Current time, s; scheduled changes applied; CPU time of the integration so far, s; restarts;
// groups of bodies integrated apart (with more than one, a failed step takes every group back to
// the last time they stood together: the last report, or the start).
double cs_integratorTime(const csIntegrator* it);
int cs_integratorChangesDone(const csIntegrator* it);
double cs_integratorCpu(const csIntegrator* it);
long cs_integratorRestarts(const csIntegrator* it);
int cs_integratorGroups(const csIntegrator* it);
// Number of m's scheduled changes earlier than t.
int cs_integratorChangesBefore(const csModel* m, double t);

#endif  // CONTACTSIM_INTEGRATOR_H
