/*
 * flopfit/gguf.h — the header of a GGUF file (llama.cpp's model format): its architecture,
 * its tensors' count, types and exact sizes, so that a served model's weights take the bytes
 * the file really stores (GGUF keeps some tensors in other formats than the file type says:
 * a Q4_0 file's output.weight is Q6_K).
 *
 * Layout (ggml docs/gguf.md, versions 2 and 3): "GGUF", uint32 version, uint64 tensor count,
 * uint64 metadata count, the metadata key/values, then per tensor its name, dimensions, ggml
 * type and offset; all little-endian. Only the header is read (at most FF_GGUF_MAX_HEADER
 * bytes of a regular file, never a FIFO or device), every count and length bounded by what
 * is left of it; a type whose block size this reader does not know is an error naming the
 * tensor.
 *
 * struct ff_gguf_info is frozen (its layout changes only with the soname, doc/abi.md).
 * Thread-safety: reentrant, no global state.
 */
#ifndef FLOPFIT_GGUF_H
#define FLOPFIT_GGUF_H

#include <stddef.h>
#include <stdint.h>

#include "flopfit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FF_GGUF_MAX_HEADER  (64u * 1024u * 1024u) /* bytes of header read at most */
#define FF_GGUF_MAX_TENSORS 65536u                /* tensors (DeepSeek-V3: ~1,100) */
#define FF_GGUF_TYPE_MAX    16

struct ff_gguf_info {
    uint32_t version;                  /* 2 or 3 */
    char architecture[64];             /* general.architecture, "" when absent */
    int32_t file_type;                 /* general.file_type (llama_ftype), -1 when absent */
    char format[FF_GGUF_TYPE_MAX];     /* flopfit's name of file_type ("q4_0", "q8_0", "q4_k_m",
                                      "fp16", "bf16", "fp32"), "" when it has none */
    uint64_t tensors;                  /* tensor count */
    uint64_t params;                   /* elements over every tensor */
    double tensor_bytes;               /* bytes of tensor data, each tensor at its own type */
    char head_type[FF_GGUF_TYPE_MAX];  /* ggml type of output.weight ("q6_K"), "" absent */
    char embed_type[FF_GGUF_TYPE_MAX]; /* ggml type of token_embd.weight, "" absent */
    double head_bytes, embed_bytes;    /* their sizes, bytes (0 absent) */
};

/* Parse `len` bytes (a file's beginning) labelled `label` in messages. Returns 0,
 * FF_ERR_INVALID (not GGUF, truncated, a count or length past the data, an unknown tensor
 * type: err names the label and the field) or FF_ERR_UNSUPPORTED (a version other than 2/3). */
FF_API int ff_gguf_parse(const void *data, size_t len, const char *label, struct ff_gguf_info *out,
                         char *err, size_t errlen);

/* Read the header of the regular file at `path`: as ff_gguf_parse, or FF_ERR_IO (cannot
 * open; not a regular file), and FF_ERR_INVALID when the tensor data would end past the
 * file's size. */
FF_API int ff_gguf_read(const char *path, struct ff_gguf_info *out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
