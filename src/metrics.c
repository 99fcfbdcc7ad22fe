// metrics.c: placeholder
