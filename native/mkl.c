/*
 * mkl.c — Intel MKL through libmkl_rt.so: threading layer, thread count,
 * version, code path, and VML.
 *
 * libmkl_rt.so loads its threading layer (libmkl_intel_thread, _gnu_thread,
 * _sequential, _tbb_thread) and libmkl_core on the first MKL call, and when
 * that fails it prints an error and calls exit() itself: MKL 2020.4 dies
 * with "undefined symbol: omp_get_num_procs" when its Intel layer finds no
 * Intel OpenMP runtime. Nothing can catch that, so before the first call we
 * choose a layer whose files exist and whose OpenMP runtime we have loaded
 * RTLD_GLOBAL ourselves, and set it with MKL_Set_Threading_Layer:
 *
 *   1. MKL_THREADING_LAYER from the environment, if set (its runtime must load);
 *   2. intel: libiomp5 (LLVM's libomp.so.5 under that name with libomp-dev);
 *   3. gnu: libgomp.so.1;
 *   4. sequential.
 *
 * The interface layer is set to LP64 (32-bit MKL_INT), what our prototypes
 * use, whatever MKL_INTERFACE_LAYER says.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <glob.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pb_internal.h"

static const char *layer_name(int layer)
{
	switch (layer) {
	case MKL_THREADING_INTEL:
		return "intel";
	case MKL_THREADING_SEQUENTIAL:
		return "sequential";
	case MKL_THREADING_PGI:
		return "pgi";
	case MKL_THREADING_GNU:
		return "gnu";
	case MKL_THREADING_TBB:
		return "tbb";
	}
	return "unknown";
}

/* has_part reports whether MKL's part name (e.g. "libmkl_core") sits beside libmkl_rt. */
static int has_part(const char *rt_path, const char *part)
{
	static const char *const suffixes[] = {".so", ".so.2", ".so.1", NULL};
	for (int i = 0; suffixes[i] != NULL; i++) {
		char name[128];
		snprintf(name, sizeof name, "%s%s", part, suffixes[i]);
		if (pb_dl_sibling_exists(rt_path, name))
			return 1;
	}
	return 0;
}

/* preload_iomp loads an Intel-compatible OpenMP runtime into the global scope. */
static void *preload_iomp(char *path, size_t pathlen)
{
	static const char *const fixed[] = {
		"libiomp5.so",
		"libomp.so.5",
		"libomp5.so",
		"/opt/intel/oneapi/compiler/latest/lib/libiomp5.so",
		"/opt/intel/oneapi/compiler/latest/linux/compiler/lib/intel64_lin/libiomp5.so",
		NULL,
	};
	void *h = pb_dl_preload(fixed, path, pathlen);
	if (h != NULL)
		return h;
	glob_t g;
	if (glob("/usr/lib/llvm-*/lib/libomp.so.5", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && h == NULL; i++) {
			const char *one[2] = {g.gl_pathv[i], NULL};
			h = pb_dl_preload(one, path, pathlen);
		}
		globfree(&g);
	}
	return h;
}

static void *preload_gomp(char *path, size_t pathlen)
{
	static const char *const c[] = {"libgomp.so.1", NULL};
	return pb_dl_preload(c, path, pathlen);
}

static void *preload_tbb(char *path, size_t pathlen)
{
	static const char *const c[] = {"libtbb.so.12", "libtbb.so.2", NULL};
	return pb_dl_preload(c, path, pathlen);
}

/* parse_layer reads MKL_THREADING_LAYER's value; -1 if not one MKL knows. */
static int parse_layer(const char *v)
{
	static const struct {
		const char *name;
		int code;
	} t[] = {{"INTEL", MKL_THREADING_INTEL}, {"SEQUENTIAL", MKL_THREADING_SEQUENTIAL},
	         {"PGI", MKL_THREADING_PGI},     {"GNU", MKL_THREADING_GNU},
	         {"TBB", MKL_THREADING_TBB}};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (strcasecmp(v, t[i].name) == 0)
			return t[i].code;
	return -1;
}

