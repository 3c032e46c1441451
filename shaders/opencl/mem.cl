/*
 * Bandwidth and latency kernels. n is a word count (uint32), a multiple of 1024.
 *
 * One source, built per point of the bandwidth kernels' tuning space (cl_mem_tuning.c) with
 *   -DFF_VW=w     vector width in 32-bit words: 1, 2, 4, 8, 16 (uint .. uint16, float .. float16)
 *   -DFF_EPI=e    vectors each work-item moves (its work per item)
 *   -DFF_LAYOUT=l which vectors a work-item moves, for item g of G, local id t of L in group q:
 *                 0 grid stride:  g + j*G          (consecutive items on consecutive vectors:
 *                                                   coalesced on GPUs)
 *                 1 contiguous:   g*e + j          (one stream per item: PoCL runs a group's
 *                                                   items in a loop on one core, and one
 *                                                   contiguous stream per item is what the
 *                                                   prefetchers follow)
 *                 2 group block:  q*L*e + t + j*L  (a contiguous block per work-group, items
 *                                                   interleaved in it: clpeak's
 *                                                   "local_offset" bandwidth layout)
 *   -DFF_NT=1     WRITE, COPY, TRIAD: non-temporal stores (clang's __builtin_nontemporal_store:
 *                 streaming stores on x86 CPUs, which skip the read-for-ownership of every
 *                 written line, and the streaming/"slc" hint on GPUs that have one)
 * for j = 0 .. e-1. Every layout moves every vector of the n words exactly once, so each
 * kernel's contract (backend.h) holds at every point: READ writes one word per work-item,
 * the XOR of the words it read, so the XOR of all out words is the XOR of all source words;
 * WRITE stores dst[i] = value ^ i; COPY dst[i] = src[i]; TRIAD a[i] = b[i] + 3 c[i].
 * The host guarantees n % (w*e) == 0 and, for layout 2, that the work-group size divides
 * the n / (w*e) items.
 */
#ifndef FF_VW
#define FF_VW 4
#endif
#ifndef FF_EPI
#define FF_EPI 1
#endif
#ifndef FF_LAYOUT
#define FF_LAYOUT 0
#endif

#ifndef FF_NT
#define FF_NT 0
#endif
#if FF_NT
#define STORE(p, v) __builtin_nontemporal_store((v), (p))
#else
#define STORE(p, v) (*(p) = (v))
#endif

#define FF_CAT_(a, b) a##b
#define FF_CAT(a, b) FF_CAT_(a, b)
#if FF_VW == 1
#define UV uint
#define FV float
#define IOTA ((uint)(0))
#define XOR_ALL(v) (v)
#else
#define UV FF_CAT(uint, FF_VW)
#define FV FF_CAT(float, FF_VW)
#if FF_VW == 2
#define IOTA ((uint2)(0, 1))
#define XOR_ALL(v) ((v).x ^ (v).y)
#elif FF_VW == 4
#define IOTA ((uint4)(0, 1, 2, 3))
#define XOR_ALL(v) ((v).x ^ (v).y ^ (v).z ^ (v).w)
#elif FF_VW == 8
#define IOTA ((uint8)(0, 1, 2, 3, 4, 5, 6, 7))
#define XOR_ALL(v) xor8(v)
#elif FF_VW == 16
#define IOTA ((uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
#define XOR_ALL(v) xor16(v)
#else
#error "FF_VW must be 1, 2, 4, 8 or 16"
#endif
#endif

#if FF_VW >= 8
static inline uint xor8(uint8 v)
{
    uint4 s = v.lo ^ v.hi;
    return s.x ^ s.y ^ s.z ^ s.w;
}
#endif
#if FF_VW == 16
static inline uint xor16(uint16 v)
{
    return xor8(v.lo ^ v.hi);
}
#endif

/* The index (in vectors) of work-item g's j-th vector, and the step between its vectors. */
#if FF_LAYOUT == 0
#define FIRST() get_global_id(0)
#define STEP() get_global_size(0)
#elif FF_LAYOUT == 1
#define FIRST() (get_global_id(0) * FF_EPI)
#define STEP() 1
#elif FF_LAYOUT == 2
#define FIRST() (get_group_id(0) * get_local_size(0) * FF_EPI + get_local_id(0))
#define STEP() get_local_size(0)
#else
#error "FF_LAYOUT must be 0, 1 or 2"
#endif

__kernel void mem_read(__global const UV *restrict src, __global uint *restrict out)
{
    const size_t first = FIRST(), step = STEP();
    __global const UV *p = src + first;
#if FF_EPI % 2 == 0
    /* Two accumulators: two independent load streams per item. */
    UV s0 = (UV)(0), s1 = (UV)(0);
    for (int j = 0; j < FF_EPI; j += 2) {
        s0 ^= p[(size_t)j * step];
        s1 ^= p[(size_t)(j + 1) * step];
    }
    s0 ^= s1;
#else
    UV s0 = (UV)(0);
    for (int j = 0; j < FF_EPI; j++)
        s0 ^= p[(size_t)j * step];
#endif
    out[get_global_id(0)] = XOR_ALL(s0);
}

__kernel void mem_write(__global UV *restrict dst, uint value)
{
    const size_t first = FIRST(), step = STEP();
    for (int j = 0; j < FF_EPI; j++) {
        const size_t v = first + (size_t)j * step;
        STORE(dst + v, (UV)(value) ^ ((UV)((uint)v * FF_VW) + IOTA));
    }
}

__kernel void mem_copy(__global const UV *restrict src, __global UV *restrict dst)
{
    const size_t first = FIRST(), step = STEP();
    for (int j = 0; j < FF_EPI; j++)
        STORE(dst + first + (size_t)j * step, src[first + (size_t)j * step]);
}

__kernel void mem_triad(__global FV *restrict a, __global const FV *restrict b,
                        __global const FV *restrict c)
{
    const size_t first = FIRST(), step = STEP();
    for (int j = 0; j < FF_EPI; j++) {
        const size_t v = first + (size_t)j * step;
        STORE(a + v, b[v] + 3.0f * c[v]);
    }
}

__kernel void empty(void)
{
}
