/*
 * A library that looks like OpenBLAS but lacks cblas_sgemm, for the loader's
 * missing-symbol test.
 */
void cblas_dgemm(void) {}
void cblas_sgemv(void) {}
void cblas_dgemv(void) {}
void cblas_saxpy(void) {}
void cblas_daxpy(void) {}
void cblas_sdot(void) {}
void cblas_ddot(void) {}
void openblas_set_num_threads(int n) { (void)n; }
int openblas_get_num_threads(void) { return 1; }