/* prepare_layer checks that layer can run and loads its runtime; 0 if it cannot. */
static int prepare_layer(pb_cblas *lib, int layer, char *why, size_t whylen)
{
	pb_mkl *k = &lib->mkl;
	switch (layer) {
	case MKL_THREADING_INTEL:
		if (!has_part(lib->path, "libmkl_intel_thread")) {
			snprintf(why, whylen, "no libmkl_intel_thread beside %s", lib->path);
			return 0;
		}
		if (preload_iomp(k->omp_path, sizeof k->omp_path) == NULL) {
			snprintf(why, whylen,
			         "no Intel OpenMP runtime (libiomp5.so / libomp.so.5; install libomp-dev)");
			return 0;
		}
		return 1;
	case MKL_THREADING_GNU:
		if (!has_part(lib->path, "libmkl_gnu_thread")) {
			snprintf(why, whylen, "no libmkl_gnu_thread beside %s", lib->path);
			return 0;
		}
		if (preload_gomp(k->omp_path, sizeof k->omp_path) == NULL) {
			snprintf(why, whylen, "no GNU OpenMP runtime (libgomp.so.1)");
			return 0;
		}
		return 1;
	case MKL_THREADING_TBB:
		if (!has_part(lib->path, "libmkl_tbb_thread")) {
			snprintf(why, whylen, "no libmkl_tbb_thread beside %s", lib->path);
			return 0;
		}
		if (preload_tbb(k->omp_path, sizeof k->omp_path) == NULL) {
			snprintf(why, whylen, "no TBB runtime (libtbb.so.12 / libtbb.so.2)");
			return 0;
		}
		return 1;
	case MKL_THREADING_SEQUENTIAL:
		if (!has_part(lib->path, "libmkl_sequential")) {
			snprintf(why, whylen, "no libmkl_sequential beside %s", lib->path);
			return 0;
		}
		return 1;
	default:
		snprintf(why, whylen, "the %s layer is not supported by peakbench", layer_name(layer));
		return 0;
	}
}

pb_status pb_mkl_load(pb_cblas *lib, const char *path, char *tried, size_t triedlen, char *err,
                      size_t errlen)
{
	char rt1[PATH_MAX], rt2[PATH_MAX];
	const char *root = getenv("MKLROOT");
	const char *cands[12];
	int n = 0;
	cands[n++] = "libmkl_rt.so";
	cands[n++] = "libmkl_rt.so.2";
	cands[n++] = "libmkl_rt.so.1";
	if (root != NULL && root[0] != '\0') {
		snprintf(rt1, sizeof rt1, "%s/lib/intel64/libmkl_rt.so", root);
		snprintf(rt2, sizeof rt2, "%s/lib/libmkl_rt.so.2", root);
		cands[n++] = rt1;
		cands[n++] = rt2;
	}
	cands[n++] = "/opt/intel/oneapi/mkl/latest/lib/libmkl_rt.so.2";
	cands[n++] = "/opt/intel/oneapi/mkl/latest/lib/intel64/libmkl_rt.so.2";
	cands[n++] = "/opt/intel/mkl/lib/intel64/libmkl_rt.so";
	cands[n] = NULL;
	const char *env = lib->fam->env;
	const char *one[2] = {path, NULL};
	const char *const *list = cands;
	if (path != NULL && path[0] != '\0') {
		list = one;
		env = NULL;
	}
	/*
	 * MKL's kernel libraries (libmkl_avx512.so, …) call libm (log, exp)
	 * without naming it as a dependency: they rely on the program having
	 * linked it. Ours need not (the Go binary links libc alone), and MKL
	 * 2020's threaded DFT of 64 Ki points then dies on "undefined symbol:
	 * log", taking the process with it. libm is put in the global scope
	 * first, as a program linked with -lm has it.
	 */
	static const char *const libm[] = {"libm.so.6", NULL};
	char mpath[PATH_MAX];
	pb_dl_preload(libm, mpath, sizeof mpath);
	pb_status st = pb_dl_open(lib->fam->display, env, list, &lib->dl, lib->path,
	                          sizeof lib->path, tried, triedlen, err, errlen);
	if (st != PB_OK)
		return st;

	pb_mkl *k = &lib->mkl;
	const pb_sym layers[] = {
		{"MKL_Set_Threading_Layer", &k->set_threading_layer, 0},
		{"MKL_Set_Interface_Layer", &k->set_interface_layer, 0},
	};
	char missing[128];
	pb_sb m;
	pb_sb_init(&m, missing, sizeof missing);
	if (pb_dl_resolve(lib->dl, layers, PB_NSYMS(layers), &m) > 0)
		return pb_fail(PB_ERR_SYMBOL, err, errlen,
		               "mkl: %s is not MKL's single dynamic library: missing symbol %s", lib->path,
		               missing);

	char why[512] = "";
	int layer = -1;
	const char *envlayer = getenv("MKL_THREADING_LAYER");
	if (envlayer != NULL && envlayer[0] != '\0') {
		layer = parse_layer(envlayer);
		if (layer < 0)
			return pb_fail(PB_ERR_INVALID, err, errlen,
			               "mkl: MKL_THREADING_LAYER=%s is not a layer (accepted: INTEL, GNU, "
			               "SEQUENTIAL, TBB)",
			               envlayer);
		if (!prepare_layer(lib, layer, why, sizeof why))
			return pb_fail(PB_ERR_LIBRARY, err, errlen,
			               "mkl: MKL_THREADING_LAYER=%s cannot run: %s (MKL would exit the "
			               "process; unset it or install the runtime)",
			               envlayer, why);
		snprintf(k->layer_why, sizeof k->layer_why, "MKL_THREADING_LAYER=%s", envlayer);
	} else {
		static const int order[] = {MKL_THREADING_INTEL, MKL_THREADING_GNU,
		                            MKL_THREADING_SEQUENTIAL};
		pb_sb s;
		char skipped[512];
		pb_sb_init(&s, skipped, sizeof skipped);
		for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
			if (prepare_layer(lib, order[i], why, sizeof why)) {
				layer = order[i];
				break;
			}
			pb_sb_printf(&s, "%s%s: %s", i > 0 ? "; " : "", layer_name(order[i]), why);
		}
		if (layer < 0)
			return pb_fail(PB_ERR_LIBRARY, err, errlen,
			               "mkl: no threading layer of %s can run (%s); install libmkl-dev "
			               "completely",
			               lib->path, skipped);
		if (s.len > 0)
			snprintf(k->layer_why, sizeof k->layer_why, "default order; skipped %s", skipped);
		else
			snprintf(k->layer_why, sizeof k->layer_why, "default (first of intel, gnu, "
			                                            "sequential that can run)");
	}
	k->set_interface_layer(MKL_INTERFACE_LP64);
	int got = k->set_threading_layer(layer);
	/* MKL already initialised by an earlier open keeps its layer. */
	k->layer = got >= 0 ? got : layer;
	if (got >= 0 && got != layer) {
		size_t l = strlen(k->layer_why);
		snprintf(k->layer_why + l, sizeof k->layer_why - l,
		         "; asked for %s, MKL kept %s (set by an earlier load)", layer_name(layer),
		         layer_name(got));
	}
	return PB_OK;
}

