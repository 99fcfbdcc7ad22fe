// scene_load.c: placeholder until the loader lands.
#include "contactsim/contactsim.h"
#include "error.h"


csModel* cs_loadScene(const char* path, const csLoadOptions* opt, csError* err) {
  (void)opt;
  cs_setError(err, CS_ERR_INPUT, "", "cannot load %s: the loader is not built yet", path);
  return NULL;
}


csModel* cs_loadSceneString(const char* text, const char* filename, const csLoadOptions* opt,
                            csError* err) {
  (void)text;
  return cs_loadScene(filename, opt, err);
}


int cs_sceneContactModels(const char* path, char names[][CS_MAX_NAME], int maxnames,
                          char* defaultname, csError* err) {
  (void)names;
  (void)maxnames;
  (void)defaultname;
  cs_setError(err, CS_ERR_INPUT, "", "cannot load %s", path);
  return -1;
}
