/*
 * Our own declarations of the MKL inspector-executor sparse BLAS calls we
 * make (mkl_spblas.h of oneMKL): the enum values and prototypes, with
 * MKL_INT the LP64 int MKL is set to (MKL_Set_Interface_Layer).
 */
#ifndef PB_VENDOR_MKL_SPARSE_H
#define PB_VENDOR_MKL_SPARSE_H

typedef struct sparse_matrix *sparse_matrix_t;

/* sparse_status_t */
#define SPARSE_STATUS_SUCCESS 0
#define SPARSE_STATUS_NOT_SUPPORTED 6
/* sparse_operation_t, sparse_matrix_type_t, sparse_index_base_t, sparse_fill_mode_t,
 * sparse_diag_type_t, sparse_layout_t */
#define SPARSE_OPERATION_NON_TRANSPOSE 10
#define SPARSE_MATRIX_TYPE_GENERAL 20
#define SPARSE_INDEX_BASE_ZERO 0
#define SPARSE_FILL_MODE_FULL 42
#define SPARSE_DIAG_NON_UNIT 50
#define SPARSE_LAYOUT_ROW_MAJOR 101

struct matrix_descr {
	int type; /* sparse_matrix_type_t */
	int mode; /* sparse_fill_mode_t */
	int diag; /* sparse_diag_type_t */
};

typedef int (*mkl_sparse_s_create_csr_fn)(sparse_matrix_t *A, int indexing, int rows, int cols,
                                          int *rows_start, int *rows_end, int *col_indx,
                                          float *values);
typedef int (*mkl_sparse_d_create_csr_fn)(sparse_matrix_t *A, int indexing, int rows, int cols,
                                          int *rows_start, int *rows_end, int *col_indx,
                                          double *values);
typedef int (*mkl_sparse_destroy_fn)(sparse_matrix_t A);
typedef int (*mkl_sparse_set_mv_hint_fn)(sparse_matrix_t A, int operation,
                                         struct matrix_descr descr, int expected_calls);
typedef int (*mkl_sparse_set_mm_hint_fn)(sparse_matrix_t A, int operation,
                                         struct matrix_descr descr, int layout,
                                         int dense_matrix_size, int expected_calls);
typedef int (*mkl_sparse_optimize_fn)(sparse_matrix_t A);
typedef int (*mkl_sparse_s_mv_fn)(int operation, float alpha, sparse_matrix_t A,
                                  struct matrix_descr descr, const float *x, float beta,
                                  float *y);
typedef int (*mkl_sparse_d_mv_fn)(int operation, double alpha, sparse_matrix_t A,
                                  struct matrix_descr descr, const double *x, double beta,
                                  double *y);
typedef int (*mkl_sparse_s_mm_fn)(int operation, float alpha, sparse_matrix_t A,
                                  struct matrix_descr descr, int layout, const float *B,
                                  int columns, int ldb, float beta, float *C, int ldc);
typedef int (*mkl_sparse_d_mm_fn)(int operation, double alpha, sparse_matrix_t A,
                                  struct matrix_descr descr, int layout, const double *B,
                                  int columns, int ldb, double beta, double *C, int ldc);

/*
 * The format converters of MKL's older sparse BLAS (deprecated, present in
 * MKL 2020 and oneMKL): every argument by reference, Fortran style. job[0]
 * the direction, job[1] and job[2] the index bases, job[4] the entries,
 * job[5] which output arrays to fill (mkl_?csrcoo: 1 the rows alone
 * (to COO), 1 the row pointers alone (to CSR); mkl_?csrcsc: 1 all).
 */
typedef void (*mkl_scsrcoo_fn)(const int *job, const int *n, float *acsr, int *ja, int *ia,
                               int *nnz, float *acoo, int *rowind, int *colind, int *info);
typedef void (*mkl_dcsrcoo_fn)(const int *job, const int *n, double *acsr, int *ja, int *ia,
                               int *nnz, double *acoo, int *rowind, int *colind, int *info);
typedef void (*mkl_scsrcsc_fn)(const int *job, const int *n, float *acsr, int *ja, int *ia,
                               float *acsc, int *ja1, int *ia1, int *info);
typedef void (*mkl_dcsrcsc_fn)(const int *job, const int *n, double *acsr, int *ja, int *ia,
                               double *acsc, int *ja1, int *ia1, int *info);

#endif