/*
 * pb_mkl_check resolves MKL's own calls and makes the first real one: MKL
 * loads its core, threading layer and CPU kernels then.
 */
pb_status pb_mkl_check(pb_cblas *lib, char *err, size_t errlen)
{
	pb_mkl *k = &lib->mkl;
	const pb_sym syms[] = {
		{"MKL_Set_Num_Threads", &k->set_num_threads, 0},
		{"MKL_Get_Max_Threads", &k->get_max_threads, 0},
		{"MKL_Get_Version", &k->get_version, 0},
		{"MKL_Get_Version_String", &k->get_version_string, 0},
		{"MKL_CBWR_Get_Auto_Branch", &k->cbwr_get_auto_branch, 1},
		{"vsAdd", &k->vsAdd, 1},
		{"vdAdd", &k->vdAdd, 1},
		{"vsMul", &k->vsMul, 1},
		{"vdMul", &k->vdMul, 1},
		{"vsExp", &k->vsExp, 1},
		{"vdExp", &k->vdExp, 1},
		{"vsTanh", &k->vsTanh, 1},
		{"vdTanh", &k->vdTanh, 1},
	};
	char missing[256];
	pb_sb m;
	pb_sb_init(&m, missing, sizeof missing);
	if (pb_dl_resolve(lib->dl, syms, PB_NSYMS(syms), &m) > 0)
		return pb_fail(PB_ERR_SYMBOL, err, errlen, "mkl: %s lacks %s", lib->path, missing);
	float a = 1, b = 1, c = 0;
	lib->sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c,
	           1);
	return PB_OK;
}

