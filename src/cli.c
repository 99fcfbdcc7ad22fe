// cli.c: placeholder
