/*
 * loader.c — find and dlopen vendor libraries; shared error helpers.
 *
 * Libraries are opened with RTLD_NOW|RTLD_LOCAL so that a file missing a
 * dependency fails here, with dlerror's text, rather than later in a call,
 * and so that two libraries exporting the same cblas_* names do not
 * interpose on each other. Every failure names each candidate tried and
 * why it failed.
 *
 * Every library but MKL is also opened with RTLD_DEEPBIND (pb_dl_deepbind),
 * because MKL puts symbols in the global scope that others would bind to
 * before their own — the global scope comes first for a library loaded
 * RTLD_LOCAL:
 *   - MKL's Intel threading layer loads libiomp5 (LLVM's libomp) globally,
 *     and libomp exports the GNU OpenMP ABI under the same symbol versions
 *     (GOMP_parallel@GOMP_4.0, omp_set_num_threads@OMP_1.0): BLIS loaded
 *     after MKL asked for 2 threads and ran 1 (CPU/wall 1.00), and oneDNN's
 *     thread count stopped taking effect;
 *   - MKL's parts export the Fortran BLAS (sgemm_...): the reference
 *     CBLAS's cblas_sgemm, loaded after MKL, called MKL's sgemm_ (and ran
 *     at 174 GFLOP/s).
 * DEEPBIND makes each library prefer its own symbols and dependencies.
 * Sanitizer builds cannot use it (ASan aborts on RTLD_DEEPBIND); there the
 * CBLAS loader detects such interposition and refuses the library with an
 * error instead of measuring the wrong one (cblas.c: check_interposition).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pb_internal.h"

const char *pb_status_name(pb_status s)
{
	switch (s) {
	case PB_OK:
		return "PB_OK";
	case PB_ERR_NOT_FOUND:
		return "PB_ERR_NOT_FOUND";
	case PB_ERR_SYMBOL:
		return "PB_ERR_SYMBOL";
	case PB_ERR_INVALID:
		return "PB_ERR_INVALID";
	case PB_ERR_UNSUPPORTED:
		return "PB_ERR_UNSUPPORTED";
	case PB_ERR_NOMEM:
		return "PB_ERR_NOMEM";
	case PB_ERR_LIBRARY:
		return "PB_ERR_LIBRARY";
	case PB_ERR_VERSION:
		return "PB_ERR_VERSION";
	}
	return "PB_ERR_UNKNOWN";
}

pb_status pb_fail(pb_status s, char *err, size_t errlen, const char *fmt, ...)
{
	if (err != NULL && errlen > 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return s;
}

pb_status pb_check_threads(const char *lib, int n, char *err, size_t errlen)
{
	if (n < PB_MIN_THREADS || n > PB_MAX_THREADS)
		return pb_fail(PB_ERR_INVALID, err, errlen,
		               "%s: thread count %d out of range (accepted: %d to %d)", lib, n,
		               PB_MIN_THREADS, PB_MAX_THREADS);
	return PB_OK;
}

void pb_sb_init(pb_sb *sb, char *buf, size_t cap)
{
	sb->buf = buf;
	sb->cap = buf != NULL ? cap : 0;
	sb->len = 0;
	if (sb->cap > 0)
		buf[0] = '\0';
}

void pb_sb_printf(pb_sb *sb, const char *fmt, ...)
{
	if (sb->cap == 0 || sb->len + 1 >= sb->cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb->len += (size_t)n;
	if (sb->len >= sb->cap) /* truncated: mark it */
	{
		sb->len = sb->cap - 1;
		if (sb->cap > 4)
			memcpy(sb->buf + sb->cap - 4, "...", 4);
	}
}

void pb_dl_realpath(void *handle, char *path, size_t pathlen)
{
	if (path == NULL || pathlen == 0)
		return;
	path[0] = '\0';
	struct link_map *lm = NULL;
	if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL || lm->l_name == NULL)
		return;
	char *rp = realpath(lm->l_name, NULL);
	snprintf(path, pathlen, "%s", rp != NULL ? rp : lm->l_name);
	free(rp);
}

/* why strips dlerror's leading "CAND: " (the candidate is printed already). */
static const char *why(const char *cand, const char *e)
{
	if (e == NULL)
		return "unknown dlopen error";
	size_t n = strlen(cand);
	if (strncmp(e, cand, n) == 0 && e[n] == ':' && e[n + 1] == ' ')
		return e + n + 2;
	return e;
}

pb_status pb_dl_open(const char *library, const char *env, const char *const *candidates,
                     void **handle, char *path, size_t pathlen, char *tried, size_t triedlen,
                     char *err, size_t errlen)
{
	return pb_dl_open_flags(library, env, candidates, 0, handle, path, pathlen, tried, triedlen,
	                        err, errlen);
}

