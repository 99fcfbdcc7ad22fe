// replay.h: the replay page: one self-contained HTML file that shows runs of a scene in 3D
// (docs/replay.md). The page's code is a template built from viewer/ at build time; this writer
// fills it with the scene's geometry and the trajectories read back from the CSV files the runs
// wrote (private to the contactsim executable).
#ifndef CONTACTSIM_REPLAY_H
#define CONTACTSIM_REPLAY_H

#include "contactsim/contactsim.h"

#include <stddef.h>
#include <stdio.h>

// Environment variable naming the template to use instead of the built or installed one.
#define CS_REPLAY_TEMPLATE_ENV "CONTACTSIM_REPLAY_TEMPLATE"

// The placeholder in the template that the data replaces.
#define CS_REPLAY_PLACEHOLDER "/*CONTACTSIM_REPLAY_DATA*/"

// One run shown by a replay.
typedef struct csReplayRun {
  const char* model;  // its label (contact model name), not NULL
  const csModel* m;   // the model the CSV was written from (contact elements, stops)
  const char* csv;    // path of the CSV written by `run` or `compare`, with or without
                      // the --forces columns
  const char* shown;  // the CSV's name as the page gives it, when not csv (nullable: csv;
                      // run --replay reads a scratch copy and names the CSV asked for)
  FILE* stream;       // nullable: read the CSV from this stream, from its start, rather than
                      // open csv (which then only names it in messages); not closed
} csReplayRun;

// Find the page template: the file named by $CONTACTSIM_REPLAY_TEMPLATE, else the one built
// next to the executable (BUILD/viewer/), else the installed one (DATADIR/contactsim/).
// Writes its path into path (size bytes) and returns 0; returns -1 with a sentence in err
// (CS_ERR_INPUT) when there is none, e.g. because contactsim was built without the viewer.
int cs_replayFindTemplate(char* path, size_t size, csError* err);

// Write the replay page `out` showing nrun >= 1 runs of one scene (a comparison when nrun > 1):
// the bodies of runs[0].m with their shapes, the planes, each run's contact elements, and each
// CSV's trajectories rounded to 6 significant digits. Every CSV must hold the pose and velocity
// columns of every body and the energy columns; force columns are used when all of a run's
// contacts have them. template_path is the page template. Returns CS_OK, or a status with err
// naming the file and what is wrong (CS_ERR_INPUT for a CSV that does not fit the scene,
// CS_ERR_IO for files that cannot be read or written, CS_ERR_MEMORY).
// All pointers are read only and not NULL; nothing is kept.
csStatus cs_replayWrite(const char* out, const char* template_path, const csReplayRun* runs,
                        int nrun, csError* err);

// The most bytes of data a page may hold (500 MiB, below the 512 MiB of the longest string
// Chrome's script holds): a page that would hold more is not written, CS_ERR_INPUT naming it.
// A test sets a lower limit; 0 restores the default.
void cs_replaySetDataLimit(long bytes);

// `run --replay PAGE`: a scratch CSV next to the page, open for reading and writing, and
// already removed from the directory (made as PAGE.csv.XXXXXX, the name written into path, size
// bytes, for messages), so that nothing is left behind however the process ends, a kill -9
// included; the run writes its CSV with every column (the forces included) there as well as
// the CSV asked for. NULL with err filled when it cannot be made. The caller passes it to
// cs_replayFinishRun, which reads it back and closes it.
FILE* cs_replayOpenScratch(const char* page, char* path, size_t size, csError* err);

// After the run: write the page from the scratch CSV, read back through its stream, then close
// it. run->csv and run->stream are ignored. Returns CS_OK, or a status with err filled (the
// scratch stream is closed in every case).
csStatus cs_replayFinishRun(FILE* scratch, const char* scratch_path, const char* page,
                            const char* template_path, const csReplayRun* run, csError* err);

#endif  // CONTACTSIM_REPLAY_H