pb_status pb_mkl_set_threads(pb_cblas *lib, int n, char *err, size_t errlen)
{
	if (lib->mkl.layer == MKL_THREADING_SEQUENTIAL && n != 1)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "mkl: runs its sequential threading layer (%s): 1 thread only, asked for %d",
		               lib->mkl.layer_why, n);
	lib->mkl.set_num_threads(n);
	return PB_OK;
}

int pb_mkl_get_threads(const pb_cblas *lib) { return lib->mkl.get_max_threads(); }

void pb_mkl_version(pb_cblas *lib, char *out, size_t outlen)
{
	MKLVersion v;
	memset(&v, 0, sizeof v);
	lib->mkl.get_version(&v);
	snprintf(out, outlen, "%d.%d.%d", v.MajorVersion, v.MinorVersion, v.UpdateVersion);
}

static const char *branch_name(int b)
{
	switch (b) {
	case MKL_CBWR_AUTO:
		return "auto (no specific branch)";
	case MKL_CBWR_COMPATIBLE:
		return "COMPATIBLE";
	case MKL_CBWR_SSE2:
		return "SSE2";
	case MKL_CBWR_SSE3:
		return "SSE3";
	case MKL_CBWR_SSSE3:
		return "SSSE3";
	case MKL_CBWR_SSE4_1:
		return "SSE4_1";
	case MKL_CBWR_SSE4_2:
		return "SSE4_2";
	case MKL_CBWR_AVX:
		return "AVX";
	case MKL_CBWR_AVX2:
		return "AVX2";
	case MKL_CBWR_AVX512_MIC:
		return "AVX512_MIC";
	case MKL_CBWR_AVX512:
		return "AVX512";
	case MKL_CBWR_AVX512_MIC_E1:
		return "AVX512_MIC_E1";
	case MKL_CBWR_AVX512_E1:
		return "AVX512_E1";
	}
	return "unknown";
}

/* The CPU-specific kernel library MKL loaded: libmkl_def (generic), _mc3, _avx2, _avx512... */
struct kernel_scan {
	char name[64];
};

static int scan_kernel(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct kernel_scan *ks = data;
	const char *base = info->dlpi_name != NULL ? strrchr(info->dlpi_name, '/') : NULL;
	if (base == NULL)
		return 0;
	base++;
	static const char *const kernels[] = {"def", "mc", "mc3", "avx", "avx2", "avx512",
	                                      "avx512_mic"};
	for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
		char want[64];
		snprintf(want, sizeof want, "libmkl_%s.so", kernels[i]);
		size_t n = strlen(want);
		if (strncmp(base, want, n) == 0 && (base[n] == '\0' || base[n] == '.')) {
			snprintf(ks->name, sizeof ks->name, "%s", kernels[i]);
			return 1;
		}
	}
	return 0;
}

void pb_mkl_describe(pb_cblas *lib, pb_sb *s)
{
	pb_mkl *k = &lib->mkl;
	MKLVersion v;
	memset(&v, 0, sizeof v);
	k->get_version(&v);
	char vs[256] = "";
	k->get_version_string(vs, (int)sizeof vs);
	vs[sizeof vs - 1] = '\0';
	pb_sb_printf(s, "version_string=%s\n", vs);
	if (v.Build != NULL)
		pb_sb_printf(s, "build=%s\n", v.Build);
	pb_sb_printf(s, "threading=%s\n", layer_name(k->layer));
	pb_sb_printf(s, "threading_reason=%s\n", k->layer_why);
	if (k->omp_path[0] != '\0')
		pb_sb_printf(s, "threading_runtime=%s\n", k->omp_path);
	struct kernel_scan ks = {""};
	dl_iterate_phdr(scan_kernel, &ks);
	const char *proc = v.Processor != NULL ? v.Processor : "unknown";
	if (ks.name[0] != '\0')
		pb_sb_printf(s, "code_path=%s (libmkl_%s.so; %s)\n", ks.name, ks.name, proc);
	else
		pb_sb_printf(s, "code_path=%s\n", proc);
	pb_sb_printf(s, "processor=%s\n", proc);
	if (k->cbwr_get_auto_branch != NULL)
		pb_sb_printf(s, "cbwr_auto_branch=%s\n", branch_name(k->cbwr_get_auto_branch()));
	pb_sb_printf(s, "interface=lp64\n");
	pb_sb_printf(s, "vml=%s\n",
	             k->vsAdd != NULL ? "add mul exp tanh (no sigmoid in MKL VML)" : "absent");
}

