// metrics.h: per-step contact statistics shared by run and compare (placeholder).
#ifndef CONTACTSIM_METRICS_H
#define CONTACTSIM_METRICS_H
#endif
