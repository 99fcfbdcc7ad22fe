// force_util.h: helpers shared by force kinds (placeholder).
#ifndef CONTACTSIM_FORCE_UTIL_H
#define CONTACTSIM_FORCE_UTIL_H
#endif  // CONTACTSIM_FORCE_UTIL_H
