// bench_rhs.c: placeholder
int main(void) {
  return 0;
}
