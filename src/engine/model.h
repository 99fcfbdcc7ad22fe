// model.h: private helpers of the model (model.c).
#ifndef CONTACTSIM_MODEL_H
#define CONTACTSIM_MODEL_H

#include "contactsim/contactsim.h"

// Keep a copy of the scene text (len bytes) and the load options in m (m->source), so that
// cs_modelWithOverrides can load the scene again. Returns m, or NULL with err filled and m
// deleted when memory runs out. Nullable: m (returns NULL, err untouched), opt.
csModel* cs_modelKeepSource(csModel* m, const char* text, size_t len, const csLoadOptions* opt,
                            csError* err);

// The scene-file identity of src (cs_modelSetSceneFile) given to dst, a model loaded again from
// src's text (where its file name would be looked up from the working directory of now).
void cs_modelCopySceneFile(csModel* dst, const csModel* src);


#endif  // CONTACTSIM_MODEL_H
