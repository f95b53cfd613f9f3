/*
 * fake_cufft.c — a stand-in for cuFFT 11 (libcufft.so.11) computing the
 * transforms on the fake runtime's host-backed "device" memory: a direct
 * DFT of each row, then of each column for 2-D, summed in long double with
 * the twiddle of every j·k mod n taken from one table, then rounded to the
 * plan's precision. Strict where the real one would misbehave:
 *   - plans take rank 1 or 2 and the basic layout (NULL inembed/onembed,
 *     contiguous batches), as peakbench makes them;
 *   - an exec call must match its plan's type (ExecC2C on a C2C plan, …)
 *     and its direction must be CUFFT_FORWARD or CUFFT_INVERSE;
 *   - data must be device allocations of the plan's device, current on the
 *     calling thread;
 *   - the work goes on the stream the plan is bound to (cufftSetStream; the
 *     default stream when none) and is carried out when that stream is
 *     synchronized (fake_runtime.c), not during the call.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The file gpufake builds this into (its name and soname): cuFFT 11's, of CUDA 12. */
#define PB_FAKE_SONAME "libcufft.so.11"

#define EXPORT __attribute__((visibility("default")))

extern int pbfake_current_device(void);
extern int pbfake_device_of(const void *p);
extern int pbfake_enqueue(void *stream, void (*fn)(void *arg), void *arg);

enum {
	SUCCESS = 0,
	INVALID_PLAN = 1,
	ALLOC_FAILED = 2,
	INVALID_TYPE = 3,
	INVALID_VALUE = 4,
	EXEC_FAILED = 6,
	INVALID_SIZE = 8,
	INVALID_DEVICE = 11,
};
enum { C2C = 0x29, R2C = 0x2a, Z2Z = 0x69, D2Z = 0x6a };

#define MAXPLANS 4096

typedef struct plan {
	int used;
	int dev;
	int rank, n[2], type, batch;
	void *stream;
} plan;

static plan plans[MAXPLANS];

EXPORT int cufftGetVersion(int *v)
{
	*v = 11200; /* cuFFT 11.2.0 (CUDA 12.4) */
	return SUCCESS;
}

EXPORT int cufftPlanMany(int *h, int rank, int *n, int *inembed, int istride, int idist,
                         int *onembed, int ostride, int odist, int type, int batch)
{
	(void)istride, (void)idist, (void)ostride, (void)odist; /* ignored with NULL embeds */
	if (h == NULL || n == NULL)
		return INVALID_VALUE;
	if (type != C2C && type != R2C && type != Z2Z && type != D2Z)
		return INVALID_TYPE;
	if (rank < 1 || rank > 2 || batch < 1 || inembed != NULL || onembed != NULL)
		return INVALID_VALUE;
	for (int i = 0; i < rank; i++)
		if (n[i] < 1)
			return INVALID_SIZE;
	for (int i = 1; i < MAXPLANS; i++) { /* 0 stays unused: a zeroed handle is no plan */
		if (!plans[i].used) {
			plans[i] = (plan){.used = 1, .dev = pbfake_current_device(), .rank = rank,
			                  .n = {n[0], rank == 2 ? n[1] : 1}, .type = type, .batch = batch};
			*h = i;
			return SUCCESS;
		}
	}
	return ALLOC_FAILED;
}

static plan *get(int h) { return h > 0 && h < MAXPLANS && plans[h].used ? &plans[h] : NULL; }

EXPORT int cufftSetStream(int h, void *stream)
{
	plan *p = get(h);
	if (p == NULL)
		return INVALID_PLAN;
	p->stream = stream;
	return SUCCESS;
}

EXPORT int cufftDestroy(int h)
{
	plan *p = get(h);
	if (p == NULL)
		return INVALID_PLAN;
	p->used = 0;
	return SUCCESS;
}

/* The work of one exec call, carried out when its stream is synchronized. */
typedef struct exec {
	plan p;
	const void *in;
	void *out;
	int sign; /* the exponent's: -1 forward, +1 inverse */
} exec;

/* twiddles fills tw[m] = e^(sign·2πi·m/n), m < n. */
static void twiddles(long double (*tw)[2], int n, int sign)
{
	for (int m = 0; m < n; m++) {
		long double a = 2 * 3.141592653589793238462643383279503L * (long double)m / n;
		tw[m][0] = cosl(a);
		tw[m][1] = sign * sinl(a);
	}
}

