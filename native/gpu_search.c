/*
 * gpu_search.c — where GPU libraries are looked for besides the dynamic
 * linker's path (CUDA toolkits, pip's nvidia wheels, ROCm), and opening a
 * GPU library described by its table (pb_gpu_lib) through the loader's one
 * candidate loop, pb_dl_search.
 */
#define _GNU_SOURCE
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pb_gpu.h"

/* A growable list of strings, NULL-terminated (v[n] == NULL) for pb_dl_search. */
typedef struct strlist {
	char **v;
	int n, cap;
} strlist;

static int sl_add(strlist *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return 0;
	if (l->n + 1 >= l->cap) {
		int cap = l->cap ? 2 * l->cap : 16;
		char **v = realloc(l->v, (size_t)cap * sizeof *v);
		if (v == NULL)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = strdup(s);
	if (l->v[l->n] == NULL)
		return -1;
	l->n++;
	l->v[l->n] = NULL;
	return 0;
}
static void sl_free(strlist *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int by_version_desc(const void *a, const void *b)
{
	return strverscmp(*(char *const *)b, *(char *const *)a);
}

/* add_glob adds the folders matching pattern, newest version first. */
static void add_glob(strlist *dirs, const char *pattern)
{
	glob_t g;
	memset(&g, 0, sizeof g);
	if (glob(pattern, GLOB_ONLYDIR | GLOB_NOSORT, NULL, &g) == 0) {
		qsort(g.gl_pathv, g.gl_pathc, sizeof *g.gl_pathv, by_version_desc);
		for (size_t i = 0; i < g.gl_pathc; i++)
			if (is_dir(g.gl_pathv[i]))
				sl_add(dirs, g.gl_pathv[i]);
	}
	globfree(&g);
}

static void add_env_dir(strlist *dirs, const char *env, const char *sub)
{
	const char *v = getenv(env);
	if (v == NULL || v[0] == '\0')
		return;
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", v, sub);
	if (strchr(p, '*') != NULL)
		add_glob(dirs, p);
	else if (is_dir(p))
		sl_add(dirs, p);
}

/*
 * add_path_envs adds the wheels' folders of each Python environment whose bin
 * folder is on $PATH: a venv used through its python on PATH without being
 * activated (as a machine image's /opt/…/.venv often is) sets no VIRTUAL_ENV.
 */
static void add_path_envs(strlist *dirs)
{
	const char *path = getenv("PATH");
	if (path == NULL)
		return;
	while (*path != '\0') {
		const char *end = strchr(path, ':');
		size_t n = end != NULL ? (size_t)(end - path) : strlen(path);
		if (n > 4 && n < PATH_MAX - 64 && strncmp(path + n - 4, "/bin", 4) == 0) {
			char p[PATH_MAX];
			snprintf(p, sizeof p, "%.*s/lib/python3*/site-packages/nvidia/*/lib", (int)(n - 4),
			         path);
			add_glob(dirs, p);
		}
		if (end == NULL)
			break;
		path = end + 1;
	}
}

static const char *const cuda_where =
	"$CUDA_HOME/lib64, $CUDA_PATH/lib64, /usr/local/cuda*/lib64, and nvidia/*/lib of Python "
	"site-packages ($VIRTUAL_ENV, the environments on $PATH, $CONDA_PREFIX, ~/.local, "
	"~/.pyenv, /usr/local/lib/python3*, /usr/lib/python3*)";
static const char *const rocm_where = "$ROCM_PATH/lib, $HIP_PATH/lib, /opt/rocm*/lib";

/* search_dirs lists the folders to look in, in order. */
static void search_dirs(int search, strlist *dirs)
{
	if (search & PB_SEARCH_CUDA) {
		add_env_dir(dirs, "CUDA_HOME", "lib64");
		add_env_dir(dirs, "CUDA_HOME", "lib");
		add_env_dir(dirs, "CUDA_PATH", "lib64");
		add_env_dir(dirs, "CUDA_PATH", "lib");
		if (is_dir("/usr/local/cuda/lib64"))
			sl_add(dirs, "/usr/local/cuda/lib64");
		add_glob(dirs, "/usr/local/cuda-*/lib64");
		add_env_dir(dirs, "VIRTUAL_ENV", "lib/python3*/site-packages/nvidia/*/lib");
		add_path_envs(dirs);
		add_env_dir(dirs, "CONDA_PREFIX", "lib/python3*/site-packages/nvidia/*/lib");
		add_env_dir(dirs, "CONDA_PREFIX", "lib");
		add_env_dir(dirs, "HOME", ".local/lib/python3*/site-packages/nvidia/*/lib");
		add_env_dir(dirs, "HOME", ".pyenv/versions/*/lib/python3*/site-packages/nvidia/*/lib");
		add_glob(dirs, "/usr/local/lib/python3*/site-packages/nvidia/*/lib");
		add_glob(dirs, "/usr/local/lib/python3*/dist-packages/nvidia/*/lib");
		add_glob(dirs, "/usr/lib/python3*/site-packages/nvidia/*/lib");
		add_glob(dirs, "/usr/lib/python3*/dist-packages/nvidia/*/lib");
		add_glob(dirs, "/opt/conda/lib/python3*/site-packages/nvidia/*/lib");
		if (is_dir("/usr/local/nvidia/lib64"))
			sl_add(dirs, "/usr/local/nvidia/lib64");
	}
	if (search & PB_SEARCH_ROCM) {
		add_env_dir(dirs, "ROCM_PATH", "lib");
		add_env_dir(dirs, "HIP_PATH", "lib");
		if (is_dir("/opt/rocm/lib"))
			sl_add(dirs, "/opt/rocm/lib");
		add_glob(dirs, "/opt/rocm-*/lib");
	}
}

pb_status pb_gpu_lib_open(const pb_gpu_lib *lib, const char *path, const char *const *order,
                          pb_dl_accept_fn accept, void *accept_arg, void **handle, int *index,
                          char *out_path, size_t pathlen, char *tried, size_t triedlen, char *err,
                          size_t errlen)
{
	const char *one[2] = {path, NULL};
	const char *const *cands = order != NULL ? order : lib->sonames;
	const char *env = lib->env;
	int search = lib->search;
	if (path != NULL && path[0] != '\0') { /* the file asked for, alone */
		cands = one;
		env = NULL;
		search = 0;
	}
	const char *override = env != NULL ? getenv(env) : NULL;
	strlist dirs = {0};
	if (search != 0 && (override == NULL || override[0] == '\0'))
		search_dirs(search, &dirs);
	pb_dl_search_opts o = {
		.dirs = dirs.v != NULL ? (const char *const *)dirs.v : (const char *const[]){NULL},
		.where = search == 0 ? NULL : (search & PB_SEARCH_CUDA) ? cuda_where : rocm_where,
		.companions = lib->companions,
		.accept = accept,
		.accept_arg = accept_arg,
	};
	pb_status st = pb_dl_search(lib->name, env, cands, &o, handle, index, out_path, pathlen, tried,
	                            triedlen, err, errlen);
	sl_free(&dirs);
	return st;
}
