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
 * switches libraries. libgomp (BLIS, oneDNN) is left alone: it spins a
 * count of PAUSE instructions (300,000 by default), 7-10 ms on the Zen 5 VM,
 * which the measurement loop waits out after its pause (measure.Options.Quiet).
 * A user's own setting wins; results record the values.
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
	pb_dl_search_opts o = {.flags = extra};
	return pb_dl_search(library, env, candidates, &o, handle, NULL, path, pathlen, tried, triedlen,
	                    err, errlen);
}

static int file_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && !S_ISDIR(st.st_mode);
}

/* preload_companions dlopens the companions present in path's folder by full path. */
static void preload_companions(const char *path, const char *const *companions)
{
	const char *slash = strrchr(path, '/');
	if (companions == NULL || slash == NULL)
		return;
	for (int i = 0; companions[i] != NULL; i++) {
		char full[PATH_MAX + 128];
		snprintf(full, sizeof full, "%.*s/%s", (int)(slash - path), path, companions[i]);
		if (file_exists(full))
			dlopen(full, RTLD_NOW | RTLD_LOCAL); /* best effort: its own failure shows later */
	}
}

/* A candidate to try: a file name, and the index of the candidate it came from. */
typedef struct cand {
	char name[PATH_MAX + 128];
	int index;
} cand;

/*
 * expand lists what to try: each candidate as given, then in each folder
 * where the file exists; *n receives the count (the list is malloc'd).
 */
static cand *expand(const char *const *candidates, const char *const *dirs, int *n)
{
	int nc = 0, nd = 0;
	while (candidates != NULL && candidates[nc] != NULL)
		nc++;
	while (dirs != NULL && dirs[nd] != NULL)
		nd++;
	cand *v = calloc((size_t)nc * (size_t)(nd + 1) + 1, sizeof *v);
	*n = 0;
	if (v == NULL)
		return NULL;
	for (int c = 0; c < nc; c++) {
		snprintf(v[*n].name, sizeof v[*n].name, "%s", candidates[c]);
		v[(*n)++].index = c;
		for (int d = 0; d < nd && strchr(candidates[c], '/') == NULL; d++) {
			snprintf(v[*n].name, sizeof v[*n].name, "%s/%s", dirs[d], candidates[c]);
			int seen = !file_exists(v[*n].name);
			for (int k = 0; k < *n && !seen; k++)
				seen = strcmp(v[k].name, v[*n].name) == 0;
			if (!seen)
				v[(*n)++].index = c;
		}
	}
	return v;
}

pb_status pb_dl_search(const char *library, const char *env, const char *const *candidates,
                       const pb_dl_search_opts *o, void **handle, int *index, char *path,
                       size_t pathlen, char *tried, size_t triedlen, char *err, size_t errlen)
{
	if (library == NULL || handle == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_dl_open: library and handle are required");
	*handle = NULL;
	if (index != NULL)
		*index = -1;
	pthread_once(&quiet_once, quiet_idle_threads);
	static const pb_dl_search_opts none;
	if (o == NULL)
		o = &none;
	const char *override = env != NULL ? getenv(env) : NULL;
	const char *one[2] = {override, NULL};
	const char *const *dirs = o->dirs;
	if (override != NULL && override[0] != '\0') {
		candidates = one;
		dirs = NULL;
	} else {
		override = NULL;
	}
	int n = 0;
	cand *cands = expand(candidates, dirs, &n);
	if (cands == NULL)
		return pb_fail(PB_ERR_NOMEM, err, errlen, "%s: out of memory", library);

	pb_sb t, e;
	pb_sb_init(&t, tried, triedlen);
	pb_sb_init(&e, err, errlen);
	pb_sb_printf(&e, "%s not found (tried: ", library);
	pb_status st = PB_ERR_NOT_FOUND;
	for (int i = 0; i < n; i++) {
		const char *cand = cands[i].name;
		char w[512];
		w[0] = '\0';
		preload_companions(cand, o->companions);
		dlerror();
		void *h = dlopen(cand, RTLD_NOW | RTLD_LOCAL | o->flags);
		if (h != NULL) {
			char rp[PATH_MAX];
			pb_dl_realpath(h, rp, sizeof rp);
			if (o->accept == NULL || o->accept(h, rp, o->accept_arg, w, sizeof w) == 0) {
				*handle = h;
				if (path != NULL && pathlen > 0)
					snprintf(path, pathlen, "%s", rp);
				if (index != NULL)
					*index = override != NULL ? -1 : cands[i].index;
				if (tried != NULL && triedlen > 0)
					tried[0] = '\0';
				st = PB_OK;
				break;
			}
		} else {
			snprintf(w, sizeof w, "%s", why(cand, dlerror()));
		}
		if (i > 0) {
			pb_sb_printf(&e, "; ");
			pb_sb_printf(&t, "\n");
		}
		if (override != NULL) {
			pb_sb_printf(&e, "%s=%s: %s", env, cand, w);
			pb_sb_printf(&t, "%s=%s: %s", env, cand, w);
		} else {
			pb_sb_printf(&e, "%s: %s", cand, w);
			pb_sb_printf(&t, "%s: %s", cand, w);
		}
	}
	free(cands);
	if (st == PB_OK)
		return st;
	if (n == 0)
		pb_sb_printf(&e, "no candidates");
	pb_sb_printf(&e, ")");
	if (override == NULL && o->where != NULL) {
		int nd = 0;
		while (o->dirs != NULL && o->dirs[nd] != NULL)
			nd++;
		if (nd == 0)
			pb_sb_printf(&e, "; no other folder to search (none of %s exists)", o->where);
		else {
			pb_sb_printf(&e, "; also searched %d folder%s (of %s):", nd, nd == 1 ? "" : "s",
			             o->where);
			for (int d = 0; d < nd && d < 8; d++)
				pb_sb_printf(&e, " %s", o->dirs[d]);
			if (nd > 8)
				pb_sb_printf(&e, " and %d more", nd - 8);
		}
	}
	return st;
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
