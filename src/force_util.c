// force_util.c: helpers shared by force kinds (placeholder).
