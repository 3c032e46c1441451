/* backends/opencl/cl_internal.h — shared by the OpenCL backend's files. */
#ifndef FF_CL_INTERNAL_H
#define FF_CL_INTERNAL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "backend_impl.h"

#define CL_PROGRAM_CACHE 16

struct cl_program_entry {
    char *options;   /* build options (malloc'd); key together with src */
    const char *src; /* embedded source (static) */
    cl_program program;
};

struct cl_dev {
    struct ff_device base;
    cl_platform_id platform;
    cl_device_id id;
    cl_context ctx;
    cl_command_queue queue; /* in-order, profiling enabled */
    bool is_pocl;
    bool is_cpu;
    /* A PoCL CPU device on an x86 host with AVX-512 VNNI: matmul.cl's DOT path can be built
     * (cl_device.c). */
    bool x86_vnni;
    struct cl_program_entry programs[CL_PROGRAM_CACHE];
    size_t n_programs;
};

struct cl_buf {
    struct ff_buf base;
    cl_mem mem;
};

/* Tile choices for a matmul on this device (cl_tuning.c). */
struct cl_matmul_tune {
    unsigned tm, tn;    /* rows x columns of C per work-item */
    unsigned vw;        /* vector width of B/C loads (tn % vw == 0) */
    unsigned use_local; /* 1: local-memory tiles (GPUs); 0: registers only */
    unsigned wg0, wg1;  /* work-group size; 0 = let the runtime choose */
    unsigned tk;        /* k tile for the local-memory layout (0 in the register layout) */
    unsigned ku;        /* k-loop unroll factor */
    unsigned pack;      /* register layout: 1 packs A and B into panels first, 0 reads in place */
    unsigned rb;        /* register layout, pack 1: row blocks per work-item (matmul.cl RB) */
    unsigned f32acc;    /* int8, packed register layout: exact fp32 chunks (matmul.cl) */
    unsigned dot;       /* int8, register layout: 4-way byte dot products (matmul.cl DOT) */
    const char *why;    /* which table entry chose it */
};
struct cl_kern {
    struct ff_kernel base;
    cl_kernel kernel; /* NULL for library kernels */
    size_t global[2];
    size_t local[2];
    bool has_local;
    bool library; /* runs the library reference (CLBlast) */
    /* Register layout: A and B are first packed into panels (matmul.cl). */
    cl_kernel pack[2]; /* pack_a, pack_b; NULL when not packing */
    cl_mem packed[2];  /* Ap, Bp scratch */
    size_t pack_global[2][2];
    bool want_packing;
    /* Buffers an op kernel keeps for itself, bound after its parameters (the second zeroed):
     * decode attention's parts and their counts (ops.cl PARTS). 0: none. */
    size_t scratch_bytes[2];
    cl_mem scratch[2];
    bool storage16; /* fp16 operands, fp32 arithmetic (FF_KDESC_FP16_STORAGE) */
    struct cl_matmul_tune tune;
};

/* Map an OpenCL error to an ff_status; fills err with "what: CL_... (code)". */
int ff_cl_fail(cl_int code, const char *what, char *err, size_t errlen);
const char *ff_cl_errname(cl_int code);

/* The table's (or the cl_matmul_tune option's) choice for prec on d. */
void ff_cl_tune_matmul(const struct cl_dev *d, enum ff_precision prec, struct cl_matmul_tune *t);
/* What to build for desc: desc->tune when given (it wins), else the option or the table; *point
 * gets the point built (n == 0 only when an option value lies outside the space). Fails with
 * the reason when the point cannot be built on d (ff_cl_matmul_point_check). */
int ff_cl_matmul_choose(const struct cl_dev *d, const struct ff_kernel_desc *desc,
                        struct cl_matmul_tune *t, struct ff_tune_point *point, char *err,
                        size_t errlen);
/* The embedded matmul.cl text (cl_kernel.c), hashed into the space's source hash. */
const char *ff_cl_matmul_source(void);

/* Tuning spaces (ff_kernel_space): the dispatch by kernel id (cl_space.c), the matmul space
 * (cl_tuning.c) and the bandwidth kernels' space (cl_mem_tuning.c). */