/* dft replaces the n points x[0], x[stride], … by their DFT (tw: twiddles of n; tmp: n). */
static void dft(long double (*x)[2], int n, int stride, long double (*tw)[2], long double (*tmp)[2])
{
	for (int k = 0; k < n; k++) {
		long double re = 0, im = 0;
		for (int j = 0; j < n; j++) {
			const long double *w = tw[(long long)j * k % n], *v = x[(size_t)j * stride];
			re += v[0] * w[0] - v[1] * w[1];
			im += v[0] * w[1] + v[1] * w[0];
		}
		tmp[k][0] = re;
		tmp[k][1] = im;
	}
	for (int k = 0; k < n; k++) {
		x[(size_t)k * stride][0] = tmp[k][0];
		x[(size_t)k * stride][1] = tmp[k][1];
	}
}

static void run_exec(void *arg)
{
	exec *e = arg;
	const plan *p = &e->p;
	int rows = p->rank == 2 ? p->n[0] : 1, n = p->n[p->rank - 1];
	int real_in = p->type == R2C || p->type == D2Z;
	int f64 = p->type == Z2Z || p->type == D2Z;
	size_t pts = (size_t)rows * n, half = real_in ? (size_t)n / 2 + 1 : (size_t)n;
	long double(*buf)[2] = malloc(pts * sizeof *buf);
	long double(*tmp)[2] = malloc((size_t)(rows > n ? rows : n) * sizeof *tmp);
	long double(*twr)[2] = malloc((size_t)n * sizeof *twr);
	long double(*twc)[2] = malloc((size_t)rows * sizeof *twc);
	if (buf == NULL || tmp == NULL || twr == NULL || twc == NULL) {
		free(buf);
		free(tmp);
		free(twr);
		free(twc);
		return;
	}
	twiddles(twr, n, e->sign);
	twiddles(twc, rows, e->sign);
	for (int b = 0; b < p->batch; b++) {
		for (size_t i = 0; i < pts; i++) {
			size_t at = (size_t)b * pts + i;
			if (real_in) {
				buf[i][0] = f64 ? ((const double *)e->in)[at] : ((const float *)e->in)[at];
				buf[i][1] = 0;
			} else {
				buf[i][0] = f64 ? ((const double *)e->in)[2 * at] : ((const float *)e->in)[2 * at];
				buf[i][1] = f64 ? ((const double *)e->in)[2 * at + 1]
				                : ((const float *)e->in)[2 * at + 1];
			}
		}
		for (int r = 0; r < rows; r++)
			dft(buf + (size_t)r * n, n, 1, twr, tmp);
		if (rows > 1)
			for (int c = 0; c < n; c++)
				dft(buf + c, rows, n, twc, tmp);
		for (int r = 0; r < rows; r++)
			for (size_t c = 0; c < half; c++) {
				size_t o = 2 * (((size_t)b * rows + r) * half + c);
				if (f64) {
					((double *)e->out)[o] = (double)buf[(size_t)r * n + c][0];
					((double *)e->out)[o + 1] = (double)buf[(size_t)r * n + c][1];
				} else {
					((float *)e->out)[o] = (float)buf[(size_t)r * n + c][0];
					((float *)e->out)[o + 1] = (float)buf[(size_t)r * n + c][1];
				}
			}
	}
	free(buf);
	free(tmp);
	free(twr);
	free(twc);
}

static int submit(int h, int type, const void *in, void *out, int sign)
{
	plan *p = get(h);
	if (p == NULL)
		return INVALID_PLAN;
	if (p->type != type)
		return INVALID_TYPE;
	if (pbfake_current_device() != p->dev)
		return INVALID_DEVICE;
	if (pbfake_device_of(in) != p->dev || pbfake_device_of(out) != p->dev)
		return INVALID_VALUE;
	exec *e = malloc(sizeof *e);
	if (e == NULL)
		return ALLOC_FAILED;
	*e = (exec){.p = *p, .in = in, .out = out, .sign = sign};
	return pbfake_enqueue(p->stream, run_exec, e) == 0 ? SUCCESS : EXEC_FAILED;
}

static int direction(int dir) { return dir == -1 || dir == 1; }

EXPORT int cufftExecC2C(int h, void *in, void *out, int dir)
{
	return direction(dir) ? submit(h, C2C, in, out, dir) : INVALID_VALUE;
}

EXPORT int cufftExecZ2Z(int h, void *in, void *out, int dir)
{
	return direction(dir) ? submit(h, Z2Z, in, out, dir) : INVALID_VALUE;
}

EXPORT int cufftExecR2C(int h, void *in, void *out) { return submit(h, R2C, in, out, -1); }

EXPORT int cufftExecD2Z(int h, void *in, void *out) { return submit(h, D2Z, in, out, -1); }
