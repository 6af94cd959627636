/* probe.c — placeholder; the escape suite's probe comes with the hardening work. */
int main(void) { return 0; }