int ff_cl_kernel_space(struct ff_device *dev, const struct ff_kernel_desc *desc,
                       struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen);
int ff_cl_point_check(struct ff_device *dev, const struct ff_kernel_desc *desc, char *err,
                      size_t errlen);
int ff_cl_matmul_space(const struct cl_dev *d, const struct ff_kernel_desc *desc,
                       struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen);
int ff_cl_matmul_point_check(const struct cl_dev *d, const struct ff_kernel_desc *desc, char *err,
                             size_t errlen);
int ff_cl_mem_space(const struct cl_dev *d, const struct ff_kernel_desc *desc,
                    struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen);
int ff_cl_mem_point_check(const struct cl_dev *d, const struct ff_kernel_desc *desc, char *err,
                          size_t errlen);
/* The bandwidth kernels' built-in point on d (cl_mem_tuning.c). */
void ff_cl_mem_default(const struct cl_dev *d, enum ff_kernel_id id, struct ff_tune_point *p);
/* A bandwidth point's build options, global and local size (0: the runtime's) and variant. */
void ff_cl_mem_apply(const struct ff_tune_point *p, enum ff_kernel_id id, uint32_t n, char *options,
                     size_t options_len, size_t *global, size_t *local, char *variant,
                     size_t variant_len);

/* The op kernels of ops.cl (cl_ops.c): the program text, kernel name, build options, launch
 * shape, point and variant of desc's op on d, filled into k; its tuning space and point
 * check (gemv and attention; the small ops declare none). */
int ff_cl_ops_create(struct cl_dev *d, struct cl_kern *k, const char **src, const char **name,
                     char *options, size_t optlen, char *err, size_t errlen);
int ff_cl_ops_space(const struct cl_dev *d, const struct ff_kernel_desc *desc,
                    struct ff_tune_space *out, uint64_t *source_hash, char *err, size_t errlen);
int ff_cl_ops_point_check(const struct cl_dev *d, const struct ff_kernel_desc *desc, char *err,
                          size_t errlen);

/* The ops, one file each for buffers and kernels. */
int ff_cl_buf_create(struct ff_device *dev, uint64_t bytes, struct ff_buf **out, char *err,
                     size_t errlen);
void ff_cl_buf_destroy(struct ff_buf *buf);
int ff_cl_buf_write(struct ff_buf *buf, uint64_t offset, const void *src, uint64_t bytes, char *err,
                    size_t errlen);
int ff_cl_buf_read(struct ff_buf *buf, uint64_t offset, void *dst, uint64_t bytes, char *err,
                   size_t errlen);
int ff_cl_buf_transfer_timed(struct ff_buf *buf, enum ff_xfer kind, void *host, uint64_t bytes,
                             uint64_t *ns, char *err, size_t errlen);
int ff_cl_kernel_create(struct ff_device *dev, const struct ff_kernel_desc *desc,
                        struct ff_kernel **out, char *err, size_t errlen);
void ff_cl_kernel_destroy(struct ff_kernel *k);
int ff_cl_kernel_run(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                     const uint32_t *params, size_t n_params, uint64_t *device_ns,
                     uint64_t *wall_ns, char *err, size_t errlen);
int ff_cl_kernel_run_chain(struct ff_kernel *k, struct ff_buf *const *bufs, size_t n_bufs,
                           const uint32_t *params, size_t n_params, uint32_t count,
                           uint64_t *device_ns, uint64_t *wall_ns, char *err, size_t errlen);
int ff_cl_kernel_run_sets(struct ff_kernel *k, struct ff_buf *const *sets, size_t n_bufs,
                          size_t n_sets, const uint32_t *params, size_t n_params, uint32_t count,
                          uint64_t *device_ns, uint64_t *wall_ns, char *err, size_t errlen);

/* CLBlast reference (backends/clblast); FF_ERR_UNSUPPORTED when not built. */
int ff_clblast_create(struct cl_dev *d, struct cl_kern *k, char *err, size_t errlen);
int ff_clblast_run(struct cl_dev *d, struct cl_kern *k, cl_mem a, cl_mem b, cl_mem c, cl_event *ev,
                   char *err, size_t errlen);

#endif
