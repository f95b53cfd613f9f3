/*
 * FFTW 3, loaded at run time (native/fftw.c): one precision per handle
 * (libfftw3f for f32, libfftw3 for f64), with its threads library when
 * present. Our own prototypes of the few calls used are in native/fftw.c.
 */
#ifndef PEAKBENCH_FFTW_H
#define PEAKBENCH_FFTW_H

#include "peakbench.h"

typedef struct pb_fftw pb_fftw;
typedef struct pb_fftw_plan pb_fftw_plan;

/* The transforms: kind of pb_fftw_plan_new. */
enum { PB_FFTW_FORWARD = 0, PB_FFTW_BACKWARD = 1, PB_FFTW_R2C = 2 };

/* pb_fftw_open loads FFTW in single (f64 = 0) or double precision. */
pb_status pb_fftw_open(int f64, pb_fftw **out, char *err, size_t errlen);
void pb_fftw_close(pb_fftw *f);
const char *pb_fftw_version(const pb_fftw *f);
const char *pb_fftw_path(const pb_fftw *f);
/* pb_fftw_has_threads reports whether the threads library loaded. */
int pb_fftw_has_threads(const pb_fftw *f);
/* Wisdom: accumulated plans, read and written by file name. */
int pb_fftw_import_wisdom(pb_fftw *f, const char *path);
int pb_fftw_export_wisdom(pb_fftw *f, const char *path);

/*
 * pb_fftw_plan_new plans howmany transforms of rank 1 or 2 (dims: n, or
 * rows and columns), contiguous one after another, out of place, over
 * copies buffer sets, with planner flags (FFTW_ESTIMATE 64, FFTW_MEASURE
 * 0, FFTW_PATIENT 32), threads threads, and a planning time limit in
 * seconds (fftw_set_timelimit; < 0: none). in holds nin reals (interleaved
 * complex for the c2c kinds), converted into every copy's input after
 * planning (the planner overwrites its arrays). *plan_ns receives the
 * planner's time. A plan FFTW cannot make is PB_ERR_UNSUPPORTED; a length
 * below 1, or nin and nout other than the transform's (2·points each for
 * the c2c kinds; points and 2·batch·rows·(n/2+1) for R2C), PB_ERR_INVALID.
 */
pb_status pb_fftw_plan_new(pb_fftw *f, int kind, int rank, const int *dims, int howmany,
                           unsigned flags, int threads, double timelimit, const double *in,
                           size_t nin, size_t nout, int copies, pb_fftw_plan **out,
                           double *plan_ns, char *err, size_t errlen);
/* pb_fftw_run executes iters times, rotating the copies; *ns: the time. */
pb_status pb_fftw_run(pb_fftw_plan *p, long iters, double *ns, char *err, size_t errlen);
/* pb_fftw_output writes the latest run's nout output reals as doubles. */
void pb_fftw_output(const pb_fftw_plan *p, double *out);
void pb_fftw_plan_free(pb_fftw_plan *p);

#endif
