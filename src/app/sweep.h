// sweep.h: `contactsim sweep`, parameter studies on local cores and on Slurm (private to the
// contactsim executable; cmd_sweep.c, docs/sweep-format.md).
#ifndef CONTACTSIM_SWEEP_H
#define CONTACTSIM_SWEEP_H

// `contactsim sweep STUDY.json --out DIR [options]` and `contactsim sweep --gather DIR`.
// argv[0] is "sweep"; argv is only read. Prints its own errors on stderr and returns an exit
// code: 0 every run finished, 1 some run failed or is missing, 2 bad input or usage (a changed
// study in an existing directory included).
int cs_cliSweep(int argc, char** argv);

#endif  // CONTACTSIM_SWEEP_H
