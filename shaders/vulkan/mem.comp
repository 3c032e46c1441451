#version 450
/*
 * Bandwidth kernels over n 32-bit words, one source compiled ten times
 * (-DFF_READ, -DFF_WRITE, -DFF_COPY, -DFF_TRIAD; each with uvec4 elements, and with -DFF_SCALAR
 * with uint elements: on CPU drivers that vectorise across invocations, such as lavapipe,
 * consecutive invocations reading consecutive words make one wide load where uvec4 per
 * invocation makes a gather; READ also with -DFF_TEXEL, its source through a texel buffer
 * view: lavapipe fetches a texel for all SIMD lanes at once where a storage-buffer load is a
 * loop over the lanes), built per point of the bandwidth kernels'
 * tuning space (vk_mem_tuning.c) through specialization constants:
 *   0 work-group size
 *   1 U: elements per access unit (uvec4: 1, 2, 4, i.e. 16, 32 or 64 adjacent bytes per
 *        step; scalar: 1, 4 bytes)
 *   2 LAYOUT: 0 grid stride: invocation t of T handles units t, t + T, t + 2T ... (each pass
 *             contiguous across the invocations of a wave: coalesced on GPUs);
 *             1 contiguous: invocation t handles units t*E .. t*E + E - 1 (one stream per
 *             invocation: what CPU prefetchers follow, lavapipe runs a work-group's
 *             invocations on one thread)
 *   3 E: units per invocation in the contiguous layout (the grid-stride layout takes its work
 *        per invocation from the dispatch size the host chooses)
 * Both layouts visit every unit of the n words exactly once, whatever the dispatch, so each
 * kernel's contract (backend.h) holds at every point: READ writes one word per invocation, the
 * XOR of what it read.
 */
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint U = 1;
layout(constant_id = 2) const uint LAYOUT = 0;
layout(constant_id = 3) const uint E = 1;
layout(push_constant) uniform P { uint n4; uint value; } p;

#if defined(FF_SCALAR)
#define UT uint
#define FT float
#define ELEMS (p.n4 * 4u)
#else
#define UT uvec4
#define FT vec4
#define ELEMS p.n4
#endif

#if defined(FF_READ) && defined(FF_TEXEL)
/* the source through a uniform texel buffer view: R32G32B32A32_UINT texels (uvec4 elements)
 * or R32_UINT (scalar), the path the op kernels read their inputs by */
layout(set = 0, binding = 0) uniform usamplerBuffer src_tex;
layout(set = 0, binding = 1, std430) writeonly buffer Out { uint outw[]; };
#if defined(FF_SCALAR)
#define SRC(i) texelFetch(src_tex, int(i)).x
#else
#define SRC(i) texelFetch(src_tex, int(i))
#endif
#elif defined(FF_READ)
layout(set = 0, binding = 0, std430) readonly buffer Src { UT src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Out { uint outw[]; };
#define SRC(i) src[i]
#elif defined(FF_WRITE)
layout(set = 0, binding = 0, std430) writeonly buffer Dst { UT dst[]; };
#elif defined(FF_COPY)
layout(set = 0, binding = 0, std430) readonly buffer Src { UT src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { UT dst[]; };
#else
layout(set = 0, binding = 0, std430) writeonly buffer Ab { FT a[]; };
layout(set = 0, binding = 1, std430) readonly buffer Bb { FT b[]; };
layout(set = 0, binding = 2, std430) readonly buffer Cb { FT c[]; };
#endif

#if defined(FF_READ)
UT s = UT(0);
#endif

/* Unit u: elements u*U .. u*U + U - 1. */
void unit(uint u)
{
    for (uint j = 0; j < U; j++) {
        uint i = u * U + j;
#if defined(FF_READ)
        s ^= SRC(i);
#elif defined(FF_WRITE) && defined(FF_SCALAR)
        dst[i] = p.value ^ i;
#elif defined(FF_WRITE)
        dst[i] = uvec4(p.value) ^ (uvec4(i * 4) + uvec4(0, 1, 2, 3));
#elif defined(FF_COPY)
        dst[i] = src[i];
#else
        a[i] = b[i] + 3.0 * c[i];
#endif
    }
}

void main()
{
    uint t = gl_GlobalInvocationID.x;
    uint units = ELEMS / U; /* the host keeps the element count a multiple of U */
    if (LAYOUT == 0) {
        uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
        for (uint u = t; u < units; u += stride)
            unit(u);
    } else {
        uint first = t * E;
        uint last = min(first + E, units);
        for (uint u = first; u < last; u++)
            unit(u);
    }
#if defined(FF_READ) && defined(FF_SCALAR)
    outw[t] = s;
#elif defined(FF_READ)
    outw[t] = s.x ^ s.y ^ s.z ^ s.w;
#endif
}
