// metrics.h: per-step contact statistics and plain-word diagnostics of a run, shared by `run`
// and `compare` (private to the contactsim executable).
//
// The statistics are fed from the reporter: cs_metricsStep after every successful step and
// cs_metricsReport at every report time, both with the data realized to dynamics. Every array is
// allocated once by cs_metricsInit; nothing is allocated while the run goes on. The definitions
// of the metrics are in docs/cli.md ("Metrics").
#ifndef CONTACTSIM_METRICS_H
#define CONTACTSIM_METRICS_H

#include "contactsim/contactsim.h"

#define CS_METRICS_MAX_NOTES 8      // diagnostics listed per run, and one verdict more
#define CS_METRICS_NOTE_LEN 1024    // longest diagnostic, with the terminating zero
// the size of a buffer for every note joined (cs_metricsJoinNotes), separators included
#define CS_METRICS_JOINED_LEN ((CS_METRICS_MAX_NOTES + 1) * (CS_METRICS_NOTE_LEN + 3))
#define CS_METRICS_STICK_SPEED 0.01 // m/s: slip speed below which a contact counts as stuck

// What is tracked for one contact element.
typedef struct csMetricsContact {
  int force;               // element id in m->force
  int body;                // body that touches (second surface)
  int plane;               // plane touched
  int set;                 // contact set (m->group_name index), -1 when it belongs to none
  int sphere;              // 1: sphere kind (penetration R - h); 0: point kind (penetration -h)
  double radius;           // sphere radius, m (0 for point kinds)
  int fn_extra;            // index of its kind's "normal_force" report value, which the kind's
                           // apply keeps current after each dynamics stage; -1: none (the
                           // normal force then comes from a contact report)
  double loaded_above;     // the contact is loaded when its normal force exceeds this, N
  double peak_fn;          // largest normal force seen, N
  double max_penetration;  // deepest penetration seen, m
  double prev_xy[2];       // station in the plane frame at the end of the previous step, m
  double prev_slip[2];     // slip velocity in the plane frame at the end of the previous step, m/s
  double t_prev;           // end of the previous step of its group, s
  double weight;           // weight of the bodies the contact carries (the touching body's tree
                           // below ground, and the plane's if that moves), N
  double fn0;              // normal force at the start, N
  double penetration0;     // penetration at the start (signed: < 0 is a gap), m
  double fn;               // normal force at the latest report, N
  double gap;              // height of the touching surface above the plane at the latest
                           // report (sphere: centre height - radius; point: station height), m
} csMetricsContact;

// The normal force of a contact (or of a contact set) over the latest complete time window of
// CS_METRICS_WINDOW seconds, for telling a body at rest from one still bouncing or rocking.
typedef struct csMetricsWindow {
  double t0, min, max, sum;  // the window being filled: start (s), extremes and sum of fn (N)
  int n;                     // reports in it
  double pt0, pmin, pmax, psum;  // the last complete window
  int pn;
} csMetricsWindow;

#define CS_METRICS_WINDOW 0.25       // s: length of a normal-force window
#define CS_METRICS_SETTLE 1.0        // s: a body still bouncing this long after the start is
                                     // called under-damped
#define CS_METRICS_PEAK_RATIO 250.0   // peak contact force / weight carried above which a run is
                                     // warned about
#define CS_METRICS_KICK_RATIO 2.0    // initial contact force / weight carried above which the
                                     // start is called a kick
#define CS_METRICS_FLOAT_GAP 1e-3    // m: a loaded contact this far above its plane floats

// Statistics of one run.
typedef struct csMetrics {
  int ncontact;                // contact elements
  csMetricsContact* contact;   // (ncontact)
  int nforce;                  // force elements of the model
  int* contact_of;             // (nforce) index into contact of each element, -1: not a contact
  int nset;                    // contact sets (m->ngroup)
  double* set_fn;              // (nset) scratch: total normal force of each set at one instant, N
  double* set_peak;            // (nset) peak of that total, N
  int* set_size;               // (nset) elements in each set
  int* set_pick;               // (nset) scratch: one element of each set (the first, the deepest)
  csMetricsWindow* window;     // (ncontact + nset) normal-force windows: each contact, then each
                               // set
  double stick_speed;          // m/s: steps whose mean slip speed is below this count as stuck
  double e0;                   // KE + PE + dissipated at the start (its first report), J
  double t0;                   // the start time, s
  long nreport;                // reports sampled
  double e_edit;               // what edits of the state between calls gave (> 0) or took, J:
                               // the balance counts the integration's gains and losses only
  double balance_last;         // KE + PE + dissipated - e_edit - e0 at the last report, J
  double escale;               // max(|E0|, KE0 + |PE0|, 1e-12), J
  double creep_speed;          // worst creep speed found by the exponential-spring check, m/s

  // results
  double max_penetration;      // m, over every contact element
  double peak_normal_force;    // N, the largest peak over contact sets (a lone element is a set)
  double sliding_distance;     // m
  double stuck_drift;          // m
  double energy_error;         // relative, max over reports
  double energy_gain;          // J: largest rise of KE + PE + dissipated above its start, the
                               // scheduled changes' part (e_change) left out
  double energy_loss;          // J: largest fall of it below its start, the same way
  double energy_seen;          // J: largest KE + |PE| + |dissipated| at a report
  double last_e, last_t;       // the balance (J) and the time (s) of the last report
  double e_change;             // J: the balance's moves between reports that a scheduled change
                               // came between (what the changes stored, or released if < 0)
  double jump, jump_t0, jump_t1;  // the largest of those rises, J, and its reports' times, s
  long nsteps;                 // steps seen
  long nstuck;                 // steps counted as stuck

  int nnotes;                  // diagnostics
  int ndropped;                // diagnostics left out (the last listed one says how many)
  char notes[CS_METRICS_MAX_NOTES + 1][CS_METRICS_NOTE_LEN];
} csMetrics;