int pb_dl_deepbind(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	return 0; /* the sanitizers' runtimes refuse RTLD_DEEPBIND */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                     \
	__has_feature(memory_sanitizer)
	return 0;
#else
	return RTLD_DEEPBIND;
#endif
#else
	return RTLD_DEEPBIND;
#endif
}

/*
 * Worker threads of a threaded library spin for a while after each parallel
 * region before they sleep: libiomp5 (MKL's) for KMP_BLOCKTIME, 200 ms by
 * default; OpenBLAS for 2^OPENBLAS_THREAD_TIMEOUT cycles, 2^28 (~70 ms) by
 * default. peakbench interleaves the samples of several libraries in one
 * process, so those spinning workers would steal the cores from the next
 * library measured (oneDNN's exp ran at half speed right after MKL). Sleeping
 * at once (KMP_BLOCKTIME=0) is no cure: it made MKL's 1 MiB saxpy 4× slower,
 * every call waking its workers. About a millisecond keeps the workers hot
 * between the back-to-back calls of one sample (microseconds apart) and
 * quiet soon after it; the measurement loop pauses that long when it
 * switches libraries. libgomp (BLIS, oneDNN) spins ~0.3 ms by default and
 * is left alone. A user's own setting wins; results record the values.
 */
static void quiet_idle_threads(void)
{
	setenv("KMP_BLOCKTIME", "1", 0);
	setenv("OPENBLAS_THREAD_TIMEOUT", "22", 0); /* 2^22 cycles, ~1 ms */
}

static pthread_once_t quiet_once = PTHREAD_ONCE_INIT;

pb_status pb_dl_open_flags(const char *library, const char *env, const char *const *candidates,
                           int extra, void **handle, char *path, size_t pathlen, char *tried,
                           size_t triedlen, char *err, size_t errlen)
{
	if (library == NULL || handle == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_dl_open: library and handle are required");
	*handle = NULL;
	pthread_once(&quiet_once, quiet_idle_threads);
	const char *override = env != NULL ? getenv(env) : NULL;
	const char *one[2] = {override, NULL};
	if (override != NULL && override[0] != '\0')
		candidates = one;
	else
		override = NULL;

	pb_sb t, e;
	pb_sb_init(&t, tried, triedlen);
	pb_sb_init(&e, err, errlen);
	pb_sb_printf(&e, "%s not found (tried: ", library);
	int n = 0;
	for (; candidates != NULL && candidates[n] != NULL; n++) {
		const char *cand = candidates[n];
		dlerror();
		void *h = dlopen(cand, RTLD_NOW | RTLD_LOCAL | extra);
		if (h != NULL) {
			*handle = h;
			pb_dl_realpath(h, path, pathlen);
			if (tried != NULL && triedlen > 0)
				tried[0] = '\0';
			return PB_OK;
		}
		const char *w = why(cand, dlerror());
		const char *label = override != NULL ? env : NULL;
		if (n > 0) {
			pb_sb_printf(&e, "; ");
			pb_sb_printf(&t, "\n");
		}
		if (label != NULL) {
			pb_sb_printf(&e, "%s=%s: %s", label, cand, w);
			pb_sb_printf(&t, "%s=%s: %s", label, cand, w);
		} else {
			pb_sb_printf(&e, "%s: %s", cand, w);
			pb_sb_printf(&t, "%s: %s", cand, w);
		}
	}
	if (n == 0)
		pb_sb_printf(&e, "no candidates");
	pb_sb_printf(&e, ")");
	return PB_ERR_NOT_FOUND;
}

void *pb_dl_preload(const char *const *candidates, char *path, size_t pathlen)
{
	if (path != NULL && pathlen > 0)
		path[0] = '\0';
	for (int i = 0; candidates[i] != NULL; i++) {
		void *h = dlopen(candidates[i], RTLD_NOW | RTLD_GLOBAL);
		if (h != NULL) {
			pb_dl_realpath(h, path, pathlen);
			return h;
		}
	}
	return NULL;
}

int pb_dl_sibling_exists(const char *path, const char *name)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash == NULL)
		return 0;
	*slash = '\0';
	char full[PATH_MAX + 64];
	snprintf(full, sizeof full, "%s/%s", dir, name);
	struct stat st;
	return stat(full, &st) == 0;
}

int pb_dl_resolve(void *dl, const pb_sym *table, size_t n, pb_sb *missing)
{
	int nmissing = 0;
	for (size_t i = 0; i < n; i++) {
		dlerror();
		void *p = dlsym(dl, table[i].name);
		memcpy(table[i].slot, &p, sizeof p);
		if (p != NULL || table[i].optional)
			continue;
		if (missing != NULL)
			pb_sb_printf(missing, "%s%s", nmissing > 0 ? ", " : "", table[i].name);
		nmissing++;
	}
	return nmissing;
}