/* VML */

/* is_mkl reports whether lib was opened through MKL's row. */
static int is_mkl(const pb_cblas *lib) { return lib->fam->load == pb_mkl_load; }

int pb_mkl_vml_has(const pb_cblas *lib, pb_vml_op op, pb_dtype dt)
{
	if (lib == NULL || !is_mkl(lib))
		return 0;
	const pb_mkl *k = &lib->mkl;
	int f64 = dt == PB_F64;
	if (dt != PB_F32 && dt != PB_F64)
		return 0;
	switch (op) {
	case PB_VML_ADD:
		return f64 ? k->vdAdd != NULL : k->vsAdd != NULL;
	case PB_VML_MUL:
		return f64 ? k->vdMul != NULL : k->vsMul != NULL;
	case PB_VML_EXP:
		return f64 ? k->vdExp != NULL : k->vsExp != NULL;
	case PB_VML_TANH:
		return f64 ? k->vdTanh != NULL : k->vsTanh != NULL;
	case PB_VML_SIGMOID: /* MKL's VML has no logistic function (2020 and oneMKL 2024 alike) */
	default:
		return 0;
	}
}

static pb_status it_vml(pb_job *j, int c, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	const pb_mkl *k = &j->lib->mkl;
	int n = (int)j->p[0];
	void *x = pb_job_buf(j, c, 0), *y = pb_job_buf(j, c, 1);
	int f64 = j->dt == PB_F64;
	switch ((pb_vml_op)j->p[1]) {
	case PB_VML_ADD:
		if (f64)
			k->vdAdd(n, x, y, pb_job_buf(j, c, 2));
		else
			k->vsAdd(n, x, y, pb_job_buf(j, c, 2));
		break;
	case PB_VML_MUL:
		if (f64)
			k->vdMul(n, x, y, pb_job_buf(j, c, 2));
		else
			k->vsMul(n, x, y, pb_job_buf(j, c, 2));
		break;
	case PB_VML_EXP:
		if (f64)
			k->vdExp(n, x, y);
		else
			k->vsExp(n, x, y);
		break;
	case PB_VML_TANH:
		if (f64)
			k->vdTanh(n, x, y);
		else
			k->vsTanh(n, x, y);
		break;
	default:
		break;
	}
	return PB_OK;
}

pb_status pb_mkl_job_vml(pb_cblas *lib, pb_vml_op op, pb_dtype dt, int n, const pb_job_opts *opts,
                         pb_job **out, char *err, size_t errlen)
{
	if (lib == NULL || out == NULL)
		return pb_fail(PB_ERR_INVALID, err, errlen, "pb_mkl_job_vml: NULL argument");
	if (!is_mkl(lib))
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "%s: VML is MKL's only", lib->name);
	if (dt != PB_F32 && dt != PB_F64)
		return pb_fail(PB_ERR_INVALID, err, errlen, "bad dtype %d (accepted: 4 f32, 8 f64)",
		               (int)dt);
	if ((int)op < PB_VML_ADD || op > PB_VML_SIGMOID)
		return pb_fail(PB_ERR_INVALID, err, errlen, "bad VML op %d", (int)op);
	if (op == PB_VML_SIGMOID)
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen,
		               "mkl: VML has no sigmoid (logistic) function");
	if (!pb_mkl_vml_has(lib, op, dt))
		return pb_fail(PB_ERR_UNSUPPORTED, err, errlen, "mkl: %s lacks this VML function",
		               lib->path);
	if (n < 1)
		return pb_fail(PB_ERR_INVALID, err, errlen, "vml job: n must be at least 1 (n=%d)", n);
	int binary = op == PB_VML_ADD || op == PB_VML_MUL;
	size_t lens[3] = {(size_t)n, (size_t)n, (size_t)n};
	pb_status st = pb_cblas_new_job(lib, dt, binary ? 3 : 2, lens, binary ? 2 : 1, opts, out,
	                                err, errlen);
	if (st != PB_OK)
		return st;
	pb_job *j = *out;
	j->p[0] = n;
	j->p[1] = op;
	j->iter = it_vml;
	static const char *const names[] = {"Add", "Mul", "Exp", "Tanh", "Sigmoid"};
	snprintf(j->desc, sizeof j->desc, "mkl v%c%s n=%d", dt == PB_F32 ? 's' : 'd', names[op], n);
	return PB_OK;
}