// Set up the statistics for a run of m starting from the state in d (realized as needed here):
// record the initial energy and contact positions, and check the parameters (diagnostics that do
// not depend on the run). Returns 0, or -1 when out of memory.
// On failure mt is freed.
// mt is overwritten (its old arrays are not freed) and owns the arrays allocated here until
// cs_metricsFree. d is realized to dynamics here (hence not const). None may be NULL.
int cs_metricsInit(csMetrics* mt, const csModel* m, csData* d);
// Sample the state at the end of a successful step (data realized to dynamics).
// Allocates nothing (it runs inside the integration). mt must have been set up by
// cs_metricsInit for the same m.
void cs_metricsStep(csMetrics* mt, const csModel* m, csData* d);
// 1 when cs_metricsStep has anything to sample (the scene has contact elements). Without it a
// runner can leave the step hook out, and the integrator then realizes nothing after a step
// that only the hook would have read (a scene without auto-update variables).
int cs_metricsSamplesSteps(const csMetrics* mt);
// Sample the state at a report time (data realized to dynamics): peaks and the energy balance.
// Allocates nothing; the energy error is relative to cs_metricsEnergyScale (J / J). None may be
// NULL.
void cs_metricsReport(csMetrics* mt, const csModel* m, csData* d);
// The energy balance starts from d (realized here) when nothing has been reported yet
// and d is still at the start time: the changes scheduled for the start are applied to the data
// after cs_metricsInit (by the integrator, before the first report, whose row shows their
// values), and belong to the start. cs_metricsReport calls it; so does a runner that makes its
// integrator before any report. Allocates nothing. None may be NULL.
void cs_metricsStartAfterChanges(csMetrics* mt, const csModel* m, csData* d);
// After the run: add the diagnostics that depend on how it went (penetration, step count).
// d holds the final state (of a failed run: the last one tried); only read. Not NULL.
void cs_metricsFinish(csMetrics* mt, const csModel* m, const csData* d);
// Free the arrays (mt may be zeroed or already freed).
void cs_metricsFree(csMetrics* mt);

// What the steps and reports of a run change in a csMetrics, kept so that it can be given back
// when those steps are discarded (a simulation stopped on request goes back to its last
// consistent point, and the statistics go back with it).
typedef struct csMetricsSaved {
  int ncontact, nset;          // the sizes the arrays were made for
  csMetricsContact* contact;   // (ncontact)
  double* set_peak;            // (nset)
  csMetricsWindow* window;     // (ncontact + nset)
  double max_penetration, peak_normal_force, sliding_distance, stuck_drift;
  double energy_error, energy_gain, energy_loss, energy_seen;
  double last_e, last_t, e_change, jump, jump_t0, jump_t1;
  long nsteps, nstuck, nreport;
  int nnotes, ndropped;
} csMetricsSaved;

// Keep mt's results in sv, making sv's arrays for mt's sizes the first time (sv zeroed, or
// made for the same sizes). Returns 0, or -1 when out of memory (sv then holds nothing).
int cs_metricsSave(csMetricsSaved* sv, const csMetrics* mt);
// Give mt back the results kept in sv (saved from mt). Allocates nothing.
void cs_metricsRestore(csMetrics* mt, const csMetricsSaved* sv);
// Free sv's arrays (sv may be zeroed or already freed).
void cs_metricsSavedFree(csMetricsSaved* sv);
// Append a diagnostic in plain words (printf format) to mt's notes. Past CS_METRICS_MAX_NOTES
// the last one listed gives way to a note saying how many are left out, which counts every
// note after it. A longer text than CS_METRICS_NOTE_LEN is cut after its last whole word, with
// " ...". mt and fmt not NULL.
__attribute__((format(printf, 2, 3))) void cs_metricsNote(csMetrics* mt, const char* fmt, ...);
// The same for a verdict on the whole run (compare's convergence check), which is listed
// whatever came before it: it has a place of its own after the CS_METRICS_MAX_NOTES others.
// One per run; a second replaces the first.
__attribute__((format(printf, 2, 3))) void cs_metricsVerdict(csMetrics* mt, const char* fmt, ...);
// mt's notes joined with " | " into buf (size bytes, cut to fit), for one table cell
void cs_metricsJoinNotes(const csMetrics* mt, char* buf, size_t size);
// Real parameter `key` of element f through its kind's parameter table, or NAN when the kind
// has no such key.
// The value is in the units of the scene key (SI); f is read only, not NULL, and key is a
// top-level or dotted key of the table ("v_settle", "body_material.stiffness").
double cs_metricsParam(const csForce* f, const char* key);
// The energy balance's scale, J (energy_error is relative to it): the largest of |E0|,
// KE0 + |PE0| and KE + |PE| + |dissipated| over the reports so far, at least 1e-12 J
double cs_metricsEnergyScale(const csMetrics* mt);
// 1 when one of the n force elements `forces` of m is an exponential spring moving its anchor by
// the blended rule (the default)
int cs_metricsBlendedAnchors(const csModel* m, const int* forces, int n);

#endif  // CONTACTSIM_METRICS_H
